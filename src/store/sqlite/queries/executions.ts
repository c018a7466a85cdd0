import { holdSql, WAKE_SQL } from '../../sql/flow-control.js';
import { promoteBackfillSql } from '../../rules/backfill.js';
import { AUDIT_INSERT_SQL, autoPauseRow, type AuditRow } from '../../rules/audit.js';
import type { AttemptOutcome, CronJobStatus, Execution, JobType } from '../../../domain/types.js';
import { cronAfterFinished, isGone, type AutoPause, type FinishedOutcome, type FinishResult } from '../../rules/outcome.js';
import { decodeCursor } from '../../rules/paging.js';
import { columnList } from '../../rows/jobs.js';
import * as execRows from '../../rows/executions.js';
import type { Db } from '../connection.js';
import * as T from '../../sql/executions.js';
import { finishedOutboxStatement, pausedItems, pausedOutboxStatement } from './notifications.js';
import { SQLITE_CODEC } from '../connection.js';
import type { Operations } from '../../sql-store.js';

const ATTEMPT_LIST = columnList(execRows.ATTEMPT_COLUMNS);

/**
 * A job's executions, newest first: a backward walk of `executions_by_job` (job_type, job_id,
 * scheduled_for, id), so a page costs one descent plus its rows, however long the history. The
 * next page starts strictly after the last row of the previous one (keyset paging: stable while
 * new executions arrive, unlike OFFSET).
 */
/** The two counts of the retrying gauge: column and job type. */
const RETRYING_COUNTS = [['schedule', 'schedule'], ['cron', 'cron']] as const;

export const LIST_FIRST_SQL = `SELECT ${execRows.EXECUTION_COLUMNS} FROM executions
 WHERE job_type = :jobType AND job_id = :jobId
 ORDER BY scheduled_for DESC, id DESC LIMIT :limit`;
/** {@link LIST_FIRST_SQL} after the cursor (`:sf`, `:id`). */
export const LIST_AFTER_SQL = `SELECT ${execRows.EXECUTION_COLUMNS} FROM executions
 WHERE job_type = :jobType AND job_id = :jobId AND (scheduled_for, id) < (:sf, :id)
 ORDER BY scheduled_for DESC, id DESC LIMIT :limit`;
/** The attempts of a page of executions (a JSON array of ids), in one query: PK lookups. */
export const ATTEMPTS_OF_SQL = `SELECT ${ATTEMPT_LIST} FROM execution_attempts
 WHERE execution_id IN (SELECT value FROM json_each(:ids)) ORDER BY execution_id, number`;

/** The `executions` table outside the claim: outcomes, reads, triggers, pruning. */
export class ExecutionQueries {
  private readonly finishOne;
  private readonly insertAttempt;
  private readonly settleSchedule;
  private readonly cronFailureState;
  private readonly settleCron;
  private readonly finishTx;
  private readonly wakeKey;
  private readonly holdKey;
  private readonly outbox;
  private readonly anyChannel;
  private readonly pausedOutbox;
  private readonly promoteBackfill;
  private readonly auditInsert;
  private readonly byId;
  private readonly retrying;
  private readonly attemptsOfOne;
  private readonly attemptsOf;
  private readonly listFirst;
  private readonly listAfter;
  private readonly startSchedule;
  private readonly scheduleExists;
  private readonly cronLast;
  private readonly insertTriggered;
  private readonly countTrigger;
  private readonly triggerTx;
  private readonly prunable;
  private readonly deleteAttempts;
  private readonly deleteExecutions;
  private readonly pruneTx;
  private readonly releaseTx;

