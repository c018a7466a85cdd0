/**
 * Bulk actions on jobs chosen by a filter (docs/interface.md, "Bulk actions"), for both stores:
 * which jobs a filter matches (the WHERE condition, valid in both dialects), which of them an
 * action changes, and what a resume writes. Each store runs the statements in one transaction.
 *
 * Rules:
 * - A filter combines its keys with AND: `tags` (every one carried), `statuses` (any of them),
 *   `ids` (any of them). A filter without any key matches nothing here: the store refuses it
 *   ({@link bulkWhere} throws), so that no caller can act on every job by mistake.
 * - The count of a bulk action is the jobs it changes: `delete` every matching job; `pause` the
 *   matching `Active` jobs (a `Paused` one is left and not counted); `resume` the matching
 *   `Paused` jobs. A dry run counts the same jobs and writes nothing.
 * - `resume` is the single resume (`PATCH … {"status": "Active"}`, cron-patch.ts) of each job:
 *   `nextInvocation` becomes its next occurrence strictly after now (the occurrences missed while
 *   paused are not run), `pausedReason` null, `consecutiveFailures` 0. A job with no occurrence
 *   after now stays `Paused` and is not counted.
 * - `delete` removes what a single DELETE removes: the job (its tag entries go with it, by
 *   trigger); its executions stay in the history until pruned, as after a single DELETE. A
 *   `Running` schedule may be deleted, as by a single DELETE: a call already under way still ends.
 */
import type { AuditRecord } from '../../domain/audit.js';
import type { CronJob, CronJobStatus, ScheduleStatus } from '../../domain/types.js';
import { patchCronJob, patchedLife } from './cron-patch.js';
import type { BoundSql, Placeholder } from '../sql/execution-search.js';
import type { JobTable } from './paging.js';

/** Which jobs a bulk action acts on; the keys combine with AND. */
export interface JobBulkFilter<S extends string> {
  /** Jobs carrying every one of these tags (exact, case-sensitive); empty: not filtered. */
  tags: string[];
  /** Jobs with any of these statuses; null: not filtered. */
  statuses: S[] | null;
  /** Jobs with any of these ids; null: not filtered. */
  ids: string[] | null;
}

/** What a bulk action on cron jobs does. */
export type CronBulkAction = 'pause' | 'resume' | 'delete';

/** Params of `Store.scheduleBulk`: delete the matching schedules (or count them, `dryRun`). */
export interface ScheduleBulkParams {
  filter: JobBulkFilter<ScheduleStatus>;
  action: 'delete';
  dryRun: boolean;
  /** When given (and something changes), the event `schedule.bulk` in the same transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
}

/** Params of `Store.cronBulk`; `now` (epoch ms, UTC) is the instant a resume recomputes from. */
export interface CronBulkParams {
  filter: JobBulkFilter<CronJobStatus>;
  action: CronBulkAction;
  dryRun: boolean;
  now: number;
  /** When given (and something changes), the event `cron.bulk` in the same transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
}

/**
 * The answer of a bulk action: `count`, the jobs it changed (or, dry, would change); `wakeAt`,
 * the earliest `nextInvocation` of the jobs a resume made `Active` (epoch ms), else null.
 */
export interface BulkResult {
  count: number;
  wakeAt: number | null;
}

/** The status a cron job must have for an action to change it; null: any. */
export const CRON_ACTION_FROM: Readonly<Record<CronBulkAction, CronJobStatus | null>> = Object.freeze({
  pause: 'Active',
  resume: 'Paused',
  delete: null,
});

/** Whether a filter has no key (such a filter is refused). */
export function filterIsEmpty(f: JobBulkFilter<string>): boolean {
  return f.tags.length === 0 && f.statuses === null && f.ids === null;
}

/**
 * The condition on the job row `alias` that a filter and an action's status give, valid in both
 * dialects, with its parameters (placeholders by `ph`, numbered from 1). Each tag is a search of
 * the tag table's primary key; a list of statuses or ids is an `IN` list (an empty list matches
 * nothing).
 * @param from the status the action needs ({@link CRON_ACTION_FROM}), or null
 * @throws Error for a filter without any key ({@link filterIsEmpty}): a bulk action never acts
 *   on every job
 */
export function bulkWhere<S extends string>(
  t: JobTable,
  alias: string,
  f: JobBulkFilter<S>,
  from: S | null,
  ph: Placeholder,
): BoundSql {
  if (filterIsEmpty(f)) throw new Error('A bulk action needs a filter');
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return ph(params.length, 'text');
  };
  const list = (values: readonly unknown[]) => (values.length === 0 ? 'NULL' : values.map(param).join(', '));
  const conditions: string[] = [];
  if (from !== null) conditions.push(`${alias}.status = ${param(from)}`);
  if (f.statuses !== null) conditions.push(`${alias}.status IN (${list(f.statuses)})`);
  if (f.ids !== null) conditions.push(`${alias}.id IN (${list(f.ids)})`);
  for (const tag of new Set(f.tags)) {
    conditions.push(`${alias}.id IN (SELECT x.${t.tagJob} FROM ${t.tagTable} x WHERE x.tag = ${param(tag)})`);
  }
  return { sql: conditions.join(' AND '), params };
}

/**
 * The jobs a bulk resume writes, from the `Paused` jobs it matched: each as the single resume
 * leaves it (cron-patch.ts, recomputed after `now`); a job without an occurrence after `now` is
 * left out (it stays `Paused`), as is one whose window or limit (`startAt`, `endAt`,
 * `maxInvocations`) leaves none.
 */
export function resumedJobs(paused: readonly CronJob[], now: number): CronJob[] {
  const out: CronJob[] = [];
  for (const job of paused) {
    const p = { id: job.id, status: 'Active' as const, recomputeAfter: now };
    const patched = patchCronJob(job, p);
    try {
      out.push({ ...patched, ...patchedLife(patched, p) });
    } catch {
      // No occurrence after now: stays Paused.
    }
  }
  return out;
}

/** The earliest `nextInvocation` of `jobs`, or null for none (epoch ms). */
export function earliestNext(jobs: readonly CronJob[]): number | null {
  return jobs.length === 0 ? null : Math.min(...jobs.map((j) => j.nextInvocation));
}
