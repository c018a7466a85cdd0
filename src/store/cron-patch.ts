/**
 * How `Store.cronUpdate` applies a patch to a stored cron job, for both stores: the merge of the
 * fields, and the new `nextInvocation`. Each store reads the job and writes the result inside one
 * transaction that holds the job's row (SQLite: IMMEDIATE; PostgreSQL: FOR UPDATE), so no claim
 * advances the job between the read and the write and the recomputed occurrence is never stale.
 * The occurrence rules are those of the cron engine (docs/cron.md).
 */
import { nextOccurrence, parseCronExpression } from '../cron/index.js';
import { InvalidInputError } from '../domain/errors.js';
import type { CronJob } from '../domain/types.js';
import type { CronUpdateParams } from './store.js';

/**
 * The job with the fields `p` gives: every field of a cron job but its id, each present one
 * replacing the stored value (null sets null), absent ones keeping theirs. A job `Active` after
 * the patch has no `pausedReason`; a job the patch resumes (`Paused` → `Active`) starts its
 * `consecutiveFailures` at 0, so `pauseAfterFailures` counts afresh (docs/cron.md, "Auto-pause").
 */
export function patchCronJob(current: CronJob, p: CronUpdateParams): CronJob {
  const { id: _id, recomputeAfter: _recomputeAfter, ...fields } = p;
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<CronJob>;
  const patched: CronJob = { ...current, ...given, ...(p.retry !== undefined && { retry: { ...p.retry } }) };
  if (patched.status === 'Active') patched.pausedReason = null;
  if (patched.status === 'Active' && current.status === 'Paused') patched.consecutiveFailures = 0;
  return patched;
}

/**
 * The `nextInvocation` of a patched job: kept as it is unless `p.recomputeAfter` is given; then
 * the first occurrence of the patched `expression` in the patched `timezone` (UTC when null)
 * strictly after `p.recomputeAfter` (epoch ms, UTC), in whole ms rounded up (never early).
 * @throws InvalidInputError (path `/expression`) when the patched job has no occurrence after that
 *   instant, or its expression or zone does not parse; the update then changes nothing
 */
export function patchedNextInvocation(patched: CronJob, p: CronUpdateParams): number {
  if (p.recomputeAfter === undefined) return patched.nextInvocation;
  let next: number | null;
  try {
    next = nextOccurrence(parseCronExpression(patched.expression), patched.timezone ?? 'UTC', p.recomputeAfter);
  } catch {
    next = null;
  }
  if (next === null) throw InvalidInputError.field('/expression', 'has no occurrence after now');
  return Math.ceil(next);
}
