/** Wire schemas of executions and their attempts. */
import { Type, type Static } from 'typebox';
import { EXECUTION_STATUSES, HTTP_METHODS, JOB_TYPES } from '../../domain/enums.js';
import { toIso, toIsoOrNull } from '../../domain/time.js';
import type { Attempt, Execution } from '../../domain/types.js';
import { Id, Nullable, RuleString, StringEnum, Timestamp } from './common.js';
import { CursorPageSchema } from './lists.js';

/** Describes the statuses, for `status` and for a cron job's `lastStatus`. */
export const EXECUTION_STATUS_DESCRIPTION =
  'Pending (made by a trigger or a backfill, not yet started); Running (an attempt in flight); Retrying (waiting for its next attempt, a replayed one included); ' +
  'Succeeded (an answer the job lists in `successStatuses`, 2xx by default); Failed (attempts exhausted, or another 4xx than 408 and 429, ' +
  '410 included, not listed); Skipped (did not run: overlap or misfire policy).';

/** One attempt on the wire. */
export const AttemptSchema = Type.Object(
  {
    number: Type.Integer({ description: 'Number of the attempt, 1 for the first.' }),
    startedAt: Timestamp('When the attempt started (ISO 8601, UTC).'),
    durationMs: Type.Integer({ description: 'How long the attempt took, in ms.' }),
    statusCode: Nullable(Type.Integer({ description: 'HTTP status of the answer; null when none came (connection error, timeout).' })),
    error: Nullable(Type.String({ description: 'Why the attempt failed; null when it succeeded.' })),
    responseBody: Nullable(Type.String({ description: 'The first 1 KiB of the answer body, as text; null when there was none.' })),
    method: StringEnum(HTTP_METHODS, 'The HTTP method of the call (POST for attempts recorded before methods were kept).'),
    url: Nullable(Type.String({ description: 'The URL called; null for attempts recorded before URLs were kept.' })),
    traceId: Nullable(
      Type.String({
        pattern: '^[0-9a-f]{32}$',
        description:
          'The W3C Trace Context trace id of the call (its `traceparent`): the execution id\'s 32 hex digits, the same on every attempt. ' +
          'Null for attempts recorded before trace ids were kept.',
      }),
    ),
    spanId: Nullable(
      Type.String({
        pattern: '^[0-9a-f]{16}$',
        description:
          'The span id of the attempt, sent as the parent-id of its `traceparent` (a new one per attempt). ' +
          'Null for attempts recorded before span ids were kept.',
      }),
    ),
    waitedMs: Nullable(
      Type.Integer({
        minimum: 0,
        description:
          'How long the attempt waited for its flow-control key\'s limits before it started, ms (from when it was due to when its key admitted it); ' +
          'null for a call without a key.',
      }),
    ),
  },
  { additionalProperties: false, title: 'Attempt', description: 'One call of an endpoint.' },
);
export type AttemptWire = Static<typeof AttemptSchema>;

/** The occurrences a catch-up execution stands for, on the wire. */
export const MissedOccurrencesSchema = Type.Object(
  {
    count: Type.Integer({
      minimum: 2,
      description:
        'How many occurrences this execution stands for, its own (`first`) included: at least 2. Counted up to 1,000; ' +
        'when more were missed, `capped` is true and `count` is 1,000, a lower bound.',
    }),
    first: Timestamp('The oldest missed occurrence (ISO 8601, UTC): the execution\'s `scheduledFor`.'),
    last: Timestamp('The newest missed occurrence, at or before the claim (ISO 8601, UTC); exact even when `capped`.'),
    capped: Type.Boolean({ description: 'True when the count stopped at 1,000 (more were missed).' }),
  },
  {
    additionalProperties: false,
    title: 'MissedOccurrences',
    description:
      'The missed occurrences this one catch-up execution of a cron job runs for (misfire `once`, two or more missed while ' +
      'the service was down or late); null for an execution that stands only for itself. Also sent on each of its calls ' +
      'as `Punctual-Missed-Occurrences`.',
  },
);