  constructor(db: Db) {
    // Only a row still leased to this node for this very attempt changes: a lease taken over
    // (by another node, or by this one as a later attempt) or an execution already finished
    // ignores the outcome. A lease that expired but was not yet taken over still counts as held:
    // the call did finish, and recording it saves a duplicate call.
    // started_at: attempt 1's own start replaces the claim instant set when it was claimed.
    // Positional parameters: this runs once per outcome on the hot path.
    this.finishOne = db.prepare<
      [string, number | null, number | null, number, number, number, string, string, number],
      { job_type: JobType; job_id: string; scheduled_for: number; flow_control_key: string | null }
    >(
      `UPDATE executions SET
         status = ?,
         finished_at = ?,
         next_attempt_at = ?,
         started_at = CASE WHEN ? = 1 THEN ? ELSE coalesce(started_at, ?) END,
         lease_owner = NULL,
         lease_expires_at = NULL
       WHERE id = ? AND lease_owner = ? AND status = 'Running' AND attempt = ?
       RETURNING job_type, job_id, scheduled_for, flow_control_key`,
    );
    // The notifications an outcome causes, in its transaction (store/rules/notifications.ts).
    this.outbox = finishedOutboxStatement(db);
    // Asked once per batch, inside its transaction (no channel can appear meanwhile): without a
    // channel the batch skips the outbox statement (~5 µs an outcome) altogether.
    this.anyChannel = db.prepare<[], { one: number }>('SELECT 1 AS one FROM notification_channels LIMIT 1');
    this.insertAttempt = db.prepare<[execRows.AttemptRow]>(
      `INSERT INTO execution_attempts (${ATTEMPT_LIST})
       VALUES (${execRows.ATTEMPT_COLUMNS.map((c) => `:${c}`).join(', ')}) ON CONFLICT (execution_id, number) DO NOTHING`,
    );
    // A deleted schedule has no row to update: nothing happens.
    this.settleSchedule = db.prepare<[string, string]>(
      `UPDATE schedules SET status = ? WHERE id = ? AND status = 'Running'`,
    );
    const releaseOne = db.prepare<[number, string, string]>(
      `UPDATE executions SET lease_expires_at = min(lease_expires_at, ?)
       WHERE id = ? AND lease_owner = ? AND status = 'Running'`,
    );
    this.releaseTx = db.transaction((nodeId: string, ids: readonly string[], now: number) => {
      for (const id of ids) releaseOne.run(now, id, nodeId);
    });
    // The auto-pause of cron jobs (store/rules/outcome.ts): the job's count and status as they are
    // inside this transaction, then its new count and, when the rule says, the pause.
    this.cronFailureState = db.prepare<[string], { status: CronJobStatus; consecutive_failures: number; pause_after_failures: number | null }>(
      'SELECT status, consecutive_failures, pause_after_failures FROM cron_jobs WHERE id = ?',
    );
    this.settleCron = db.prepare<[{ id: string; failures: number; reason: string | null }]>(
      `UPDATE cron_jobs SET consecutive_failures = :failures,
         status = CASE WHEN :reason IS NULL THEN status ELSE 'Paused' END,
         paused_reason = coalesce(:reason, paused_reason)
       WHERE id = :id`,
    );
    this.pausedOutbox = pausedOutboxStatement(db);
    this.promoteBackfill = db.prepare<[{ job: string; at: number }]>(promoteBackfillSql(':job', ':at'));
    this.wakeKey = db.prepare<[{ key: string; now: number }]>(WAKE_SQL);
    this.holdKey = db.prepare<[{ key: string; now: number; until: number }]>(holdSql('max'));
    // The `cron.autoPause` audit events, in the same transaction (only when a job paused).
    this.auditInsert = db.prepare<[AuditRow]>(AUDIT_INSERT_SQL);
    this.finishTx = db.transaction((nodeId: string, outcomes: readonly AttemptOutcome[]): FinishResult => {
      const notify = this.anyChannel.get() !== undefined;
      const finishedCron = new Map<string, FinishedOutcome[]>();
      const keyed = new Map<string, number>();
      for (const o of outcomes) this.finishOutcome(nodeId, o, notify, finishedCron, keyed);
      const paused: AutoPause[] = [];
      for (const [jobId, finished] of finishedCron) {
        const pause = this.settleCronJob(jobId, finished);
        if (pause) paused.push(pause);
      }
      // cron.auto_paused notifications, in the transaction that paused the jobs, at the end of
      // the batch's last attempt (its outcomes' own times, as PostgreSQL's finish statement).
      const end = Math.max(...outcomes.map((o) => execRows.outcomeTimes(o).finishedAt ?? 0));
      if (paused.length > 0) {
        if (notify) this.pausedOutbox.run({ items: pausedItems(paused), now: end });
        for (const p of paused) this.auditInsert.run(autoPauseRow(p.jobId, p.reason, end));
      }
      // The next backfilled execution of each cron job that finished one (store/rules/backfill.ts, "Pacing").
      let promoted = 0;
      for (const jobId of finishedCron.keys()) promoted += this.promoteBackfill.run({ job: jobId, at: end }).changes;
      // A finished keyed call frees a slot of its key; a 429 or 503 with Retry-After holds it (store/sql/flow-control.ts).
      for (const [key, until] of keyed) {
        if (until > end) this.holdKey.run({ key, now: end, until });
        else this.wakeKey.run({ key, now: end });
      }
      return { paused, ...(promoted > 0 && { backfillDueAt: end }), ...(keyed.size > 0 && { flowControlDueAt: end }) };
    });

    this.byId = db.prepare<[string], execRows.ExecutionRow>(`SELECT ${execRows.EXECUTION_COLUMNS} FROM executions WHERE id = ?`);
    // INDEXED BY: the partial indexes of waiting executions, unkeyed and keyed (held for their
    // flow-control key), whose predicates the conditions repeat.
    this.retrying = db.prepare<[{ limit: number }], { schedule: number; cron: number }>(
      `SELECT ${RETRYING_COUNTS.map(([as, jobType]) => `
         min(:limit, (SELECT count(*) FROM (SELECT 1 FROM executions INDEXED BY executions_waiting
            WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL AND status = 'Retrying' AND job_type = '${jobType}' LIMIT :limit))
           + (SELECT count(*) FROM (SELECT 1 FROM executions INDEXED BY executions_held
            WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NOT NULL AND status = 'Retrying' AND job_type = '${jobType}' LIMIT :limit))) AS ${as}`).join(',')}`,
    );
    this.attemptsOfOne = db.prepare<[string], execRows.AttemptRow>(
      `SELECT ${ATTEMPT_LIST} FROM execution_attempts WHERE execution_id = ? ORDER BY number`,
    );
    this.attemptsOf = db.prepare<[{ ids: string }], execRows.AttemptRow>(ATTEMPTS_OF_SQL);
    this.listFirst = db.prepare<[{ jobType: JobType; jobId: string; limit: number }], execRows.ExecutionRow>(LIST_FIRST_SQL);
    this.listAfter = db.prepare<
      [{ jobType: JobType; jobId: string; limit: number; sf: number; id: string }],
      execRows.ExecutionRow
    >(LIST_AFTER_SQL);

    this.startSchedule = db.prepare<[{ jobId: string }], { id: string }>(
      T.TRIGGER_START_SCHEDULE_SQL,
    );
    this.scheduleExists = db.prepare<[{ jobId: string }], { one: number }>(T.SCHEDULE_EXISTS_SQL);
    this.cronLast = db.prepare<[{ jobId: string }], execRows.LastExecutionRow>(T.TRIGGER_CRON_LAST_SQL);
    this.insertTriggered = db.prepare<[{ id: string; jobType: JobType; jobId: string; now: number; triggered: number }]>(T.TRIGGER_INSERT_SQL);
    this.countTrigger = db.prepare<[{ jobId: string; lastExecutionId: string }]>(T.TRIGGER_COUNT_CRON_SQL);
    this.triggerTx = db.transaction((p: { jobType: JobType; jobId: string; id: string; now: number }) =>
      this.triggerIn(p),
    );

    this.prunable = db.prepare<[{ before: number; limit: number }], { id: string }>(T.PRUNABLE_SQL);
    this.deleteAttempts = db.prepare<[string]>(
      'DELETE FROM execution_attempts WHERE execution_id IN (SELECT value FROM json_each(?))',
    );
    this.deleteExecutions = db.prepare<[string]>('DELETE FROM executions WHERE id IN (SELECT value FROM json_each(?))');
    this.pruneTx = db.transaction((before: number, limit: number): number => {
      const ids = this.prunable.all({ before, limit }).map((r) => r.id);
      if (ids.length === 0) return 0;
      const json = JSON.stringify(ids);
      this.deleteAttempts.run(json); // first: the attempts reference their execution
      return this.deleteExecutions.run(json).changes;
    });
  }

