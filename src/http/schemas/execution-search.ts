/**
 * Wire schemas of the executions list across jobs (`GET /executions`) and of replays
 * (`POST /executions/{id}/replay`, `POST /executions/replay`); docs/interface.md, "Executions
 * across jobs" and "Replay".
 */
import { Type, type Static } from 'typebox';
import { EXECUTION_STATUSES, JOB_TYPES } from '../../domain/enums.js';
import { REPLAY_MAX } from '../../service/execution-search.js';
import { StringEnum, RuleString } from './common.js';
import { ListCursorQuery, ListLimitQuery } from './lists.js';

const jobTypeField = StringEnum(JOB_TYPES, 'Only executions of this kind of job: `schedule` or `cron`.');
const jobIdField = Type.String({
  description: 'Only the executions of this job (its id; an id that is not a UUID matches nothing).',
  maxLength: 100,
});
const fromField = RuleString(
  'instant',
  'Only executions whose `scheduledFor` is at or after this instant (ISO 8601 with `Z` or an offset; inclusive).',
);
const toField = RuleString('instant', 'Only executions whose `scheduledFor` is before this instant (ISO 8601 with `Z` or an offset; exclusive).');

/** Query of GET /executions. Numbers are digit strings: query strings are not coerced. */
export const ExecutionSearchQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Array(StringEnum(EXECUTION_STATUSES, 'A status.'), {
        maxItems: EXECUTION_STATUSES.length,
        description: 'Only executions in this status; repeat it (`?status=Failed&status=Retrying`) for any of several.',
      }),
    ),
    jobType: Type.Optional(jobTypeField),
    jobId: Type.Optional(jobIdField),
    from: Type.Optional(fromField),
    to: Type.Optional(toField),
    limit: Type.Optional(ListLimitQuery('Executions')),
    cursor: Type.Optional(ListCursorQuery),
  },
  { additionalProperties: false },
);
export type ExecutionSearchQuery = Static<typeof ExecutionSearchQuery>;

/** Body of POST /executions/replay: which Failed executions to replay. */
export const ExecutionsReplayBody = Type.Object(
  { jobType: Type.Optional(jobTypeField), jobId: Type.Optional(jobIdField), from: Type.Optional(fromField), to: Type.Optional(toField) },
  {
    additionalProperties: false,
    minProperties: 1,
    title: 'ExecutionsReplayFilter',
    description:
      'Which Failed executions to replay: every field given must match. At least one field (an empty filter is refused; ' +
      'to replay every failure, give `from`).',
  },
);
export type ExecutionsReplayBody = Static<typeof ExecutionsReplayBody>;

/** Answer of POST /executions/replay. */
export const ExecutionsReplayedSchema = Type.Object(
  {
    count: Type.Integer({
      minimum: 0,
      maximum: REPLAY_MAX,
      description: `How many executions were replayed; ${REPLAY_MAX.toLocaleString('en')} (the most at once) means more may remain: call again.`,
    }),
  },
  { additionalProperties: false, title: 'ExecutionsReplayed', description: 'The result of a bulk replay.' },
);
