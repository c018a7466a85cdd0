/**
 * The row mapping of `executions` and `execution_attempts` for both stores (see store/rows/jobs.ts for the
 * mapping of the other tables and for {@link RowCodec}).
 */
import type { Attempt, AttemptOutcome, Execution, ExecutionStatus, HttpMethod, JobType, MissedOccurrences } from '../../domain/types.js';
import { encodeCursor } from '../rules/paging.js';
import { columnList, type RowCodec } from './jobs.js';
import type { ExecutionRecord } from '../transfer/records.js';

/** The columns of `executions` that hold {@link MissedOccurrences}, all NULL or all set. */
export const MISSED_COLUMN_NAMES = ['missed_count', 'missed_first', 'missed_last', 'missed_capped'] as const;
const MISSED_COLUMNS = columnList(MISSED_COLUMN_NAMES);

/** The columns of `executions` read as an {@link Execution}. */
export const EXECUTION_COLUMNS = `id, job_type, job_id, scheduled_for, status, triggered, backfill, created_at, started_at, finished_at, next_attempt_at, due_at, ${MISSED_COLUMNS}, flow_control_key`;

/** The {@link MISSED_COLUMNS} of a row; `missed_capped` as the driver gives booleans. */
export interface MissedRow {
  missed_count: number | null;
  missed_first: number | null;
  missed_last: number | null;
  missed_capped: unknown;
}

/** {@link MISSED_COLUMNS} → the occurrences an execution stands for, or null (all NULL: itself only). */
export function missedFromRow(codec: RowCodec, r: MissedRow): MissedOccurrences | null {
  if (r.missed_count === null || r.missed_first === null || r.missed_last === null) return null;
  return { count: r.missed_count, first: r.missed_first, last: r.missed_last, capped: codec.bool(r.missed_capped) };
}

/** Missed occurrences → the values of the {@link MISSED_COLUMNS} (NULL for null; `capped` as the codec binds booleans). */
export function missedToRow(
  codec: RowCodec,
  m: MissedOccurrences | null | undefined,
): { missed_count: number | null; missed_first: number | null; missed_last: number | null; missed_capped: unknown } {
  return m
    ? { missed_count: m.count, missed_first: m.first, missed_last: m.last, missed_capped: codec.boolValue(m.capped) }
    : { missed_count: null, missed_first: null, missed_last: null, missed_capped: null };
}

/** A row of `executions` as selected with {@link EXECUTION_COLUMNS}; `triggered` as the driver gives booleans. */
export interface ExecutionRow extends MissedRow {
  id: string;
  job_type: JobType;
  job_id: string;
  scheduled_for: number;
  status: ExecutionStatus;
  triggered: unknown;
  /** As the driver gives booleans. */
  backfill: unknown;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** When a Pending or Retrying execution is due, else NULL. */
  next_attempt_at: number | null;
  /** When a schedule's execution became due to the service (`Schedule.dueAt`), or a cron occurrence with its jitter; null: `scheduled_for`. */
  due_at: number | null;
  /** NULL: the execution names no flow-control key. */
  flow_control_key: string | null;
}

/** Every column of `executions` but none derived, in the order of the table (a copy writes these). */
export const EXECUTION_RECORD_COLUMNS = [
  'id',
  'job_type',
  'job_id',
  'scheduled_for',
  'triggered',
  'backfill',
  'status',
  'attempt',
  'created_at',
  'started_at',
  'finished_at',
  'next_attempt_at',
  'lease_owner',
  'lease_expires_at',
  'error',
  'due_at',
  'missed_count',
  'missed_first',
  'missed_last',
  'missed_capped',
  'retry_base',
  'flow_control_key',
] as const;

/** A whole row of `executions` ({@link EXECUTION_RECORD_COLUMNS}), internal columns included. */
export interface ExecutionRecordRow extends ExecutionRow {
  attempt: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  error: string | null;
  retry_base: number;
}