  /** Hands back the leases of `ids` held by `nodeId` (Store.leasesRelease), in one IMMEDIATE transaction. */
  release(nodeId: string, ids: readonly string[], now: number): void {
    if (ids.length > 0) this.releaseTx.immediate(nodeId, ids, now);
  }

  /**
   * Records a batch of outcomes in one IMMEDIATE transaction (one fsync for the batch), with the
   * auto-pause of their cron jobs (store/rules/outcome.ts).
   * @returns the cron jobs paused
   */
  finish(nodeId: string, outcomes: readonly AttemptOutcome[]): FinishResult {
    return outcomes.length > 0 ? this.finishTx.immediate(nodeId, outcomes) : { paused: [] };
  }

  /** The execution with its attempts (oldest first), or null. */
  get(id: string): Execution | null {
    const r = this.byId.get(id);
    return r ? execRows.executionFromRow(SQLITE_CODEC, r, this.attemptsOfOne.all(id).map(execRows.attemptFromRow)) : null;
  }

  /** Retrying executions, counted up to `limit` (Store.executionRetryingCount). */
  retryingCount(limit: number): { schedule: number; cron: number } {
    const { schedule, cron } = this.retrying.get({ limit: Math.max(1, Math.floor(limit)) })!;
    return { schedule, cron };
  }

