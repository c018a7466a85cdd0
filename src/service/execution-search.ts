/**
 * Executions across jobs and replay (docs/interface.md, "Executions across jobs" and "Replay"):
 * `GET /executions` with its filters, the replay of one `Failed` execution and the bulk replay.
 * This module checks the input (the HTTP layer checks the same in its schemas; this holds for any
 * other caller) and turns it into the store's params; which index answers a filter is the
 * store's (`store/sql/execution-search.ts`).
 */
import { auditRecord, type AuditContext } from '../domain/audit.js';
import { EXECUTION_STATUSES, JOB_TYPES } from '../domain/enums.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { parseIsoInstant } from '../domain/time.js';
import type { Execution, ExecutionStatus, JobType } from '../domain/types.js';
import { REPLAY_MAX } from '../store/sql/execution-search.js';
import type { ExecutionPage } from '../store/store.js';
import type { JobServiceContext } from './context.js';
import { LIST_LIMIT_DEFAULT } from './job-lists.js';
import { Checks, LIST_LIMIT_MAX, LIST_LIMIT_MIN, wholeNumberMessage } from './rules.js';

export { REPLAY_MAX };

/** Filters shared by the list and the bulk replay, as given (ISO 8601 instants, unchecked strings). */
export interface ExecutionFilterInput {
  /** `schedule` or `cron`. */
  jobType?: string;
  /** A job's id; one that is not a UUID matches nothing. */
  jobId?: string;
  /** ISO 8601 with Z or an offset: `scheduledFor >= from`. */
  from?: string;
  /** ISO 8601 with Z or an offset: `scheduledFor < to`. */
  to?: string;
}

/** Input of {@link searchExecutions}. */
export interface ExecutionSearchInput extends ExecutionFilterInput {
  /** Any of these statuses (of EXECUTION_STATUSES); absent or empty: every status. */
  status?: string[];
  /** 1–1,000; default 100. */
  limit?: number;
  /** The `nextCursor` of the previous page; absent or null: the first page. */
  cursor?: string | null;
}

interface CheckedFilter {
  jobType: JobType | null;
  jobId: string | null;
  from: number | null;
  to: number | null;
  /** False when `jobId` is not a UUID: nothing can match. */
  possible: boolean;
}

function checkFilter(checks: Checks, input: ExecutionFilterInput, prefix: string): CheckedFilter {
  checks.oneOf(`${prefix}/jobType`, input.jobType, JOB_TYPES);
  checks.rule(`${prefix}/from`, 'instant', input.from);
  checks.rule(`${prefix}/to`, 'instant', input.to);
  if (input.jobId !== undefined && typeof input.jobId !== 'string') checks.add(`${prefix}/jobId`, 'must be a string');
  const from = typeof input.from === 'string' ? parseIsoInstant(input.from) : null;
  const to = typeof input.to === 'string' ? parseIsoInstant(input.to) : null;
  return {
    jobType: (input.jobType as JobType | undefined) ?? null,
    jobId: input.jobId ?? null,
    from,
    to,
    possible: (input.jobId === undefined || isUuid(input.jobId)) && (from === null || to === null || from < to),
  };
}

/**
 * Executions across jobs, newest first (by `scheduledFor`, then id), `limit` at a time, filtered
 * by any of `status`, `jobType`, `jobId`, `from` (inclusive) and `to` (exclusive). A `jobId`
 * that is not a UUID, or `from` at or after `to`, gives an empty page.
 * @param pathPrefix prefixed to the field paths of errors (`/query` for a query string)
 * @throws InvalidInputError naming every faulty parameter: `limit` out of 1–1,000 or not whole,
 *   a `status` not of EXECUTION_STATUSES, a `jobType` other than `schedule` or `cron`, a `from` or
 *   `to` that is not an ISO 8601 instant; a cursor the store did not make (`/query/cursor`)
 */
export async function searchExecutions(ctx: JobServiceContext, input: ExecutionSearchInput, pathPrefix = ''): Promise<ExecutionPage> {
  const limit = input.limit ?? LIST_LIMIT_DEFAULT;
  const checks = new Checks();
  if (!Number.isInteger(limit) || limit < LIST_LIMIT_MIN || limit > LIST_LIMIT_MAX) {
    checks.add(`${pathPrefix}/limit`, wholeNumberMessage(LIST_LIMIT_MIN, LIST_LIMIT_MAX));
  }
  for (const s of input.status ?? []) checks.oneOf(`${pathPrefix}/status`, s, EXECUTION_STATUSES);
  const f = checkFilter(checks, input, pathPrefix);
  checks.throwIfAny();
  if (!f.possible) return { executions: [], nextCursor: null };
  const statuses = (input.status ?? []) as ExecutionStatus[];
  return ctx.store.executionSearch({ ...f, statuses, limit, cursor: input.cursor ?? null });
}

/**
 * Replays a `Failed` execution (docs/interface.md, "Replay"): `Retrying`, due now, with a fresh
 * attempt budget from its job's current retry policy; its attempt numbers continue and its calls
 * keep their `webhook-id` (the execution's id). A schedule's execution puts the schedule back to
 * `Running`. Wakes the dispatcher.
 * @returns the execution as replayed
 * @throws NotFoundError for an unknown id (or one that is not a UUID); ConflictError when it is not
 *   `Failed`, or its job was deleted
 */
export async function replayExecution(ctx: JobServiceContext, id: string, audit?: AuditContext): Promise<Execution> {
  const notFound = 'No execution has this id.';
  if (!isUuid(id)) throw new NotFoundError(notFound);
  const now = ctx.clock.now();
  const result = await ctx.store.executionReplay({ id, now, audit: auditRecord(audit, 'execution.replay', now) });
  if (result === 'not_found') throw new NotFoundError(notFound);
  if (result === 'not_failed') throw new ConflictError('Only a Failed execution can be replayed; this one is not Failed.');
  if (result === 'job_deleted') throw new ConflictError('The job of this execution was deleted: there is nothing to call.');
  ctx.wake(now);
  return result;
}

/**
 * Replays, as {@link replayExecution} does, the `Failed` executions within the filter whose job
 * still exists, newest first, at most {@link REPLAY_MAX} at once, in one transaction. The filter
 * must have at least one field: an empty one (every failure of the service) is refused, so that a
 * replay of everything is asked for explicitly (e.g. `from` an old instant). Wakes the dispatcher
 * when something was replayed.
 * @param pathPrefix prefixed to the field paths of errors (none for a JSON body, whose fields are `/jobId`, …)
 * @returns how many were replayed; {@link REPLAY_MAX} means more may remain (call again)
 * @throws InvalidInputError for a faulty field, or an empty filter (path `pathPrefix`: the empty pointer, the whole body)
 */
export async function replayExecutions(ctx: JobServiceContext, input: ExecutionFilterInput, pathPrefix = '', audit?: AuditContext): Promise<number> {
  const checks = new Checks();
  const f = checkFilter(checks, input, pathPrefix);
  if (input.jobType === undefined && input.jobId === undefined && input.from === undefined && input.to === undefined) {
    checks.add(pathPrefix, 'must give at least one of jobId, jobType, from, to (a replay of every failure is asked for with from)');
  }
  checks.throwIfAny();
  if (!f.possible) return 0;
  const now = ctx.clock.now();
  const count = await ctx.store.executionsReplay({
    jobType: f.jobType,
    jobId: f.jobId,
    from: f.from,
    to: f.to,
    now,
    limit: REPLAY_MAX,
    audit: auditRecord(audit, 'execution.bulkReplay', now),
  });
  if (count > 0) ctx.wake(now);
  return count;
}
