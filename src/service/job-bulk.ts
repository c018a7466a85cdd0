/**
 * Bulk actions on jobs chosen by a filter (docs/interface.md, "Bulk actions"): `POST
 * /schedules/bulk` (`delete`) and `POST /cron/bulk` (`pause`, `resume`, `delete`). This module
 * checks the input (the HTTP layer checks its shape in its schemas; this holds for any caller)
 * and hands the store one operation per kind; what an action changes and counts is the store's
 * rule (`store/rules/bulk.ts`), the same for both stores.
 */
import { CRON_JOB_STATUSES, SCHEDULE_STATUSES } from '../domain/enums.js';
import { isUuid } from '../domain/ids.js';
import type { CronJobStatus, ScheduleStatus } from '../domain/types.js';
import type { CronBulkAction, JobBulkFilter } from '../store/store.js';
import type { JobServiceContext } from './context.js';
import { Checks, ruleContext } from './rules.js';
import { auditRecord, type AuditContext } from '../domain/audit.js';

/** Most ids a bulk filter may list. */
export const BULK_IDS_MAX = 1_000;

/** The actions of `POST /cron/bulk`. */
export const CRON_BULK_ACTIONS: readonly CronBulkAction[] = ['pause', 'resume', 'delete'];

/** The actions of `POST /schedules/bulk`. */
export const SCHEDULE_BULK_ACTIONS: readonly 'delete'[] = ['delete'];

/**
 * The filter of a bulk action; its keys combine with AND, and at least one is required.
 * `status` is one status or a list of them (any of them matches).
 */
export interface BulkFilterInput<S extends string> {
  /** 1 to `PUNCTUAL_MAX_TAGS` tags; every one must be carried. */
  tag?: string[];
  /** One status, or a non-empty list of statuses. */
  status?: S | S[];
  /** 1 to {@link BULK_IDS_MAX} job ids (UUIDs). */
  ids?: string[];
}

/** Body of a bulk action. */
export interface BulkInput<S extends string, A extends string> {
  action: A;
  filter?: BulkFilterInput<S>;
  /** True: count the jobs the action would change, change nothing. Default false. */
  dryRun?: boolean;
}

/** The answer of a bulk action: the jobs changed (or, on a dry run, that would be). */
export interface BulkAnswer {
  count: number;
}

/**
 * Deletes the schedules a filter matches, whatever their status (as a single DELETE does: a
 * Running schedule's call under way still ends; executions stay), in one transaction.
 * @throws InvalidInputError naming every faulty field (`/action`, `/filter`, `/filter/tag`,
 *   `/filter/status`, `/filter/ids`, …); nothing changes then
 */
export async function bulkSchedules(ctx: JobServiceContext, input: BulkInput<ScheduleStatus, 'delete'>, audit?: AuditContext): Promise<BulkAnswer> {
  const { filter, action, dryRun } = checkBulk(ctx, input, SCHEDULE_STATUSES, SCHEDULE_BULK_ACTIONS);
  const r = await ctx.store.scheduleBulk({ filter, action, dryRun, audit: auditRecord(audit, 'schedule.bulk', ctx.clock.now()) });
  return { count: r.count };
}

/**
 * Pauses the matching Active cron jobs, resumes the matching Paused ones (each from its next
 * occurrence after now, as a single resume), or deletes every matching job, in one transaction;
 * wakes the dispatcher for the earliest occurrence a resume gave.
 * @throws InvalidInputError naming every faulty field; nothing changes then
 */
export async function bulkCronJobs(
  ctx: JobServiceContext,
  input: BulkInput<CronJobStatus, CronBulkAction>,
  audit?: AuditContext,
): Promise<BulkAnswer> {
  const { filter, action, dryRun } = checkBulk(ctx, input, CRON_JOB_STATUSES, CRON_BULK_ACTIONS);
  const now = ctx.clock.now();
  const r = await ctx.store.cronBulk({ filter, action, dryRun, now, audit: auditRecord(audit, 'cron.bulk', now) });
  if (r.wakeAt !== null) ctx.wake(r.wakeAt);
  return { count: r.count };
}

/** Checks a bulk input and returns the store's filter. */
function checkBulk<S extends string, A extends string>(
  ctx: JobServiceContext,
  input: BulkInput<S, A>,
  statuses: readonly S[],
  actions: readonly A[],
): { filter: JobBulkFilter<S>; action: A; dryRun: boolean } {
  const checks = new Checks(ruleContext(ctx)).required('/action', input.action).oneOf('/action', input.action, actions);
  if (input.dryRun !== undefined && typeof input.dryRun !== 'boolean') checks.add('/dryRun', 'must be a boolean');
  const f = input.filter;
  const filter: JobBulkFilter<S> = { tags: [], statuses: null, ids: null };
  if (f === undefined || f === null || typeof f !== 'object' || Array.isArray(f)) {
    checks.add('/filter', 'is required: an object with at least one of tag, status, ids');
  } else {
    if (f.tag === undefined && f.status === undefined && f.ids === undefined) {
      checks.add('/filter', 'must have at least one of tag, status, ids (an empty filter would act on every job)');
    }
    if (f.tag !== undefined) {
      if (Array.isArray(f.tag) && f.tag.length === 0) checks.add('/filter/tag', 'must not be empty');
      checks.tags('/filter/tag', f.tag);
      if (Array.isArray(f.tag)) filter.tags = f.tag;
    }
    if (f.status !== undefined) {
      const list: unknown[] = Array.isArray(f.status) ? f.status : [f.status];
      if (list.length === 0) checks.add('/filter/status', 'must not be empty');
      list.forEach((st, i) => checks.oneOf(Array.isArray(f.status) ? `/filter/status/${i}` : '/filter/status', st, statuses));
      filter.statuses = list as S[];
    }
    if (f.ids !== undefined) {
      if (!Array.isArray(f.ids)) checks.add('/filter/ids', 'must be an array of ids');
      else if (f.ids.length === 0) checks.add('/filter/ids', 'must not be empty');
      else if (f.ids.length > BULK_IDS_MAX) checks.add('/filter/ids', `must have at most ${BULK_IDS_MAX} ids`);
      else {
        const bad = f.ids.findIndex((id) => typeof id !== 'string' || !isUuid(id));
        if (bad >= 0) checks.add(`/filter/ids/${bad}`, 'must be a job id (a UUID)');
        filter.ids = f.ids;
      }
    }
  }
  checks.throwIfAny();
  return { filter, action: input.action, dryRun: input.dryRun === true };
}
