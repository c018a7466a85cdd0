/** Wire schemas of the bulk actions (`POST /schedules/bulk`, `POST /cron/bulk`; docs/interface.md, "Bulk actions"). */
import { Type } from 'typebox';
import { CRON_JOB_STATUSES, SCHEDULE_STATUSES } from '../../domain/enums.js';
import { BULK_IDS_MAX, CRON_BULK_ACTIONS, SCHEDULE_BULK_ACTIONS } from '../../service/job-bulk.js';
import { DEFAULT_LIMITS } from '../../service/limits.js';
import { StringEnum } from './common.js';

/** The filter of a bulk action on `jobs` with these statuses. */
function BulkFilter<const S extends readonly string[]>(statuses: S, jobs: string) {
  const status = StringEnum(statuses, 'A status.');
  return Type.Object(
    {
      tag: Type.Optional(
        Type.Array(Type.String(), {
          description:
            `Only ${jobs} carrying every one of these tags (exact, case-sensitive): 1 to ${DEFAULT_LIMITS.tags} tags by default ` +
            '(`PUNCTUAL_MAX_TAGS`).',
        }),
      ),
      status: Type.Optional(
        Type.Union([status, Type.Array(status)], { description: `Only ${jobs} in this status, or in any of these statuses (a non-empty list).` }),
      ),
      ids: Type.Optional(Type.Array(Type.String(), { description: `Only ${jobs} with any of these ids (1 to ${BULK_IDS_MAX}).` })),
    },
    {
      additionalProperties: false,
      description:
        `Which ${jobs} to act on: the keys combine with AND; at least one is required (an empty filter is a 400 and changes nothing).`,
    },
  );
}

const DRY_RUN = Type.Optional(Type.Boolean({ description: 'True: answer the count and change nothing. Default false.' }));

/** Body of POST /schedules/bulk. */
export const ScheduleBulkBody = Type.Object(
  {
    action: StringEnum(SCHEDULE_BULK_ACTIONS, '`delete`: delete every matching schedule, whatever its status (as DELETE /schedules/{id}).'),
    filter: BulkFilter(SCHEDULE_STATUSES, 'schedules'),
    dryRun: DRY_RUN,
  },
  { additionalProperties: false, title: 'ScheduleBulk', description: 'A bulk action on the schedules a filter matches.' },
);

/** Body of POST /cron/bulk. */
export const CronBulkBody = Type.Object(
  {
    action: StringEnum(
      CRON_BULK_ACTIONS,
      '`pause` the matching Active jobs; `resume` the matching Paused jobs (each from its next occurrence after now, as a PATCH ' +
        'with `"status": "Active"`); `delete` every matching job.',
    ),
    filter: BulkFilter(CRON_JOB_STATUSES, 'cron jobs'),
    dryRun: DRY_RUN,
  },
  { additionalProperties: false, title: 'CronBulk', description: 'A bulk action on the cron jobs a filter matches.' },
);

/** The answer of a bulk action. */
export const BulkResultSchema = Type.Object(
  {
    count: Type.Integer({
      minimum: 0,
      description: 'The jobs the action changed (with `dryRun`: would change). Jobs already in the state asked for are not counted.',
    }),
  },
  { additionalProperties: false, title: 'BulkResult', description: 'What a bulk action did.' },
);
