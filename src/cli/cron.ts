/**
 * `punctual cron create|list|get|update|pause|resume|trigger|backfill|delete|executions|preview`:
 * recurring jobs, through the API. The choices of `--misfire`, `--overlap` and `--status` are
 * the lists of src/domain/enums.ts.
 */
import { Option, type Command } from 'commander';
import type { CronBulk, CronJob, CronJobCreate, CronJobUpdate, CronPreviewQuery } from '../client/index.js';
import { CRON_JOB_STATUSES, MISFIRE_POLICIES, OVERLAP_POLICIES } from '../domain/enums.js';
import { isBulk, runBulk, withBulkOptions, type BulkFlags } from './bulk.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { UsageError } from './exit.js';
import { keyOption, sharedFieldsBody, tagOption, withSharedFieldOptions, type SharedFieldFlags } from './job-fields.js';
import * as jobs from './jobs.js';
import { defined, integer, json } from './options.js';
import { detailTable, listTable, out, printJson, requestCells, retryCell } from './output.js';
import { newSigningSecret, registerSigningSecretCommand } from './secret-options.js';

/** A cron job as a two-column table. */
export function cronJobDetail(j: CronJob): string {
  return detailTable({
    ...j,
    data: j.data === null ? null : JSON.stringify(j.data),
    retry: retryCell(j.retry),
    ...requestCells(j),
    successStatuses: j.successStatuses.join(', '),
  });
}

function cronJobsTable(list: CronJob[]): string {
  return listTable(
    ['ID', 'NAME', 'EXPRESSION', 'TIMEZONE', 'STATUS', 'NEXT INVOCATION', 'LAST STATUS', 'INVOCATIONS', 'TAGS'],
    list.map((j) => [j.id, j.name, j.expression, j.timezone ?? 'UTC', j.status, j.nextInvocation, j.lastStatus, j.invocations, j.tags]),
  );
}

/** Cron jobs, to the commands both job kinds have (jobs.ts). */
const CRON_KIND: jobs.JobCommandKind<CronJob, 'cronJobs', CronJobCreate, CronJobUpdate> = {
  path: 'cron',
  noun: 'cron job',
  short: 'job',
  listKey: 'cronJobs',
  statuses: CRON_JOB_STATUSES,
  detail: cronJobDetail,
  table: cronJobsTable,
  calls: (client) => client.cron,
};

/**
 * Formats `iso` as wall time in `zone`, e.g. `Mon 2026-11-23 09:00:00 GMT+1` (Intl, with the
 * tzdata of this Node).
 */
export function wallTime(iso: string, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
}

interface FieldFlags extends SharedFieldFlags {
  expression?: string;
  tz?: string | false;
  name?: string | false;
  endpoint?: string;
  data?: unknown;
  misfire?: string;
  overlap?: string;
  /** A number, or false for `--no-pause-after-failures` (update: never). */
  pauseAfterFailures?: number | false;
  /** ISO 8601 instants, or false for `--no-start` / `--no-end` (update: none). */
  start?: string | false;
  end?: string | false;
  /** A number, or false for `--no-max-invocations` (update: no limit). */
  maxInvocations?: number | false;
  jitter?: number;
}

/**
 * The fields of how a job runs, which `create` and `update` take alike from the flags (docs/cron.md,
 * "Missed occurrences and overlap", "Start, end and limits", "Jitter", "Auto-pause").
 */
function runBody(opts: FieldFlags): Record<string, unknown> {
  return defined({
    misfire: opts.misfire,
    overlap: opts.overlap,
    pauseAfterFailures: orNull(opts.pauseAfterFailures),
    startAt: orNull(opts.start),
    endAt: orNull(opts.end),
    maxInvocations: orNull(opts.maxInvocations),
    jitterMs: opts.jitter,
  });
}

function withFieldOptions(cmd: Command, required: boolean): Command {
  const req = required ? ' (required)' : '';
  return withSharedFieldOptions(
    withApiOptions(cmd)
      .addOption(new Option('--expression <cron>', `cron expression, e.g. "0 9 * * MON-FRI", "0 9 * * MON#1" or "@every 1h30m"${req}`))
      .addOption(new Option('--tz <zone>', 'IANA time zone the expression is read in, e.g. Europe/Berlin (default UTC)'))
      .addOption(new Option('--name <name>', 'name of the job'))
      .addOption(keyOption('job'))
      .addOption(new Option('--endpoint <url>', `URL to call${req}`))
      .addOption(new Option('--data <json>', "JSON object sent as each call's body").argParser(json))
      .addOption(new Option('--misfire <policy>', 'occurrences missed while down: once (default), skip, all').choices(MISFIRE_POLICIES))
      .addOption(new Option('--overlap <policy>', 'while the previous run is unfinished: allow (default), skip').choices(OVERLAP_POLICIES))
      .addOption(
        new Option('--pause-after-failures <n>', 'pause the job after this many consecutive failed executions (1–1000; default never)')
          .argParser(integer),
      )
      .addOption(tagOption(!required))
      .addOption(new Option('--start <instant>', 'no occurrence before this ISO 8601 instant, e.g. 2027-01-01T00:00:00Z (startAt)'))
      .addOption(new Option('--end <instant>', 'no occurrence at or after this ISO 8601 instant; the job is then Completed (endAt)'))
      .addOption(
        new Option('--max-invocations <n>', 'the job is Completed after this many executions (1–1000000000; default no limit)')
          .argParser(integer),
      )
      .addOption(
        new Option('--jitter <ms>', 'delay each occurrence by up to this many ms, fixed per occurrence (0–3600000; default 0)')
          .argParser(integer),
      ),
    !required,
  );
}

/** A null for `--no-x` (false), the value otherwise. */
const orNull = <T>(value: T | false | undefined): T | null | undefined => (value === false ? null : value);

