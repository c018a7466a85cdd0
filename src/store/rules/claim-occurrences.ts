/*
 * The claim's rules for the executions of one cron job's occurrences, once its plan is made
 * (store/rules/claim.ts, `planCron`): the overlap rule and the jitter, in the order the occurrences are
 * recorded. Pure; both stores (store/sqlite/claim/claim.ts, store/postgres/claim/claim.ts) ask these functions.
 * store/rules/claim.ts re-exports them.
 */
import type { MissedOccurrences, OverlapPolicy } from '../../domain/types.js';
import { occurrenceJitterMs } from './cron-life.js';

/** The status an occurrence's new execution is inserted with. */
export type OccurrenceStatus = 'Running' | 'Pending' | 'Skipped';

/** What a claim does with one due cron job, before any write (see {@link planCron}). */
export interface CronPlan {
  /** Occurrences to record, epoch ms (UTC), oldest first (o1 first); empty only for a job already at its limit or past its end. */
  occurrences: number[];
  /** o1 is a misfire (more than the threshold late, or o2 also due). */
  misfire: boolean;
  /** Misfire with policy `skip`: every occurrence is recorded Skipped. */
  skipAll: boolean;
  /** The job's next occurrence after those recorded (epoch ms, UTC), or null. */
  next: number | null;
  /** `next` is after now: the job stays Active at `next`; else it is Paused (or Completed) at the last occurrence. */
  advances: boolean;
  /** The window has no occurrence left after those recorded (`endAt`): the job is Completed. */
  ended: boolean;
  /**
   * Executions the job may still make before `maxInvocations` (`maxInvocations − invocations`),
   * or null without a limit: the job is Completed when the claim inserts this many.
   */
  left: number | null;
  /**
   * Misfire `once` with two or more occurrences missed: what o1's execution stands for (its
   * `missedOccurrences`); else null.
   */
  missed: MissedOccurrences | null;
  /** Misfire `skip`: the occurrences dropped (o1 included, at most MISSED_COUNT_MAX); else 0. */
  skipped: number;
  /** The first error the cron engine threw, if any (the job is then paused). */
  error?: unknown;
}

/** Where the overlap rule stands while a job's occurrences are recorded, oldest first. */
export interface OverlapState {
  /** Misfire `skip`: everything is Skipped. */
  readonly skipAll: boolean;
  /** The job's `overlap` is `skip`. */
  readonly overlapSkip: boolean;
  /** Overlap `skip` and an execution of the job is in progress: the next occurrence is Skipped. */
  readonly busy: boolean;
}

/**
 * The overlap state before a job's first occurrence is recorded.
 * @param inProgress whether the job has an execution Pending, Running or Retrying (an expired
 *   lease included); called only when the answer matters (overlap `skip`, no misfire `skip`), so
 *   a store asks its database only then
 */
export function overlapStart(plan: CronPlan, overlap: OverlapPolicy, inProgress: () => boolean): OverlapState {
  const overlapSkip = overlap === 'skip';
  return { skipAll: plan.skipAll, overlapSkip, busy: !plan.skipAll && overlapSkip && inProgress() };
}

/**
 * The status of the next occurrence: Skipped under misfire `skip` or a busy overlap `skip`;
 * else Pending when it is delayed by its jitter (`delayMs` > 0: due at its instant plus the
 * delay, see {@link occurrenceDue}); else Running while the claim has room, Pending (due at its
 * occurrence) when it has none.
 * @param room items the claim may still return (its `limit` minus those claimed)
 * @param delayMs the occurrence's jitter ({@link occurrenceDelay}), ms
 */
export function occurrenceStatus(s: OverlapState, room: number, delayMs = 0): OccurrenceStatus {
  return s.skipAll || s.busy ? 'Skipped' : delayMs > 0 || room <= 0 ? 'Pending' : 'Running';
}

/**
 * The jitter of one occurrence of a job: its delay, ms in [0, `jitterMs`), fixed per occurrence
 * (cron-life.ts, `occurrenceJitterMs`).
 */
export function occurrenceDelay(job: { id: string; jitterMs: number }, occurrence: number): number {
  return occurrenceJitterMs(job.id, occurrence, job.jitterMs);
}

/**
 * When an occurrence's new execution is due, for its row: `dueAt` (the `due_at` column, from
 * which lateness counts) is its instant plus its delay when it has one and is not Skipped, else
 * null (its instant); `nextAttemptAt` of a Pending one is its instant plus its delay, else null.
 * Instants: epoch ms (UTC).
 */
export function occurrenceDue(
  occurrence: number,
  status: OccurrenceStatus,
  delayMs: number,
): { dueAt: number | null; nextAttemptAt: number | null } {
  const dueAt = status !== 'Skipped' && delayMs > 0 ? occurrence + delayMs : null;
  return { dueAt, nextAttemptAt: status === 'Pending' ? (dueAt ?? occurrence) : null };
}

/** The overlap state after an occurrence was inserted with `status` (not called when it already existed). */
export function afterInsert(s: OverlapState, status: OccurrenceStatus): OverlapState {
  return status !== 'Skipped' && s.overlapSkip ? { ...s, busy: true } : s;
}

/**
 * The statuses of all of a plan's occurrences at once, for a store that writes them in one
 * statement: occurrences for which `exists` is true are left out (they insert nothing, use no
 * room), each Running one uses one unit of `room`; `delay` gives each occurrence's jitter
 * ({@link occurrenceDelay}; none when absent).
 * @returns the occurrences to insert, oldest first, with their statuses
 */
export function occurrenceStatuses(
  plan: CronPlan,
  overlap: OverlapPolicy,
  inProgress: () => boolean,
  room: number,
  exists: (occurrence: number) => boolean,
  delay: (occurrence: number) => number = () => 0,
): { scheduledFor: number; status: OccurrenceStatus; dueAt: number | null; nextAttemptAt: number | null }[] {
  let s = overlapStart(plan, overlap, inProgress);
  const out: { scheduledFor: number; status: OccurrenceStatus; dueAt: number | null; nextAttemptAt: number | null }[] = [];
  for (const o of plan.occurrences) {
    if (exists(o)) continue;
    const d = delay(o);
    const status = occurrenceStatus(s, room, d);
    out.push({ scheduledFor: o, status, ...occurrenceDue(o, status, d) });
    s = afterInsert(s, status);
    if (status === 'Running') room--;
  }
  return out;
}

/**
 * The room a source gives a job's new executions: none when the job names a flow-control key. Such
 * an execution is never started by its source: it is inserted Pending, due at its instant (plus its
 * jitter), and the claim's flow-control pass (store/rules/flow-control.ts, `planHeld`) starts it
 * when its key admits it, in the same claim when the key has room.
 * @param flowControlKey the job's key, null: none
 * @param room the claim's room
 */
export function sourceRoom(flowControlKey: string | null, room: number): number {
  return flowControlKey === null ? room : 0;
}

/** The status a due schedule's execution is inserted with: Running, or Pending when it names a flow-control key (see {@link sourceRoom}). */
export function sourceStatus(flowControlKey: string | null): 'Running' | 'Pending' {
  return flowControlKey === null ? 'Running' : 'Pending';
}

/**
 * Most reads of the sources in one claim. A due call of a keyed job takes no room (it is inserted
 * Pending, see {@link sourceRoom}) but takes a place in the read, so a claim whose read was full
 * and left room reads again, up to this many times: a backlog of keyed calls due earlier does not
 * hold back, by a claim per read, the calls without a key due after them.
 */
export const CLAIM_READS_MAX = 16;
