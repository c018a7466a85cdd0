/*
 * What the SQLite and PostgreSQL claims share beyond the rules (store/rules/claim.ts): the SQL that reads
 * an existing execution with its job's current delivery settings (valid in both dialects), and the
 * retry policy of such a row.
 */
import type { ClaimedExecution, CronJob, JobRequest, JobType, JsonObject, MissedOccurrences } from '../../domain/types.js';
import { aheadOf, leaseExpiry, type ClaimClock } from '../rules/claim.js';
import {
  columnList,
  REQUEST_COLUMNS,
  requestFromRow,
  RETRY_COLUMNS,
  retryFromRow,
  successStatusesFromRow,
  type RequestRow,
  type RetryRow,
  type RowCodec,
} from '../rows/jobs.js';
import { BACKFILL_BLOCKED_SQL } from '../rules/backfill.js';
import { MISSED_COLUMN_NAMES, missedFromRow, type MissedRow } from '../rows/executions.js';

/** Delivery columns of a job row (or of {@link executionWithJobSql}'s row): `RETRY_COLUMNS` and the timeout. */
export interface DeliveryRow extends RetryRow {
  timeout_ms: number;
  /** JSON as the driver gives it (`successStatuses`). */
  success_statuses: unknown;
}

/**
 * Executions of `from` (a table or CTE aliased `e`, with the columns of `executions`) with what is
 * needed to call their job *now*: the job's current endpoint, data, request and delivery settings (a
 * re-leased or retried execution is sent with them; a cron job's fix of its URL applies to its
 * retries), NULL columns and `job_exists` false when the job was deleted; and the occurrences the
 * execution stands for (the `missed_*` columns, see {@link missedOf}); `backfill_blocked` 1 when it is
 * a backfilled execution that must wait its turn (store/rules/backfill.ts); and its flow-control key. Add a WHERE clause.
 */
export function executionWithJobSql(from: string): string {
  return `SELECT e.id, e.job_type, e.job_id, e.scheduled_for, coalesce(e.due_at, e.scheduled_for) AS due_at, e.retry_base, e.flow_control_key,
       ${columnList(MISSED_COLUMN_NAMES, 'e')},
       coalesce(s.endpoint, c.endpoint) AS endpoint,
       coalesce(s.data, c.data) AS data,
       ${RETRY_COLUMNS.map((col) => `coalesce(s.${col}, c.${col}) AS ${col}`).join(',\n       ')},
       coalesce(s.timeout_ms, c.timeout_ms) AS timeout_ms,
       coalesce(s.success_statuses, c.success_statuses) AS success_statuses,
       ${REQUEST_COLUMNS.map((col) => `coalesce(s.${col}, c.${col}) AS ${col}`).join(', ')},
       (s.id IS NOT NULL OR c.id IS NOT NULL) AS job_exists,
       ${BACKFILL_BLOCKED_SQL} AS backfill_blocked
  FROM ${from}
  LEFT JOIN schedules s ON e.job_type = 'schedule' AND s.id = e.job_id
  LEFT JOIN cron_jobs c ON e.job_type = 'cron' AND c.id = e.job_id`;
}

/** What a claimed item takes from its job besides the endpoint: what to send and how. */
export type CallSettings = Pick<ClaimedExecution, 'data' | 'retry' | 'timeoutMs' | 'successStatuses' | keyof JobRequest>;

/** A job row's columns that {@link callOf} reads: `data` as the driver gives JSON. */
export interface CallRow extends DeliveryRow, RequestRow {
  data: unknown;
}

/** The call settings of a job row (or of {@link executionWithJobSql}'s row); NULL `data` reads `{}`. */
export function callOf(codec: RowCodec, r: CallRow): CallSettings {
  return {
    data: (codec.json(r.data) as JsonObject | null) ?? {},
    retry: retryFromRow(codec, r),
    timeoutMs: r.timeout_ms,
    successStatuses: successStatusesFromRow(codec, r.success_statuses),
    ...requestFromRow(codec, r),
  };
}

/**
 * The `retryBase` of a claimed item from its execution's `retry_base` (see
 * `ClaimedExecution.retryBase`): the property to spread, empty for 0 (a budget never replayed).
 */
export function retryBaseOf(r: { retry_base: number }): Pick<ClaimedExecution, 'retryBase'> {
  return r.retry_base > 0 ? { retryBase: r.retry_base } : {};
}

