/**
 * Execution use cases (docs/calls.md, "Executions"): a job's execution history, one execution, and
 * running a job now (trigger).
 */
import { auditRecord, type AuditContext } from '../domain/audit.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { isUuid, newId } from '../domain/ids.js';
import type { Execution, JobType } from '../domain/types.js';
import type { JobServiceContext } from './context.js';
import { Checks, PAGE_LIMIT_MAX, PAGE_LIMIT_MIN, wholeNumberMessage } from './rules.js';

/** Executions in a page when the request does not say. */
export const PAGE_LIMIT_DEFAULT = 20;

/** Input of {@link listExecutions}. */
export interface ExecutionPageInput {
  /** 1–100; default 20. */
  limit?: number;
  /** The `nextCursor` of the previous page; absent or null: the first page. */
  cursor?: string | null;
}

/** A page of a job's executions, newest first; `nextCursor` is null on the last page. */
export interface ExecutionPage {
  executions: Execution[];
  nextCursor: string | null;
}

const NOUN: Record<JobType, string> = { schedule: 'schedule', cron: 'cron job' };

/**
 * A job's executions, newest first (by `scheduledFor`, then id), `limit` at a time. A job that has
 * none, an unknown job and an id that is not a UUID all give an empty page (as a GET of such an id
 * gives null rather than a 404); the cursor is then not examined.
 * @param pathPrefix prefixed to the field paths of errors (`/query` for a query string)
 * @throws InvalidInputError for a `limit` out of range, or a cursor the store did not make
 *   (path `/query/cursor`, from the store)
 */
export async function listExecutions(
  ctx: JobServiceContext,
  jobType: JobType,
  jobId: string,
  input: ExecutionPageInput = {},
  pathPrefix = '',
): Promise<ExecutionPage> {
  const limit = input.limit ?? PAGE_LIMIT_DEFAULT;
  const checks = new Checks();
  if (!Number.isInteger(limit) || limit < PAGE_LIMIT_MIN || limit > PAGE_LIMIT_MAX) {
    checks.add(`${pathPrefix}/limit`, wholeNumberMessage(PAGE_LIMIT_MIN, PAGE_LIMIT_MAX));
  }
  checks.throwIfAny();
  if (!isUuid(jobId)) return { executions: [], nextCursor: null };
  return ctx.store.executionList({ jobType, jobId, limit, cursor: input.cursor ?? null });
}

/** The execution with this id, with its attempts, or null (also for ids that are not UUIDs). */
export async function getExecution(ctx: JobServiceContext, id: string): Promise<Execution | null> {
  return isUuid(id) ? ctx.store.executionGet({ id }) : null;
}

/**
 * Runs a job now, outside its schedule (trigger): stores a `Pending` execution with
 * `triggered: true` and `scheduledFor` = now, and wakes the dispatcher for now. A schedule must be
 * `Pending` and becomes `Running` (it does not run again at its `scheduledAt`); a cron job runs
 * whatever its status (a `Paused` one included) and keeps its `nextInvocation`.
 * @returns the new execution
 * @throws NotFoundError for an unknown id (or one that is not a UUID); ConflictError for a
 *   schedule that is not `Pending`
 */
export async function triggerJob(ctx: JobServiceContext, jobType: JobType, jobId: string, audit?: AuditContext): Promise<Execution> {
  const notFound = `No ${NOUN[jobType]} has this id.`;
  if (!isUuid(jobId)) throw new NotFoundError(notFound);
  const now = ctx.clock.now();
  const action = jobType === 'cron' ? 'cron.trigger' : 'schedule.trigger';
  const result = await ctx.store.jobTrigger({ jobType, jobId, id: newId(), now, audit: auditRecord(audit, action, now) });
  if (result === 'not_found') throw new NotFoundError(notFound);
  if (result === 'not_pending') {
    throw new ConflictError('The schedule is no longer Pending (it ran, is running or was triggered) and cannot be triggered.');
  }
  ctx.wake(result.scheduledFor);
  return result;
}
