/**
 * `punctual schedules create|list|get|update|delete|trigger|executions`: one-time jobs, through
 * the API. The choices of `--status` are SCHEDULE_STATUSES of src/domain/enums.ts.
 */
import { Option, type Command } from 'commander';
import type { Schedule, ScheduleBulk, ScheduleCreate, ScheduleList, ScheduleListQuery, ScheduleUpdate } from '../client/index.js';
import { SCHEDULE_STATUSES } from '../domain/enums.js';
import { isBulk, runBulk, withBulkOptions, type BulkFlags } from './bulk.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { printExecution, printExecutions, withPageOptions, type PageOptions } from './executions.js';
import { NotFound, UsageError } from './exit.js';
import { collect, defined, deliveryBody, json, withDeliveryOptions, type DeliveryFlags } from './options.js';
import { detailTable, listTable, out, printJson, requestCells, retryCell } from './output.js';
import { newSigningSecret, registerSigningSecretCommand, secretsBody, withSecretOptions, type SecretFlags } from './secret-options.js';

/** A schedule as a two-column table. */
export function scheduleDetail(s: Schedule): string {
  return detailTable({ ...s, data: JSON.stringify(s.data), retry: retryCell(s.retry), ...requestCells(s), successStatuses: s.successStatuses.join(', ') });
}

function schedulesTable(list: Schedule[]): string {
  return listTable(
    ['ID', 'NAME', 'STATUS', 'SCHEDULED AT', 'ENDPOINT', 'TAGS'],
    list.map((s) => [s.id, s.name, s.status, s.scheduledAt, s.endpoint, s.tags]),
  );
}

interface FieldFlags extends ApiOptions, DeliveryFlags, SecretFlags {
  name?: string;
  at?: string;
  endpoint?: string;
  data?: unknown;
  tag?: string[] | false;
  /** A key, or false for `--no-key` (update: remove it). */
  key?: string | false;
}

function withFieldOptions(cmd: Command, required: boolean): Command {
  const req = required ? ' (required)' : '';
  return withSecretOptions(withDeliveryOptions(
    withApiOptions(cmd)
      .addOption(new Option('--name <name>', `name of the schedule${req}`))
      .addOption(new Option('--at <instant>', `ISO 8601 instant with Z or an offset, e.g. 2026-11-21T10:00:00Z${req}`))
      .addOption(new Option('--endpoint <url>', `URL to call${req}`))
      .addOption(new Option('--data <json>', "JSON object sent as the call's body, e.g. '{\"invoice\":42}'").argParser(json))
      .addOption(new Option('--tag <tag>', required ? 'a label (repeatable)' : 'a label (repeatable; replaces the tags)').argParser(collect))
      .addOption(new Option('--key <key>', 'your unique name for the schedule (1–128 of A-Z a-z 0-9 . _ : -; docs/apply.md)')),
  ), !required);
}