/** The columns of `execution_attempts`, in the order of the table. */
export const ATTEMPT_COLUMNS = [
  'execution_id',
  'number',
  'started_at',
  'duration_ms',
  'status_code',
  'error',
  'response_body',
  'method',
  'url',
  'trace_id',
  'span_id',
  'waited_ms',
] as const;

/** A row of `execution_attempts`. */
export interface AttemptRow {
  execution_id: string;
  number: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  method: HttpMethod;
  /** NULL for attempts recorded before URLs were kept. */
  url: string | null;
  /** NULL for attempts recorded before trace ids were kept. */
  trace_id: string | null;
  span_id: string | null;
  /** NULL: the attempt did not wait for a flow-control key. */
  waited_ms: number | null;
}

/**
 * Row → execution with its attempts; `lateMs` is the first attempt's start minus the moment the
 * execution became due to the service (`due_at`, else `scheduledFor`; docs/interface.md, "Past instants");
 * `nextAttemptAt` is `next_attempt_at` of a `Retrying` execution, null otherwise (a `Pending`
 * one's is its occurrence, an internal detail); `jitterMs` is a cron execution's `due_at` minus
 * its occurrence (the jitter its claim gave it, store/rules/claim-occurrences.ts), else 0.
 */
export function executionFromRow(codec: RowCodec, r: ExecutionRow, attempts: Attempt[]): Execution {
  return {
    id: r.id,
    jobType: r.job_type,
    jobId: r.job_id,
    scheduledFor: r.scheduled_for,
    status: r.status,
    triggered: codec.bool(r.triggered),
    backfill: codec.bool(r.backfill),
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    nextAttemptAt: r.status === 'Retrying' ? r.next_attempt_at : null,
    lateMs: r.started_at === null ? null : r.started_at - (r.due_at ?? r.scheduled_for),
    jitterMs: r.job_type === 'cron' && r.due_at !== null ? Math.max(0, r.due_at - r.scheduled_for) : 0,
    missedOccurrences: missedFromRow(codec, r),
    flowControlKey: r.flow_control_key ?? null,
    waitingFor: r.flow_control_key != null && (r.status === 'Pending' || r.status === 'Retrying') ? 'flowControl' : null,
    attempts,
  };
}

/** Whole row → execution as stored, without its attempts yet (`attempts: []`). */
export function executionRecordFromRow(codec: RowCodec, r: ExecutionRecordRow): ExecutionRecord {
  const { lateMs: _derived, jitterMs: _jitter, waitingFor: _waiting, ...e } = executionFromRow(codec, r, []);
  return {
    ...e,
    attempt: r.attempt,
    nextAttemptAt: r.next_attempt_at,
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    error: r.error,
    dueAt: r.due_at,
    retryBase: r.retry_base,
  };
}

/** Execution as stored → the values of its row (`triggered` as the codec binds booleans). */
export function executionToRow(
  codec: RowCodec,
  e: ExecutionRecord,
): Record<(typeof EXECUTION_RECORD_COLUMNS)[number], unknown> {
  return {
    id: e.id,
    job_type: e.jobType,
    job_id: e.jobId,
    scheduled_for: e.scheduledFor,
    triggered: codec.boolValue(e.triggered),
    backfill: codec.boolValue(e.backfill),
    status: e.status,
    attempt: e.attempt,
    created_at: e.createdAt,
    started_at: e.startedAt,
    finished_at: e.finishedAt,
    next_attempt_at: e.nextAttemptAt,
    lease_owner: e.leaseOwner,
    lease_expires_at: e.leaseExpiresAt,
    error: e.error,
    due_at: e.dueAt,
    ...missedToRow(codec, e.missedOccurrences),
    retry_base: e.retryBase,
    flow_control_key: e.flowControlKey,
  };
}

/** Row → attempt. */
export function attemptFromRow(r: AttemptRow): Attempt {
  return {
    number: r.number,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    statusCode: r.status_code,
    error: r.error,
    responseBody: r.response_body,
    method: r.method,
    url: r.url,
    traceId: r.trace_id,
    spanId: r.span_id,
    waitedMs: r.waited_ms ?? null,
  };
}

