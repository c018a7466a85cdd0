/*
 * The claim's rulebook: what a claim decides, whatever the database. Pure functions, no I/O and no
 * clock: each store (store/sqlite/claim/claim.ts, store/postgres/claim/claim.ts) reads the rows, asks these functions, and
 * writes what they answer; only the SQL (locking, indexes, batching) differs between databases.
 * `Store.claimDue` (store.ts) is the contract; one conformance suite holds both stores to it, and
 * test/unit/claim-rules.test.ts tests these rules on their own.
 *
 * Instants are epoch ms (UTC), whole: a claim floors `now` (flooring can only make work due later)
 * and rounds every instant from the cron engine up (never early).
 *
 * Cron occurrences. Let o1 = next_invocation (<= now) and o2 = the engine's next occurrence after o1.
 * - No misfire (now − o1 <= misfireThresholdMs and o2 > now): o1 runs, and next_invocation = o2.
 *   The job advances from o1, never "from now": o2 is needed anyway to detect a misfire, and
 *   every occurrence after o1 is either run or accounted for by the misfire rule below, so a
 *   claim that comes a little late (a busy event loop, a GC pause, a long claim batch) never
 *   silently drops one. (Advancing from now would hide such drops.)
 * - Misfire (o1 more than the threshold late, or o2 also due: the service was down, or the claim
 *   lagged by more than a period), by the job's `misfire`:
 *     once  o1 runs (one run stands for all that were missed); when it stands for two or more,
 *           its execution records them (`missedOccurrences`: count, first = o1, last);
 *     skip  o1 is recorded as a Skipped execution (visible in the history, never called), and
 *           the job's `skipped_occurrences` grows by the occurrences missed (o1 included);
 *     all   o1, o2, o3 … <= now each get an execution, oldest first, at most MISFIRE_ALL_MAX
 *           (the oldest ones: finding the newest would mean walking every missed occurrence,
 *           unbounded after a long outage). As many as the claim has room for run now; the rest
 *           are inserted Pending with next_attempt_at = their occurrence, so the following
 *           claims take them through the `waiting` source, still oldest first, and `limit`
 *           holds. All are created at once, so next_invocation can jump past now in this
 *           transaction and the 1,000 cap needs no memory across claims.
 *   then next_invocation = the engine's next occurrence after now (the rest of the missed ones
 *   are dropped).
 *   Counting the missed occurrences (once, skip) walks them with the engine from o1, at most
 *   MISSED_COUNT_MAX: after a long outage the count saturates there (`capped`, the count a lower
 *   bound), and the newest missed occurrence is then found by a binary search of the instants
 *   between the last one walked and now (the engine only answers "next after t": the newest one
 *   at or before now is next(t) for the largest t whose next is still <= now), about 35 calls
 *   for a year. So a claim costs at most ~1,050 engine calls per job (~3 µs each).
 *   A misfire counted once: `skipped_occurrences` grows only when o1's Skipped execution is
 *   inserted (an occurrence claimed again inserts nothing and adds nothing).
 * - Overlap `skip`: an occurrence that would run while the job has an execution Pending, Running
 *   or Retrying (an expired lease still counts: it will be re-leased) is inserted Skipped instead
 *   (finished now). With misfire `all` this means the first runs and the rest are Skipped.
 * - An occurrence that already has its execution (a clock set back, a job resumed onto an
 *   instant that already ran) inserts nothing, uses no room and changes no overlap state.
 * - `invocations` grows by the executions inserted (Skipped included); `last_execution_id` moves
 *   to the newest execution by (scheduled_for, id), the order of the execution list, which a
 *   trigger made at a later instant may keep.
 * - Start, end and limit (docs/cron.md, "Start, end and limits"): the engine is asked through
 *   `windowNext` (src/cron/job-next.ts), so no occurrence is before `startAt` or at or after
 *   `endAt`; a plan records at most `maxInvocations − invocations` occurrences (misfire `all`
 *   included). A job whose window has ended (`next` is 'ended') or whose `invocations` reach
 *   `maxInvocations` with this claim's executions is set Completed, next_invocation left at its
 *   last occurrence (the wire shows null). A job already at its limit (a trigger counts) records
 *   nothing and is Completed.
 * - Jitter (`jitterMs` > 0; src/store/rules/cron-life.ts): an occurrence that would run at once is
 *   inserted Pending instead, due (next_attempt_at and due_at) at its instant plus its delay, and
 *   the `waiting` source claims it then, as a triggered run; misfire and overlap were decided at
 *   its instant. Lateness counts from due_at.
 * - A broken engine: a job whose next occurrence is null (none), not after `now` (the job would
 *   be due again at once, forever), not increasing during a misfire `all` walk, or whose engine
 *   throws (one broken job must not stop every claim), is set Paused with next_invocation left at
 *   the (last) occurrence just claimed; that occurrence still runs. The store's logger is told.
 *   Resuming the job (PATCH status Active) recomputes next_invocation.
 *
 * Leases. Every item claimed is leased until now + its job's timeoutMs + leaseMs: a call may take
 * its whole timeout, and leaseMs is the margin to write its outcome. A lease of leaseMs alone
 * would let any call slower than the margin be claimed again, and called twice, while in flight.
 *
 * Claiming ahead (`aheadMs`, docs/architecture.md "Claim ahead"). A claim may also take work due
 * up to `aheadMs` after now (`dueBy` = now + aheadMs): Pending schedules, Active cron jobs and
 * waiting executions due by then. An expired lease is never taken ahead (a lease still running
 * belongs to its node). Only the due filter moves: everything else is reckoned at the real `now`,
 * the misfire rule (an occurrence not yet due is never a misfire), the lease (from now, so the
 * caller adds `aheadMs` to the margin it asks for), created_at and finished_at. An attempt's start
 * recorded at the claim ({@link attemptStart}) is its due instant when that is later than now,
 * and each item claimed before it was due carries that instant (`notBefore`, {@link aheadOf}):
 * the caller must not start it earlier.
 */