/** An execution on the wire. */
export const ExecutionSchema = Type.Object(
  {
    id: Id,
    jobType: StringEnum(JOB_TYPES, 'Kind of job: `schedule` or `cron`.'),
    jobId: Type.String({ description: 'Id of the schedule or cron job.' }),
    scheduledFor: Timestamp(
      'The occurrence this execution is for (ISO 8601, UTC); for a triggered one, the instant of the trigger.',
    ),
    status: StringEnum(EXECUTION_STATUSES, EXECUTION_STATUS_DESCRIPTION),
    triggered: Type.Boolean({ description: 'True when made by `POST …/trigger` rather than by the job\'s time.' }),
    backfill: Type.Boolean({
      description: 'True when made by `POST /cron/{id}/backfill` for a past occurrence that had no execution; false for every other execution.',
    }),
    createdAt: Timestamp('When the execution was made (ISO 8601, UTC).'),
    startedAt: Nullable(Timestamp('When its first attempt started (ISO 8601, UTC); null before.')),
    finishedAt: Nullable(Timestamp('When it became Succeeded, Failed or Skipped (ISO 8601, UTC); null before.')),
    lateMs: Nullable(
      Type.Integer({
        description:
          'Start of the first attempt minus the instant it was due (`scheduledFor`, plus `jitterMs` for a cron occurrence; for a backfilled one, the instant of the backfill), in ms; null before it.',
      }),
    ),
    jitterMs: Type.Integer({
      minimum: 0,
      description:
        'The jitter of a cron occurrence: it was due at `scheduledFor` plus this many ms, a delay fixed per occurrence in ' +
        '[0, the job\'s `jitterMs`). 0 for an occurrence of a job without jitter, a triggered run and a schedule\'s execution.',
    }),
    nextAttemptAt: Nullable(
      Timestamp(
        'When the next attempt is due (ISO 8601, UTC) while the execution is Retrying (its delay and jitter, or the ' +
          'receiver\'s `Retry-After`, as the retry policy says); null in every other status.',
      ),
    ),
    missedOccurrences: Nullable(MissedOccurrencesSchema),
    flowControlKey: Nullable(Type.String({ description: 'The flow-control key its calls count against (its job\'s when it was made); null: none.' })),
    waitingFor: Nullable(
      StringEnum(
        ['flowControl'] as const,
        '`flowControl` while a keyed execution is Pending or Retrying: when due, its call waits for its key\'s limits (docs/flow-control.md); null otherwise.',
      ),
    ),
    attempts: Type.Array(AttemptSchema, { description: 'Its attempts, oldest first.' }),
  },
  {
    additionalProperties: false,
    title: 'Execution',
    description: 'One firing of a schedule, or one occurrence of a cron job, with its attempts. Its id is the `webhook-id` of its calls.',
  },
);
export type ExecutionWire = Static<typeof ExecutionSchema>;

/** GET /schedules/{id}/executions and /cron/{id}/executions. */
export const ExecutionPageSchema = CursorPageSchema(
  'executions',
  ExecutionSchema,
  'The executions of this page, newest first.',
  { title: 'ExecutionPage', description: "A page of a job's executions." },
);

/** Query of the execution lists. Numbers are digit strings: query strings are not coerced. */
export const ExecutionPageQuery = Type.Object(
  {
    limit: Type.Optional(RuleString('page-limit', 'Executions per page, 1 to 100 (default 20).')),
    cursor: Type.Optional(
      Type.String({ minLength: 1, description: 'The `nextCursor` of the previous page; absent for the first page.' }),
    ),
  },
  { additionalProperties: false },
);
export type ExecutionPageQuery = Static<typeof ExecutionPageQuery>;

/** The wire form of an attempt. */
export function attemptToWire(a: Attempt): AttemptWire {
  return {
    number: a.number,
    startedAt: toIso(a.startedAt),
    durationMs: a.durationMs,
    statusCode: a.statusCode,
    error: a.error,
    responseBody: a.responseBody,
    method: a.method,
    url: a.url,
    traceId: a.traceId,
    spanId: a.spanId,
    waitedMs: a.waitedMs,
  };
}

/** The wire form of an execution. */
export function executionToWire(e: Execution): ExecutionWire {
  return {
    id: e.id,
    jobType: e.jobType,
    jobId: e.jobId,
    scheduledFor: toIso(e.scheduledFor),
    status: e.status,
    triggered: e.triggered,
    backfill: e.backfill,
    createdAt: toIso(e.createdAt),
    startedAt: toIsoOrNull(e.startedAt),
    finishedAt: toIsoOrNull(e.finishedAt),
    lateMs: e.lateMs,
    jitterMs: e.jitterMs,
    nextAttemptAt: e.status === 'Retrying' ? toIsoOrNull(e.nextAttemptAt) : null,
    missedOccurrences: e.missedOccurrences && {
      count: e.missedOccurrences.count,
      first: toIso(e.missedOccurrences.first),
      last: toIso(e.missedOccurrences.last),
      capped: e.missedOccurrences.capped,
    },
    flowControlKey: e.flowControlKey,
    waitingFor: e.waitingFor,
    attempts: e.attempts.map(attemptToWire),
  };
}