/** Attempt of execution `executionId` → the values of its row. */
export function attemptToRow(executionId: string, a: Attempt): AttemptRow {
  return {
    execution_id: executionId,
    number: a.number,
    started_at: a.startedAt,
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    error: a.error,
    response_body: a.responseBody,
    method: a.method,
    url: a.url,
    trace_id: a.traceId,
    span_id: a.spanId,
    waited_ms: a.waitedMs ?? null,
  };
}

/** The instants an attempt outcome writes, whole ms (see {@link outcomeTimes}). */
export interface OutcomeTimes {
  startedAt: number;
  durationMs: number;
  retrying: boolean;
  /** The end of the attempt (start + duration), or null for a retry. */
  finishedAt: number | null;
  /** When a retry is due, or null when the outcome finishes the execution. */
  nextAttemptAt: number | null;
}

/**
 * The instants an outcome writes, in whole ms (the columns hold integer epoch ms, and the store
 * reads no clock): the start floored, the duration rounded, the end = start + duration; a retry's
 * instant rounded up, never early (the end of the attempt when it is not a finite number).
 */
export function outcomeTimes(o: AttemptOutcome): OutcomeTimes {
  const startedAt = Math.floor(o.startedAt);
  const durationMs = Math.round(o.durationMs);
  const retrying = o.status === 'Retrying';
  const nextAttemptAt = retrying
    ? Math.ceil(typeof o.nextAttemptAt === 'number' && Number.isFinite(o.nextAttemptAt) ? o.nextAttemptAt : startedAt + durationMs)
    : null;
  return { startedAt, durationMs, retrying, finishedAt: retrying ? null : startedAt + durationMs, nextAttemptAt };
}

/** A cron job's pointer to its newest execution, with that execution's `scheduled_for` (LEFT JOIN). */
export interface LastExecutionRow {
  last_execution_id: string | null;
  last_invocation: number | null;
}

/**
 * The `last_execution_id` of a cron job once execution `id`, scheduled for `scheduledFor` (epoch
 * ms), is added: the pointer follows the newest execution by (`scheduled_for`, id), the order of
 * the execution lists, so it stays where it is when it points at a newer one.
 */
export function newestExecutionId(job: LastExecutionRow, scheduledFor: number, id: string): string {
  const keep =
    job.last_execution_id !== null &&
    job.last_invocation !== null &&
    (job.last_invocation > scheduledFor || (job.last_invocation === scheduledFor && job.last_execution_id > id));
  return keep ? job.last_execution_id! : id;
}

/** Attempt rows (ordered by execution, then number) → each execution's attempts, oldest first. */
export function attemptsByExecution(rows: Iterable<AttemptRow>): Map<string, Attempt[]> {
  const byExecution = new Map<string, Attempt[]>();
  for (const a of rows) {
    let list = byExecution.get(a.execution_id);
    if (!list) byExecution.set(a.execution_id, (list = []));
    list.push(attemptFromRow(a));
  }
  return byExecution;
}

/**
 * A page of a job's executions (`Store.executionList`), newest first, from the rows of one query
 * that asked for `limit + 1` (one row more than the page tells whether another page follows).
 * @param attemptsOf the attempt rows of the page's executions (their ids given; not called for an
 *   empty page), ordered by execution, then number
 * @returns the executions and the cursor after the last one (the shared form of paging.ts,
 *   `[scheduledFor, id]`), or null on the last page
 */
export function executionPage(
  codec: RowCodec,
  rows: ExecutionRow[],
  limit: number,
  attemptsOf: (ids: string[]) => AttemptRow[],
): { executions: Execution[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const attempts = page.length > 0 ? attemptsByExecution(attemptsOf(page.map((r) => r.id))) : new Map<string, Attempt[]>();
  const last = page[page.length - 1];
  return {
    executions: page.map((r) => executionFromRow(codec, r, attempts.get(r.id) ?? [])),
    nextCursor: rows.length > limit && last ? encodeCursor({ at: last.scheduled_for, id: last.id }) : null,
  };
}
