/**
 * What a finished execution does to its cron job, for both stores (docs/cron.md, "Auto-pause";
 * docs/calls.md, "410 Gone"): the count of consecutive failures, and when the job pauses itself
 * and why. Pure: SQLite applies {@link cronAfterFinished} to the rows it reads in the finish
 * transaction (store/sqlite/queries/executions.ts); PostgreSQL's single-statement finish applies the same rule
 * with the SQL expressions below (store/postgres/queries/executions.ts, `finishSql`). Both run it inside the
 * transaction that records the outcomes, so a pause never lags its execution.
 *
 * The rule, per job and per batch of outcomes written together (`executionsFinish`), in the
 * batch's order:
 * - only outcomes that end an execution count: `Succeeded` and `Failed` (a `Retrying` outcome
 *   finishes nothing; `Skipped` executions are made by the claim and never pass here);
 * - a `Succeeded` one resets the count, so the job's new count is its `Failed` outcomes after the
 *   batch's last `Succeeded` one (its *trailing failures*), plus the stored count when the batch
 *   has no `Succeeded` one;
 * - an `Active` job with trailing failures pauses: with the reason {@link GONE_PAUSE_REASON} when
 *   one of them is *gone* (its endpoint answered 410 and the job does not list 410 as a success),
 *   else with {@link failuresPauseReason} when its `pauseAfterFailures` is set and the new count
 *   reaches it. A job already `Paused` keeps its reason; its count still moves.
 */
import type { AttemptOutcome, CronJob } from '../../domain/types.js';

/** The status of an answer that pauses a cron job: 410 Gone (RFC 9110 §15.5.11). */
export const GONE_STATUS_CODE = 410;

/** `pausedReason` of a cron job paused because its endpoint answered 410 Gone. */
export const GONE_PAUSE_REASON = 'endpoint answered 410 Gone';

/** The two parts of {@link failuresPauseReason} around the number, for the text and its SQL. */
const FAILURES_REASON = ['paused after ', ' consecutive failed executions'] as const;

/** `pausedReason` of a cron job paused by its `pauseAfterFailures` (`n`). */
export function failuresPauseReason(n: number): string {
  return `${FAILURES_REASON[0]}${n}${FAILURES_REASON[1]}`;
}

/** Why a job paused itself: `gone` (a 410) or `failures` (`pauseAfterFailures` reached). */
export type AutoPauseKind = 'gone' | 'failures';

/** A cron job that a write of outcomes paused (`executionsFinish`). */
export interface AutoPause {
  jobId: string;
  kind: AutoPauseKind;
  /** The job's new `pausedReason`. */
  reason: string;
}

/** What `Store.executionsFinish` reports besides what it stored. */
export interface FinishResult {
  /** The cron jobs this write paused, each once (none: `[]`). */
  paused: AutoPause[];
  /**
   * When a backfilled execution this write made due is due (epoch ms, UTC: the end of the
   * execution before it; store/rules/backfill.ts, "Pacing"), so that the writer wakes the dispatcher;
   * absent when it made none due.
   */
  backfillDueAt?: number;
  /**
   * When calls waiting for a flow-control key may start because this write finished calls of that
   * key (epoch ms, UTC: the end of the batch's last attempt), so that the writer wakes the
   * dispatcher; absent when it finished no keyed call.
   */
  flowControlDueAt?: number;
}

/** Whether an outcome is *gone*: `Failed` on a 410 answer (a 410 the job lists is `Succeeded`). */
export function isGone(o: Pick<AttemptOutcome, 'status' | 'statusCode'>): boolean {
  return o.status === 'Failed' && o.statusCode === GONE_STATUS_CODE;
}

/** An outcome that ended an execution of a cron job, as the rule reads it. */
export interface FinishedOutcome {
  status: 'Succeeded' | 'Failed';
  /** See {@link isGone}. */
  gone: boolean;
}