/** The call settings of a cron job read by a claim; null `data` is `{}`. */
export function callOfJob(job: CronJob): CallSettings {
  const { method, headers, body, auth, secrets } = job;
  const successStatuses = [...job.successStatuses];
  const retry = { ...job.retry, delaysMs: job.retry.delaysMs ?? null };
  return { data: job.data ?? {}, retry, timeoutMs: job.timeoutMs, successStatuses, method, headers, body, auth, secrets };
}

/**
 * The `missedOccurrences` of a claimed item from the `missed_*` columns of its execution (a
 * retry and a re-leased call carry them as the first attempt did): the property to spread into a
 * {@link ClaimedExecution}, empty when the execution stands only for itself.
 */
export function missedOf(codec: RowCodec, r: MissedRow): Pick<ClaimedExecution, 'missedOccurrences'> {
  const m = missedFromRow(codec, r);
  return m ? { missedOccurrences: m } : {};
}

/** A Pending schedule's row as a claim starts it (both stores' `RETURNING` lists). */
export interface StartedScheduleRow extends CallRow {
  endpoint: string;
  /** Epoch ms, UTC. */
  scheduled_at: number;
  /** Epoch ms, UTC: when it became due (its instant, or later when stored after it). */
  due_at: number;
}

/**
 * The claimed item of a schedule's first attempt: its execution `executionId`, the call settings of
 * its row, `notBefore` when claimed ahead of its instant and the lease of `clock` (store/rules/claim.ts).
 */
export function startedSchedule(codec: RowCodec, clock: ClaimClock, id: string, executionId: string, s: StartedScheduleRow): ClaimedExecution {
  return {
    executionId,
    jobType: 'schedule',
    jobId: id,
    scheduledFor: s.scheduled_at,
    dueAt: s.due_at,
    attempt: 1,
    ...aheadOf(clock, s.scheduled_at),
    endpoint: s.endpoint,
    ...callOf(codec, s),
    leaseExpiresAt: leaseExpiry(clock, s.timeout_ms),
  };
}

/** The columns of an execution leased again (a retry, a triggered run, an expired lease) that its claimed item takes. */
export interface ReletRow extends CallRow, MissedRow {
  id: string;
  job_type: JobType;
  job_id: string;
  scheduled_for: number;
  due_at: number;
  retry_base: number;
  /** The execution's flow-control key, NULL: none. */
  flow_control_key: string | null;
}

/**
 * The claimed item of an execution leased again: its attempt `attempt` (as the statement counted
 * it), leased until `leaseExpiresAt` (epoch ms, UTC), with `notBefore` when claimed ahead of
 * `due`, its instant (store/rules/claim.ts, "Claiming ahead").
 * @param endpoint the job's endpoint (the row's, once the claim has checked the job still exists)
 */
export function reletItem(codec: RowCodec, clock: ClaimClock, e: ReletRow, endpoint: string, due: number, attempt: number, leaseExpiresAt: number): ClaimedExecution {
  return {
    executionId: e.id,
    jobType: e.job_type,
    jobId: e.job_id,
    scheduledFor: e.scheduled_for,
    dueAt: e.due_at,
    attempt,
    ...retryBaseOf(e),
    ...aheadOf(clock, due),
    endpoint,
    ...callOf(codec, e),
    leaseExpiresAt,
    ...missedOf(codec, e),
    ...(e.flow_control_key !== null && { flowControlKey: e.flow_control_key }),
  };
}

/**
 * The claimed item of a cron occurrence's first attempt: execution `executionId` of `job` at
 * `scheduledFor` (epoch ms, UTC), leased until `leaseExpiresAt`, standing for the occurrences of
 * `missed` too when given (misfire `once`).
 */
export function occurrenceItem(
  clock: ClaimClock,
  job: CronJob,
  executionId: string,
  scheduledFor: number,
  leaseExpiresAt: number,
  missed: MissedOccurrences | null,
): ClaimedExecution {
  return {
    executionId,
    jobType: 'cron',
    jobId: job.id,
    scheduledFor,
    dueAt: scheduledFor,
    attempt: 1,
    ...aheadOf(clock, scheduledFor),
    endpoint: job.endpoint,
    ...callOfJob(job),
    leaseExpiresAt,
    ...(missed && { missedOccurrences: missed }),
  };
}

/** Adds `item` to a claim's result and takes one from its room (the items it may still claim). */
export function pushClaimed(c: { room: number; result: { claimed: ClaimedExecution[] } }, item: ClaimedExecution): void {
  c.result.claimed.push(item);
  c.room--;
}
