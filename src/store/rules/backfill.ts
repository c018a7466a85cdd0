/**
 * The backfill of a cron job (`POST /cron/{id}/backfill`, docs/cron.md "Backfill"), written once for
 * both stores: which occurrences it creates, how they are paced, and the statements, valid in both
 * dialects, that the claim and the finish use to pace them. Pure: no I/O, no clock.
 *
 * Which occurrences: those of the job's expression (the claim's engine, `cronJobNext`) in
 * [from, to) that have no execution at all. An occurrence that ran (Succeeded or Failed, replayed
 * through `POST /executions/replay`) or was recorded Skipped (misfire or overlap `skip`) has one
 * and is left alone. At most {@link BACKFILL_MAX} per request.
 *
 * Pacing. Every backfilled execution is inserted `Pending` with `backfill` true, `due_at` = the
 * instant of the backfill (so `lateMs` counts from the request, not from the occurrence), oldest
 * first:
 * - overlap `allow`: all due at once (`next_attempt_at` = now); claims take them oldest first,
 *   as many at a time as the cap of calls in flight lets them.
 * - overlap `skip`: one at a time. The oldest is due now (unless the job has an execution in
 *   progress), the others wait ({@link BACKFILL_RECHECK_MS} ahead). A claim leases a backfilled
 *   execution of a job with overlap `skip` only when the job has no other execution Running or
 *   Retrying and no older backfilled execution still Pending ({@link backfillBlockedSql}); one
 *   that is blocked is put back {@link BACKFILL_RECHECK_MS} ahead instead of leased. When an
 *   execution of the job finishes (Succeeded or Failed), the finish makes the job's oldest Pending
 *   backfilled execution due at that instant ({@link promoteBackfillSql}), so the next one starts
 *   right after the previous one ends; the recheck is only the safety net (a node that died between
 *   the two, a job deleted meanwhile: its backfilled executions then fail as `job deleted`).
 *   While they wait they count as in progress, so the job's own occurrences are Skipped under
 *   overlap `skip` until the backfill is done.
 *
 * Backfilled executions do not count toward the job's `invocations` (the occurrences its schedule
 * claimed), nor move `lastExecutionId`.
 */
import type { CronJob, OverlapPolicy } from '../../domain/types.js';
import type { NextOccurrence } from './claim.js';

/** Most occurrences one backfill request creates; a range holding more is refused. */
export const BACKFILL_MAX = 1_000;

/** How far ahead (ms) a backfilled execution that must wait its turn (overlap `skip`) is looked at again. */
export const BACKFILL_RECHECK_MS = 60_000;

/**
 * The occurrences of `job` in [fromMs, toMs), oldest first, by `engine` (rounded up to whole ms,
 * never early, as the claim rounds them), or `'too_many'` when there are more than
 * {@link BACKFILL_MAX}. A broken engine (a throw, a non-number, not increasing) ends the walk.
 * @param fromMs epoch ms (UTC), included
 * @param toMs epoch ms (UTC), excluded
 */
export function backfillOccurrences(job: CronJob, fromMs: number, toMs: number, engine: NextOccurrence): number[] | 'too_many' {
  const out: number[] = [];
  let t = Math.ceil(fromMs) - 1; // "next after t" with t just before `from`: `from` itself counts
  for (;;) {
    let n: number | null;
    try {
      const v = engine(job, t);
      n = typeof v === 'number' && Number.isFinite(v) ? Math.ceil(v) : null;
    } catch {
      n = null;
    }
    if (n === null || n <= t || n >= toMs) return out;
    if (out.length === BACKFILL_MAX) return 'too_many';
    out.push(n);
    t = n;
  }
}

/** A backfilled execution to insert: its occurrence and when it is due (epoch ms, UTC). */
export interface BackfillRow {
  scheduledFor: number;
  nextAttemptAt: number;
}

/**
 * The rows of a backfill, oldest first: the occurrences without an execution (`exists` false), each
 * due at `now`, except under overlap `skip`, where only the oldest is (and not even it when the job
 * has an execution in progress): the others are due {@link BACKFILL_RECHECK_MS} later, and wait
 * for the finish of the one before (see "Pacing" at the top of this file).
 * @param inProgress whether the job has an execution Pending, Running or Retrying; asked only under overlap `skip`
 */
export function backfillRows(
  occurrences: readonly number[],
  exists: (occurrence: number) => boolean,
  overlap: OverlapPolicy,
  inProgress: () => boolean,
  now: number,
): BackfillRow[] {
  const missing = occurrences.filter((o) => !exists(o));
  if (missing.length === 0) return [];
  const paced = overlap === 'skip';
  const firstDue = !paced || !inProgress();
  return missing.map((scheduledFor, i) => ({
    scheduledFor,
    nextAttemptAt: !paced || (i === 0 && firstDue) ? now : now + BACKFILL_RECHECK_MS,
  }));
}

/**
 * A column of `executionWithJobSql` (store/sql/claim.ts; `e` the execution, `c` its cron job):
 * 1 when `e` is a Pending backfilled execution of a cron job with overlap `skip` that must wait its
 * turn (the job has another execution Running or Retrying, or an older backfilled one still
 * Pending), else 0. Valid in both dialects (`backfill` is an integer in SQLite, a boolean in
 * PostgreSQL: both read as a condition). The subquery reads `executions_in_progress`.
 */
export const BACKFILL_BLOCKED_SQL = `CASE WHEN e.status = 'Pending' AND e.backfill AND c.overlap = 'skip' AND EXISTS (
         SELECT 1 FROM executions b
          WHERE b.job_type = 'cron' AND b.job_id = e.job_id AND b.status IN ('Pending', 'Running', 'Retrying') AND b.id <> e.id
            AND (b.status <> 'Pending' OR (b.backfill AND b.scheduled_for < e.scheduled_for)))
       THEN 1 ELSE 0 END`;

/**
 * The statement that makes a cron job's oldest Pending backfilled execution due at `at` when it
 * was due later (see "Pacing" above). Valid in both dialects; `job` and `at` are the placeholders
 * (or columns of `from`) of the job id and the instant (epoch ms); `from`, if given, is the FROM
 * list of an UPDATE … FROM (one row per job). Reads `executions_in_progress`.
 */
export function promoteBackfillSql(job: string, at: string, from?: string): string {
  return `UPDATE executions AS x SET next_attempt_at = ${at}${from === undefined ? '' : `
  FROM ${from}`}
 WHERE x.id = (SELECT h.id FROM executions h
                WHERE h.job_type = 'cron' AND h.job_id = ${job} AND h.status IN ('Pending', 'Running', 'Retrying')
                  AND h.status = 'Pending' AND h.backfill
                ORDER BY h.scheduled_for, h.id LIMIT 1)
   AND x.next_attempt_at > ${at}`;
}