/** The fields of a cron job the rule reads. */
export type CronFailureState = Pick<CronJob, 'status' | 'consecutiveFailures' | 'pauseAfterFailures'>;

/** What the rule decides for one job and one batch. */
export interface CronFinishDecision {
  /** The job's new `consecutiveFailures`. */
  consecutiveFailures: number;
  /** The pause to apply (`status` Paused, `pausedReason` = `reason`), or null. */
  pause: { kind: AutoPauseKind; reason: string } | null;
}

/**
 * The rule above for `job` and the outcomes of its executions that a batch finished, in the
 * batch's order (non-empty).
 */
export function cronAfterFinished(job: CronFailureState, finished: readonly FinishedOutcome[]): CronFinishDecision {
  let lastSuccess = -1;
  finished.forEach((f, i) => {
    if (f.status === 'Succeeded') lastSuccess = i;
  });
  const trailing = finished.slice(lastSuccess + 1);
  const consecutiveFailures = (lastSuccess >= 0 ? 0 : job.consecutiveFailures) + trailing.length;
  if (job.status !== 'Active' || trailing.length === 0) return { consecutiveFailures, pause: null };
  if (trailing.some((f) => f.gone)) return { consecutiveFailures, pause: { kind: 'gone', reason: GONE_PAUSE_REASON } };
  const limit = job.pauseAfterFailures;
  if (limit !== null && consecutiveFailures >= limit) {
    return { consecutiveFailures, pause: { kind: 'failures', reason: failuresPauseReason(limit) } };
  }
  return { consecutiveFailures, pause: null };
}

// ---- The same rule in SQL (PostgreSQL's finish statement) ---------------------------------------

/**
 * SQL (PostgreSQL and SQLite alike) true when an outcome is gone ({@link isGone}).
 * @param status the SQL of the outcome's status; @param code that of its status code
 */
export function goneSql(status: string, code: string): string {
  return `(${status} = 'Failed' AND ${code} = ${GONE_STATUS_CODE})`;
}

/** The SQL of a job's columns and of a batch's aggregates that {@link cronDecisionSql} reads. */
export interface CronDecisionInputs {
  /** The job's `status`. */
  status: string;
  /** The job's `consecutive_failures`. */
  count: string;
  /** The job's `pause_after_failures` (NULL: never). */
  limit: string;
  /** True when the batch has a `Succeeded` outcome of the job. */
  reset: string;
  /** The number of trailing failures. */
  trailing: string;
  /** True when a trailing failure is gone. */
  gone: string;
}

/**
 * {@link cronAfterFinished} as SQL expressions over {@link CronDecisionInputs} (valid in
 * PostgreSQL and SQLite): the new count, and the {@link AutoPauseKind} (NULL: no pause).
 */
export function cronDecisionSql(i: CronDecisionInputs): { count: string; kind: string } {
  const count = `(CASE WHEN ${i.reset} THEN 0 ELSE ${i.count} END + ${i.trailing})`;
  const kind =
    `(CASE WHEN ${i.status} <> 'Active' OR ${i.trailing} = 0 THEN NULL WHEN ${i.gone} THEN 'gone' ` +
    `WHEN ${i.limit} IS NOT NULL AND ${count} >= ${i.limit} THEN 'failures' END)`;
  return { count, kind };
}

/**
 * The `pausedReason` of a pause as SQL: {@link GONE_PAUSE_REASON} for `gone`,
 * {@link failuresPauseReason} of `limit` for `failures`, NULL for none.
 * @param kind the SQL of an {@link AutoPauseKind} or NULL; @param limit that of `pause_after_failures`
 */
export function pauseReasonSql(kind: string, limit: string): string {
  return (
    `(CASE ${kind} WHEN 'gone' THEN '${GONE_PAUSE_REASON}' ` +
    `WHEN 'failures' THEN '${FAILURES_REASON[0]}' || ${limit} || '${FAILURES_REASON[1]}' END)`
  );
}