  /** One page of a job's executions, newest first (see {@link LIST_FIRST_SQL}). */
  list(p: { jobType: JobType; jobId: string; limit: number; cursor: string | null }): {
    executions: Execution[];
    nextCursor: string | null;
  } {
    const limit = Math.max(1, Math.floor(p.limit)); // the HTTP layer allows 1–100
    const after = p.cursor === null ? null : decodeCursor(p.cursor);
    const q = { jobType: p.jobType, jobId: p.jobId, limit: limit + 1 };
    const rows = after === null ? this.listFirst.all(q) : this.listAfter.all({ ...q, sf: after.at, id: after.id });
    return execRows.executionPage(SQLITE_CODEC, rows, limit, (ids) => this.attemptsOf.all({ ids: JSON.stringify(ids) }));
  }

  /** See `Store.jobTrigger`. One IMMEDIATE transaction. */
  trigger(p: { jobType: JobType; jobId: string; id: string; now: number }): Execution | 'not_found' | 'not_pending' {
    return this.triggerTx.immediate({ ...p, now: Math.floor(p.now) });
  }

  /** See `Store.executionsPrune`. One IMMEDIATE transaction per call. */
  prune(before: number, limit: number): number {
    const n = Math.floor(limit);
    return n > 0 ? this.pruneTx.immediate(Math.floor(before), n) : 0;
  }

