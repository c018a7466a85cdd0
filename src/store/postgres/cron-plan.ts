import type { CronJob } from '../../domain/types.js';
import type { ClaimDueParams } from '../store.js';

/** Most occurrences one claim creates for a job whose `misfire` is `all` (Store.claimDue, issue #3 §4). */
export const MISFIRE_ALL_MAX = 1_000;

/** What a claim does with one due cron job, before any write (see {@link planCron}). */
export interface CronPlan {
  /** Occurrences to record, oldest first (o1 first). */
  occurrences: number[];
  /** o1 is a misfire (more than the threshold late, or o2 also due). */
  misfire: boolean;
  /** Misfire with policy `skip`: every occurrence is recorded Skipped. */
  skipAll: boolean;
  /** The job's next occurrence after those recorded, or null. */
  next: number | null;
  /** `next` is after now: the job stays Active with `next_invocation = next`; else it is Paused. */
  advances: boolean;
  /** The first error the cron engine threw, if any (the job is then paused). */
  error?: unknown;
}

/**
 * The occurrences of a due cron job at `now`, by the misfire rule of `Store.claimDue` — the same
 * computation as the SQLite claim (src/store/sqlite/claim.ts, "Cron occurrences"), which has the
 * long explanation. Pure: calls only `nextOccurrence`, whose results are rounded up to whole ms
 * (never early); a throw or a non-finite result counts as "no further occurrence".
 */
export function planCron(job: CronJob, now: number, p: Pick<ClaimDueParams, 'nextOccurrence' | 'misfireThresholdMs'>): CronPlan {
  let error: unknown = undefined;
  const after = (ms: number): number | null => {
    try {
      const n = p.nextOccurrence(job, ms);
      return typeof n === 'number' && Number.isFinite(n) ? Math.ceil(n) : null;
    } catch (err) {
      error ??= err; // one broken job must not stop every claim: it is paused
      return null;
    }
  };
  const o1 = job.nextInvocation;
  const o2 = after(o1);
  const misfire = now - o1 > p.misfireThresholdMs || (o2 !== null && o2 <= now);
  const occurrences = [o1];
  let next: number | null;
  if (!misfire) {
    next = o2; // > now: else it would be a misfire
  } else if (job.misfire !== 'all') {
    next = after(now);
  } else {
    let o = o2;
    while (o !== null && o <= now && occurrences.length < MISFIRE_ALL_MAX) {
      if (o <= occurrences[occurrences.length - 1]!) {
        o = null; // a broken engine (not increasing): stop here, and pause
        break;
      }
      occurrences.push(o);
      o = after(o);
    }
    next = o !== null && o > now ? o : after(now);
  }
  const advances = next !== null && next > now;
  return {
    occurrences,
    misfire,
    skipAll: misfire && job.misfire === 'skip',
    next,
    advances,
    ...(error !== undefined && { error }),
  };
}