/** Adds the `cron` command group to `program`. */
export function registerCronCommands(program: Command): void {
  const cron = program.command('cron').description('recurring jobs: call an endpoint on a cron expression in a time zone');

  jobs.registerEditCommands(cron, CRON_KIND, {
    withFieldOptions,
    createDescription: 'create a cron job (Active)',
    required: ['expression', 'endpoint'],
    createBody: (opts: FieldFlags) =>
      ({
        expression: opts.expression,
        endpoint: opts.endpoint,
        ...defined({
          timezone: opts.tz,
          name: opts.name,
          data: opts.data,
        }),
        ...runBody(opts),
        ...sharedFieldsBody(opts, false),
      }) as CronJobCreate,
    updateDescription: 'change a cron job: only the fields given',
    withClearOptions: (cmd) =>
      cmd
        .addOption(new Option('--no-tz', 'set the time zone to null (UTC)'))
        .addOption(new Option('--no-name', 'set the name to null'))
        .addOption(new Option('--no-data', 'set the data to null'))
        .addOption(new Option('--no-pause-after-failures', 'never pause the job for failures (pauseAfterFailures null)'))
        .addOption(new Option('--no-start', 'remove the start (startAt null)'))
        .addOption(new Option('--no-end', 'remove the end (endAt null)'))
        .addOption(new Option('--no-max-invocations', 'remove the limit (maxInvocations null)')),
    updateBody: (opts) =>
      ({
        ...defined({
          expression: opts.expression,
          timezone: orNull(opts.tz),
          name: orNull(opts.name),
          endpoint: opts.endpoint,
          data: orNull(opts.data as object | false | undefined),
        }),
        ...runBody(opts),
        ...sharedFieldsBody(opts, true),
      }) as CronJobUpdate,
  });

  for (const [verb, description] of [
    ['pause', 'pause cron jobs: they stop firing (one id: PATCH status Paused; a filter or several ids: POST /cron/bulk)'],
    ['resume', 'resume cron jobs from their next occurrence after now (one id: PATCH status Active, paused or completed; else POST /cron/bulk, paused ones)'],
  ] as const) {
    const cmd = withBulkOptions(
      withApiOptions(cron.command(verb).argument('[ids...]', 'ids of the cron jobs').description(description)),
      'cron job',
      CRON_JOB_STATUSES,
    );
    if (verb === 'pause') cmd.addOption(new Option('--reason <text>', 'why the job is paused (pausedReason, at most 512 characters; one id only)'));
    cmd.action(
      action(async (ids: string[], opts: ApiOptions & BulkFlags & { reason?: string }) => {
        const client = clientFrom(opts);
        if (isBulk(ids, opts)) {
          if (opts.reason !== undefined) throw new UsageError('--reason is for one id only');
          return runBulk('cron jobs', verb, ids, opts, (filter, dryRun) => client.cron.bulk({ action: verb, filter, dryRun } as CronBulk));
        }
        const id = ids[0]!;
        const job = verb === 'pause' ? await client.cron.pause(id, opts.reason) : await client.cron.resume(id);
        jobs.printJob(job, opts, CRON_KIND);
      }),
    );
  }

  jobs.registerTriggerCommand(cron, CRON_KIND, 'run a cron job now, outside its schedule (Paused ones too); prints the new execution');

  withApiOptions(
    cron
      .command('backfill')
      .argument('<id>', 'id of the cron job')
      .requiredOption('--from <instant>', 'start of the range, ISO 8601 (inclusive; within the execution retention)')
      .requiredOption('--to <instant>', 'end of the range, ISO 8601 (exclusive; not after now)')
      .description(
        'run the past occurrences in [from, to) that have no execution (at most 1,000; failed ones: `executions replay`); prints the count',
      ),
  ).action(
    action(async (id: string, opts: ApiOptions & { from: string; to: string }) => {
      const r = await clientFrom(opts).cron.backfill(id, { from: opts.from, to: opts.to });
      if (opts.json) printJson(r);
      else out(`Backfilled ${r.count} occurrence${r.count === 1 ? '' : 's'} of cron job ${id}.`);
    }),
  );

  registerSigningSecretCommand(cron, 'cron job', newSigningSecret('cron'));

  jobs.registerDeleteCommand(cron, CRON_KIND);
  jobs.registerExecutionsCommand(cron, CRON_KIND);

  withApiOptions(
    cron
      .command('preview')
      .argument('<expression>', 'cron expression, e.g. "0 9 * * MON-FRI", "0 9 * * MON#1", "0 18 L * *" or "@every 1h30m"')
      .description('show the next occurrences of an expression, computed by the service as for real jobs')
      .addOption(new Option('--tz <zone>', 'IANA time zone (default UTC)'))
      .addOption(new Option('--from <instant>', 'occurrences strictly after this ISO 8601 instant (default now)'))
      .addOption(new Option('--count <n>', 'how many, 1–100 (default 5)').argParser(integer))
      .addOption(new Option('--start-at <instant>', 'for @every: the ISO 8601 instant its intervals count from (default now)')),
  ).action(
    action(async (expression: string, opts: ApiOptions & { tz?: string; from?: string; count?: number; startAt?: string }) => {
      const query = {
        expression,
        ...defined({ timezone: opts.tz, from: opts.from, count: opts.count, startAt: opts.startAt }),
      } as CronPreviewQuery;
      const preview = await clientFrom(opts).cron.preview(query);
      if (opts.json) return printJson(preview);
      const zone = opts.tz ?? 'UTC';
      out(listTable(['#', 'UTC', `LOCAL (${zone})`], preview.occurrences.map((o, i) => [i + 1, o, wallTime(o, zone)])));
    }),
  );
}