/** Adds the `schedules` command group to `program`. */
export function registerScheduleCommands(program: Command): void {
  const schedules = program.command('schedules').description('one-time jobs: call an endpoint once, at an instant');

  withFieldOptions(schedules.command('create').description('create a schedule (Pending)'), true).action(
    action(async (opts: FieldFlags) => {
      const missing = (['name', 'at', 'endpoint'] as const).filter((f) => opts[f] === undefined);
      if (missing.length > 0) throw new UsageError(`schedules create needs ${missing.map((f) => `--${f}`).join(', ')}`);
      const body = {
        name: opts.name,
        scheduledAt: opts.at,
        endpoint: opts.endpoint,
        ...defined({ data: opts.data, tags: opts.tag || undefined, key: opts.key || undefined }),
        ...deliveryBody(opts),
        ...secretsBody(opts),
      } as ScheduleCreate;
      const created = await clientFrom(opts).schedules.create(body);
      if (opts.json) printJson(created);
      else out(scheduleDetail(created));
    }),
  );

  withPageOptions(
    withApiOptions(schedules.command('list').description('list schedules, oldest first'))
      .addOption(new Option('--status <status>', 'only schedules in this state').choices(SCHEDULE_STATUSES))
      .addOption(new Option('--tag <tag>', 'only schedules with this tag (repeatable: all must match)').argParser(collect))
      .addOption(new Option('--name <text>', 'only schedules whose name contains this'))
      .addOption(new Option('--key <key>', 'only the schedule with this key')),
    'schedules',
    '1–1000, default 100',
  ).action(
    action(async (opts: PageOptions & { status?: string; tag?: string[]; name?: string; key?: string }) => {
      const client = clientFrom(opts);
      const query = defined({ status: opts.status, tag: opts.tag, name: opts.name, key: opts.key, limit: opts.limit }) as ScheduleListQuery;
      let result: ScheduleList;
      if (opts.all) {
        const all: Schedule[] = [];
        for await (const s of client.schedules.listAll(query)) all.push(s);
        result = { size: all.length, schedules: all, nextCursor: null };
      } else {
        result = await client.schedules.list({ ...query, ...defined({ cursor: opts.cursor }) } as ScheduleListQuery);
      }
      if (opts.json) return printJson(result);
      out(result.schedules.length === 0 ? 'No schedules.' : schedulesTable(result.schedules));
      if (result.nextCursor) out(`More: --cursor ${result.nextCursor} (or --all)`);
    }),
  );

  withApiOptions(schedules.command('get').argument('<id>', 'id of the schedule').description('show a schedule')).action(
    action(async (id: string, opts: ApiOptions) => {
      const schedule = await clientFrom(opts).schedules.get(id);
      if (opts.json) printJson(schedule);
      if (schedule === null) throw new NotFound(`no schedule has the id ${id}`);
      if (!opts.json) out(scheduleDetail(schedule));
    }),
  );

  withFieldOptions(
    schedules
      .command('update')
      .argument('<id>', 'id of the schedule')
      .description('change a Pending schedule: only the fields given'),
    false,
  )
    // After --tag: defined first, --no-tag would make the tags default to true.
    .addOption(new Option('--no-tag', 'remove every tag'))
    .addOption(new Option('--no-key', 'remove the key'))
    .action(
    action(async (id: string, opts: FieldFlags) => {
      const body = {
        ...defined({
          name: opts.name,
          scheduledAt: opts.at,
          endpoint: opts.endpoint,
          data: opts.data,
          tags: opts.tag === false ? [] : opts.tag,
          key: opts.key === false ? null : opts.key,
        }),
        ...deliveryBody(opts),
        ...secretsBody(opts),
      } as ScheduleUpdate;
      const updated = await clientFrom(opts).schedules.update(id, body);
      if (opts.json) printJson(updated);
      else out(scheduleDetail(updated));
    }),
  );

  registerSigningSecretCommand(schedules, 'schedule', newSigningSecret('schedules'));

  withBulkOptions(
    withApiOptions(
      schedules
        .command('delete')
        .argument('[ids...]', 'ids of the schedules')
        .description('delete schedules (one id: DELETE; a filter or several ids: POST /schedules/bulk)'),
    ),
    'schedule',
    SCHEDULE_STATUSES,
  ).action(
    action(async (ids: string[], opts: ApiOptions & BulkFlags) => {
      const client = clientFrom(opts);
      if (isBulk(ids, opts)) {
        return runBulk('schedules', 'delete', ids, opts, (filter, dryRun) => client.schedules.bulk({ action: 'delete', filter, dryRun } as ScheduleBulk));
      }
      await client.schedules.delete(ids[0]!);
      if (!opts.json) out(`Deleted schedule ${ids[0]}.`);
    }),
  );

  withApiOptions(
    schedules
      .command('trigger')
      .argument('<id>', 'id of the schedule')
      .description('run a Pending schedule now (it does not run again at its instant); prints the new execution'),
  ).action(
    action(async (id: string, opts: ApiOptions) => {
      printExecution(await clientFrom(opts).schedules.trigger(id), opts);
    }),
  );

  withPageOptions(
    withApiOptions(
      schedules
        .command('executions')
        .argument('<id>', 'id of the schedule')
        .description("list the schedule's executions, newest first"),
    ),
    'executions',
    '1–100, default 20',
  ).action(
    action(async (id: string, opts: PageOptions) => {
      const client = clientFrom(opts);
      await printExecutions((query) => client.schedules.executions(id, query), opts);
    }),
  );
}
