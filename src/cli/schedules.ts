/**
 * `punctual schedules create|list|get|update|delete|trigger|executions`: one-time jobs, through
 * the API. The choices of `--status` are SCHEDULE_STATUSES of src/domain/enums.ts.
 */
import { Option, type Command } from 'commander';
import type { Schedule, ScheduleCreate, ScheduleUpdate } from '../client/index.js';
import { SCHEDULE_STATUSES } from '../domain/enums.js';
import { withApiOptions } from './connect.js';
import { keyOption, sharedFieldsBody, tagOption, withSharedFieldOptions, type SharedFieldFlags } from './job-fields.js';
import * as jobs from './jobs.js';
import { defined, json } from './options.js';
import { detailTable, listTable, requestCells, retryCell } from './output.js';
import { newSigningSecret, registerSigningSecretCommand } from './secret-options.js';

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

/** Schedules, to the commands both job kinds have (jobs.ts). */
const SCHEDULE_KIND: jobs.JobCommandKind<Schedule, 'schedules', ScheduleCreate, ScheduleUpdate> = {
  path: 'schedules',
  noun: 'schedule',
  short: 'schedule',
  listKey: 'schedules',
  statuses: SCHEDULE_STATUSES,
  detail: scheduleDetail,
  table: schedulesTable,
  calls: (client) => client.schedules,
};

interface FieldFlags extends SharedFieldFlags {
  name?: string;
  at?: string;
  endpoint?: string;
  data?: unknown;
}

function withFieldOptions(cmd: Command, required: boolean): Command {
  const req = required ? ' (required)' : '';
  return withSharedFieldOptions(
    withApiOptions(cmd)
      .addOption(new Option('--name <name>', `name of the schedule${req}`))
      .addOption(new Option('--at <instant>', `ISO 8601 instant with Z or an offset, e.g. 2026-11-21T10:00:00Z${req}`))
      .addOption(new Option('--endpoint <url>', `URL to call${req}`))
      .addOption(new Option('--data <json>', "JSON object sent as the call's body, e.g. '{\"invoice\":42}'").argParser(json))
      .addOption(tagOption(!required))
      .addOption(keyOption('schedule')),
    !required,
  );
}

/** Adds the `schedules` command group to `program`. */
export function registerScheduleCommands(program: Command): void {
  const schedules = program.command('schedules').description('one-time jobs: call an endpoint once, at an instant');

  jobs.registerEditCommands(schedules, SCHEDULE_KIND, {
    withFieldOptions,
    createDescription: 'create a schedule (Pending)',
    required: ['name', 'at', 'endpoint'],
    createBody: (opts: FieldFlags) =>
      ({
        name: opts.name,
        scheduledAt: opts.at,
        endpoint: opts.endpoint,
        ...defined({ data: opts.data }),
        ...sharedFieldsBody(opts, false),
      }) as ScheduleCreate,
    updateDescription: 'change a Pending schedule: only the fields given',
    updateBody: (opts) =>
      ({
        ...defined({
          name: opts.name,
          scheduledAt: opts.at,
          endpoint: opts.endpoint,
          data: opts.data,
        }),
        ...sharedFieldsBody(opts, true),
      }) as ScheduleUpdate,
  });

  registerSigningSecretCommand(schedules, 'schedule', newSigningSecret('schedules'));

  jobs.registerDeleteCommand(schedules, SCHEDULE_KIND);
  jobs.registerTriggerCommand(
    schedules,
    SCHEDULE_KIND,
    'run a Pending schedule now (it does not run again at its instant); prints the new execution',
  );
  jobs.registerExecutionsCommand(schedules, SCHEDULE_KIND);
}