  /**
   * Applies the rule of store/rules/outcome.ts to a cron job and the outcomes of its executions this
   * batch finished (in order): its new `consecutive_failures` and, when the rule says, the pause.
   * @returns the pause made, or null (also for a job deleted meanwhile)
   */
  private settleCronJob(jobId: string, finished: readonly FinishedOutcome[]): AutoPause | null {
    const row = this.cronFailureState.get(jobId);
    if (!row) return null;
    const { consecutiveFailures, pause } = cronAfterFinished(
      { status: row.status, consecutiveFailures: row.consecutive_failures, pauseAfterFailures: row.pause_after_failures },
      finished,
    );
    this.settleCron.run({ id: jobId, failures: consecutiveFailures, reason: pause?.reason ?? null });
    return pause && { jobId, kind: pause.kind, reason: pause.reason };
  }

  /**
   * @param keyed the flow-control keys of the calls finished so far, each with the end of the
   *   latest hold their receivers asked (0: none)
   */
  private finishOutcome(
    nodeId: string,
    o: AttemptOutcome,
    notify: boolean,
    finishedCron: Map<string, FinishedOutcome[]>,
    keyed: Map<string, number>,
  ): void {
    // STRICT INTEGER columns: whole ms (outcomeTimes).
    const { startedAt, durationMs, retrying, finishedAt, nextAttemptAt } = execRows.outcomeTimes(o);
    const { executionId, attempt } = o;
    const e = this.finishOne.get(o.status, finishedAt, nextAttemptAt, attempt, startedAt, startedAt, executionId, nodeId, attempt);
    if (!e) return; // the lease was lost: the new holder decides
    const { statusCode = null, error = null, responseBody = null, method = 'POST', url = null, traceId = null, spanId = null, waitedMs = null } = o;
    this.insertAttempt.run(
      execRows.attemptToRow(executionId, { number: attempt, startedAt, durationMs, statusCode, error, responseBody, method, url, traceId, spanId, waitedMs }),
    );
    if (e.flow_control_key !== null) keyed.set(e.flow_control_key, Math.max(keyed.get(e.flow_control_key) ?? 0, o.flowControlHoldUntil ?? 0));
    if (retrying || o.status === 'Retrying') return;
    if (e.job_type === 'schedule') this.settleSchedule.run(o.status, e.job_id);
    if (notify) this.outbox.run({ id: executionId, job_type: e.job_type, job_id: e.job_id, status: o.status, finished_at: finishedAt, scheduled_for: e.scheduled_for });
    if (e.job_type === 'cron') {
      const list = finishedCron.get(e.job_id) ?? [];
      list.push({ status: o.status, gone: isGone(o) });
      finishedCron.set(e.job_id, list);
    }
  }

  private triggerIn(p: { jobType: JobType; jobId: string; id: string; now: number }): Execution | 'not_found' | 'not_pending' {
    const named = { ...p, triggered: 1 };
    if (p.jobType === 'schedule') {
      if (!this.startSchedule.get({ jobId: p.jobId })) return this.scheduleExists.get({ jobId: p.jobId }) ? 'not_pending' : 'not_found';
      this.insertTriggered.run(named);
    } else {
      const job = this.cronLast.get({ jobId: p.jobId });
      if (!job) return 'not_found';
      this.insertTriggered.run(named);
      this.countTrigger.run({ jobId: p.jobId, lastExecutionId: execRows.newestExecutionId(job, p.now, p.id) });
    }
    return this.get(p.id)!;
  }
}

/** The store operations of executions (../../sql-store.ts), on the statements of ExecutionQueries. */
export const executionOperations = {
  executionsFinish: (q, p) => q.executions.finish(p.nodeId, p.outcomes),
  leasesRelease: (q, p) => { q.executions.release(p.nodeId, p.executionIds, Math.floor(p.now)); },
  executionGet: (q, p) => q.executions.get(p.id),
  executionRetryingCount: (q, p) => q.executions.retryingCount(p.limit),
  executionList: (q, p) => q.executions.list(p),
  jobTrigger: (q, p) => q.executions.trigger(p),
  executionsPrune: (q, p) => q.executions.prune(p.before, p.limit),
} satisfies Partial<Operations<{ executions: ExecutionQueries }>>;
