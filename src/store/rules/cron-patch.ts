/**
 * How `Store.cronUpdate` applies a patch to a stored cron job, for both stores: the merge of the
 * fields, and the new `nextInvocation`. Each store reads the job and writes the result inside one
 * transaction that holds the job's row (SQLite: IMMEDIATE; PostgreSQL: FOR UPDATE), so no claim
 * advances the job between the read and the write and the recomputed occurrence is never stale.
 * The occurrence rules are those of the cron engine (docs/cron.md).
 */
import { lifeNext, nextOccurrence, parseCronExpression } from '../../cron/index.js';
import { InvalidInputError } from '../../domain/errors.js';
import type { CronJob, CronJobStatus } from '../../domain/types.js';
import type { CronUpdateParams } from '../contract/jobs.js';

/**
 * The job with the fields `p` gives: every field of a cron job but its id, each present one
 * replacing the stored value (null sets null), absent ones keeping theirs. A job `Active` after
 * the patch has no `pausedReason`; a job the patch resumes (`Paused` or `Completed` → `Active`) starts its
 * `consecutiveFailures` at 0, so `pauseAfterFailures` counts afresh (docs/cron.md, "Auto-pause").
 */
export function patchCronJob(current: CronJob, p: CronUpdateParams): CronJob {
  const { id: _id, recomputeAfter: _recomputeAfter, ...fields } = p;
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<CronJob>;
  const patched: CronJob = { ...current, ...given, ...(p.retry !== undefined && { retry: { ...p.retry } }) };
  if (patched.status === 'Active') patched.pausedReason = null;
  if (patched.status === 'Active' && current.status !== 'Active') patched.consecutiveFailures = 0;
  return patched;
}

/**
 * The `nextInvocation` and `status` of a patched job: kept as they are unless `p.recomputeAfter`
 * is given and the job is not `Completed` after the patch; then `nextInvocation` is the first
 * occurrence of the patched `expression` in the patched `timezone` (UTC when null) strictly after
 * `p.recomputeAfter` (epoch ms, UTC) within the patched window and limit (`lifeNext`,
 * src/cron/job-next.ts: not before `startAt`, before `endAt`, `invocations` below
 * `maxInvocations`), in whole ms rounded up (never early). When the window or the limit leaves
 * none, an `Active` job becomes `Completed` and a `Paused` one stays `Paused` (both keep their
 * `nextInvocation`), unless the patch itself gives `status` `Active`: that is refused
 * (docs/cron.md, "Start, end and limits").
 * @throws InvalidInputError (path `/expression`) when the patched expression has no occurrence
 *   after that instant, or its expression or zone does not parse; (path `/status`) when the patch
 *   gives `status` Active and the window or limit leaves no occurrence; the update then changes
 *   nothing
 */
export function patchedLife(patched: CronJob, p: CronUpdateParams): { nextInvocation: number; status: CronJobStatus } {
  const kept = { nextInvocation: patched.nextInvocation, status: patched.status };
  if (p.recomputeAfter === undefined || patched.status === 'Completed') return kept;
  let next: number | 'ended' | null;
  try {
    const parsed = parseCronExpression(patched.expression);
    const zone = patched.timezone ?? 'UTC';
    const anchor = patched.startAt ?? patched.createdAt;
    next = lifeNext(patched, p.recomputeAfter, (ms) => nextOccurrence(parsed, zone, ms, anchor));
  } catch {
    next = null;
  }
  if (next === null) throw InvalidInputError.field('/expression', 'has no occurrence after now');
  if (next !== 'ended') return { nextInvocation: next, status: patched.status };
  if (p.status === 'Active') {
    throw InvalidInputError.field('/status', 'cannot be Active: the job has no occurrence left after now (startAt, endAt, maxInvocations)');
  }
  return { nextInvocation: patched.nextInvocation, status: patched.status === 'Active' ? 'Completed' : patched.status };
}