import { windowNext } from '../../cron/job-next.js';
export * from './claim-occurrences.js';
import type { ClaimedExecution, CronJob, MissedOccurrences } from '../../domain/types.js';
import type { CronPlan } from './claim-occurrences.js';

/** Most occurrences one claim creates for a cron job whose `misfire` is `all`. */
export const MISFIRE_ALL_MAX = 1_000;

/**
 * Most missed occurrences a claim counts for one cron job (misfire `once` and `skip`): a larger
 * count saturates at this value, flagged `capped` (see "Counting the missed occurrences" above).
 */
export const MISSED_COUNT_MAX = 1_000;

/**
 * The cron engine as the rules see it: the next occurrence of `job` strictly after `afterMs`
 * (epoch ms, UTC), or null when it has none. The stores pass `cronJobNext` (src/cron/job-next.ts);
 * tests inject their own. It may throw or return anything: {@link planCron} copes.
 */
export type NextOccurrence = (job: CronJob, afterMs: number) => number | null;

/** What `Store.claimDue` answers: the work leased, and the occurrences misfire `skip` dropped. */
export interface ClaimDueResult {
  /** The work leased, due time first. */
  claimed: ClaimedExecution[];
  /**
   * Cron occurrences this claim dropped under misfire `skip` (the sum of what it added to the
   * jobs' `skippedOccurrences`), for the counter `punctual_cron_skipped_occurrences_total`.
   */
  skippedOccurrences: number;
}

/** What a claim did: {@link ClaimDueResult}, and the cron jobs it paused (for the log). */
export interface ClaimResult extends ClaimDueResult {
  /**
   * Cron jobs set Paused because the engine gave no occurrence after `now` (`next`: what it gave,
   * epoch ms or null; `error`: the first error it threw).
   */
  paused: { id: string; next: number | null; error?: unknown }[];
}

/** A claim's instants, as every rule and every row uses them. */
export interface ClaimClock {
  /** The claim's instant: epoch ms (UTC), floored to whole ms. */
  now: number;
  /**
   * Work due at or before this instant is claimed (epoch ms, UTC, whole): `now` + `aheadMs`
   * floored; `now` when the claim does not look ahead. Expired leases are compared with `now`.
   */
  dueBy: number;
  /** The lease margin in ms, rounded up. */
  leaseMs: number;
}

/**
 * The instants of a claim: `now` floored (the columns hold whole ms, and flooring can only make
 * work due later), `dueBy` = now + `aheadMs` floored (absent, negative or not finite: 0), `leaseMs`
 * rounded up (a lease is never shorter than asked).
 * @param p `now` epoch ms (UTC), `leaseMs` and `aheadMs` ms; fractions allowed
 */
export function claimClock(p: { now: number; leaseMs: number; aheadMs?: number | undefined }): ClaimClock {
  const now = Math.floor(p.now);
  const ahead = p.aheadMs !== undefined && Number.isFinite(p.aheadMs) && p.aheadMs > 0 ? Math.floor(p.aheadMs) : 0;
  return { now, dueBy: now + ahead, leaseMs: Math.ceil(p.leaseMs) };
}

/**
 * The start of an attempt as recorded when it is claimed (`started_at` of a first attempt, until
 * its outcome records the real start): the claim's instant, or the attempt's due instant when the
 * claim took it ahead (see "Claiming ahead" above), so no execution ever reads as started early.
 * @param due the instant the attempt became (or becomes) due, epoch ms (UTC)
 */
export function attemptStart(clock: ClaimClock, due: number): number {
  return Math.max(clock.now, due);
}

/**
 * What a claimed item carries about its start: `{ notBefore: due }` when the claim took it before
 * it was due (`due > now`), else nothing (it may start at once). See "Claiming ahead" above.
 * @param due the instant the attempt becomes due, epoch ms (UTC)
 */
export function aheadOf(clock: ClaimClock, due: number): { notBefore?: number } {
  return due > clock.now ? { notBefore: due } : {};
}

/**
 * When the lease of an item claimed at `clock.now` expires: now + the job's call timeout + the
 * margin (see "Leases" at the top of this file). Epoch ms (UTC).
 * @param timeoutMs the job's call timeout, ms
 */
export function leaseExpiry(clock: ClaimClock, timeoutMs: number): number {
  return clock.now + timeoutMs + clock.leaseMs;
}

/**
 * The occurrences of a due cron job at `now`, by the misfire rule and the broken-engine rule
 * ("Cron occurrences" at the top of this file). Calls only `engine`: its results are rounded up
 * to whole ms (never early); a throw, or anything but a finite number, counts as "no further
 * occurrence" (the first error is kept in the plan). Never throws.
 * @param job the job as read, its `nextInvocation` (o1) <= now
 * @param now the claim's instant, epoch ms (UTC), whole
 * @param misfireThresholdMs an occurrence claimed more than this late (ms) is a misfire
 */
export function planCron(job: CronJob, now: number, misfireThresholdMs: number, engine: NextOccurrence): CronPlan {
  let error: unknown = undefined;
  let ended = false;
  const after = (ms: number): number | null => {
    try {
      const n = windowNext(job, ms, (t) => engine(job, t));
      if (n === 'ended') ended = true;
      return typeof n === 'number' ? n : null;
    } catch (err) {
      error ??= err; // one broken job must not stop every claim: it is paused
      return null;
    }
  };
  const left = job.maxInvocations === null ? null : Math.max(0, job.maxInvocations - job.invocations);
  const o1 = job.nextInvocation;
  if (left === 0 || (job.endAt !== null && o1 >= job.endAt)) {
    // Nothing left to run (a trigger reached the limit, or the end moved): Completed, nothing recorded.
    return { occurrences: [], misfire: false, skipAll: false, next: null, advances: false, ended: true, left, missed: null, skipped: 0 };
  }
  const o2 = after(o1);
  const misfire = now - o1 > misfireThresholdMs || (o2 !== null && o2 <= now);
  const occurrences = [o1];
  let next: number | null;
  let missed: MissedOccurrences | null = null;
  let skipped = 0;
  if (!misfire) {
    next = o2; // > now: else it would be a misfire
  } else if (job.misfire !== 'all') {
    const m = countMissed(o1, o2, now, after);
    next = m.next;
    if (job.misfire === 'skip') skipped = m.count;
    else if (m.count >= 2) missed = { count: m.count, first: o1, last: m.last, capped: m.capped };
  } else {
    let o = o2;
    const most = Math.min(MISFIRE_ALL_MAX, left ?? MISFIRE_ALL_MAX);
    while (o !== null && o <= now && occurrences.length < most) {
      if (o <= occurrences[occurrences.length - 1]!) {
        o = null; // a broken engine (not increasing): stop here, and pause
        break;
      }
      occurrences.push(o);
      o = after(o);
    }
    next = o !== null && o > now ? o : after(now);
  }
  return {
    occurrences,
    misfire,
    skipAll: misfire && job.misfire === 'skip',
    next,
    advances: next !== null && next > now,
    ended: next === null && ended,
    left,
    missed,
    skipped,
    ...(error !== undefined && { error }),
  };
}

/**
 * The missed occurrences o1, o2, … <= now of a misfire: their count (at most MISSED_COUNT_MAX,
 * `capped` when it stopped there), the newest one, and the next occurrence after now. A walk
 * that meets a broken engine (null, or not increasing) stops there and counts what it walked.
 * See "Counting the missed occurrences" at the top of this file.
 * @param o2 the engine's occurrence after o1 (already asked by the caller), or null
 * @param after the engine, rounded up, null for none
 */
function countMissed(
  o1: number,
  o2: number | null,
  now: number,
  after: (ms: number) => number | null,
): { count: number; last: number; capped: boolean; next: number | null } {
  let count = 1;
  let last = o1;
  let o = o2;
  while (o !== null && o <= now && o > last && count < MISSED_COUNT_MAX) {
    last = o;
    count++;
    o = after(o);
  }
  const capped = o !== null && o <= now && o > last; // more were missed than counted
  if (!capped) return { count, last, capped, next: o !== null && o > now ? o : after(now) };
  // The newest occurrence <= now is after(t) for the largest t with after(t) <= now; `lo` keeps
  // after(lo) <= now, `hi` keeps after(hi) > now (after(now) > now by definition).
  let lo = last;
  let hi = now;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const m = after(mid);
    if (m !== null && m <= now) lo = mid;
    else hi = mid;
  }
  const newest = after(lo);
  return { count, last: newest !== null && newest <= now && newest > last ? newest : last, capped, next: after(now) };
}

/** The entry of {@link ClaimResult.paused} for a plan that does not advance (nor completes the job), else null. */
export function pausedEntry(id: string, plan: CronPlan): ClaimResult['paused'][number] | null {
  if (plan.advances || plan.ended || (plan.left !== null && plan.occurrences.length >= plan.left)) return null;
  return { id, next: plan.next, ...(plan.error !== undefined && { error: plan.error }) };
}

/**
 * Warns once per cron job a claim set Paused ({@link ClaimResult.paused}), with its id, the
 * occurrence the engine gave (`nextOccurrence`: epoch ms or null) and the engine's error if any.
 * Both stores call it after their claim commits; it never throws unless the logger does.
 */
export function warnPaused(
  logger: { warn(obj: object, msg?: string): void } | undefined,
  paused: ClaimResult['paused'],
): void {
  for (const { id, next, error } of paused) {
    logger?.warn(
      { cronJobId: id, nextOccurrence: next, ...(error !== undefined && { err: error }) },
      'cron job has no occurrence after now; paused',
    );
  }
}

/**
 * The job's row after the claim: Completed at its last occurrence when its window ended or the
 * executions inserted reach its limit; else Active at `plan.next` when the plan advances, else
 * Paused at its last occurrence (which still runs); `invocations` grows by the executions
 * inserted, and `skipped_occurrences` by `plan.skipped` when o1's (Skipped) execution was inserted.
 * @param inserted executions actually inserted for the job (Skipped included)
 * @param current the job's `nextInvocation` before the claim, kept when the plan records nothing
 *   (a job already at its limit); not needed otherwise
 */
export function cronAdvance(
  plan: CronPlan,
  inserted: number,
  current = 0,
): { nextInvocation: number; status: 'Active' | 'Paused' | 'Completed'; invocationsAdded: number; skippedAdded: number } {
  const skippedAdded = inserted > 0 ? plan.skipped : 0;
  const last = plan.occurrences[plan.occurrences.length - 1] ?? current;
  const completed = plan.ended || (plan.left !== null && inserted >= plan.left);
  if (completed) return { nextInvocation: last, status: 'Completed', invocationsAdded: inserted, skippedAdded };
  return plan.advances && plan.next !== null
    ? { nextInvocation: plan.next, status: 'Active', invocationsAdded: inserted, skippedAdded }
    : { nextInvocation: last, status: 'Paused', invocationsAdded: inserted, skippedAdded };
}

/** An execution as the newest-execution rule compares them. */
export interface ExecutionKey {
  /** Its occurrence, epoch ms (UTC). */
  scheduledFor: number;
  id: string;
}

/**
 * The newer of two executions by the order of the execution list: by `scheduledFor`, then by id
 * (code-unit order, PostgreSQL's `COLLATE "C"`). A job's `last_execution_id` is its newest one. A
 * null side loses.
 */
export function newerExecution<T extends ExecutionKey>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.scheduledFor > a.scheduledFor || (b.scheduledFor === a.scheduledFor && b.id > a.id) ? b : a;
}
