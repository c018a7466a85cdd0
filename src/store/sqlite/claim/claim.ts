/*
 * The claim: how due work leaves the database for the dispatcher. Read this before changing it.
 *
 * What is due at `now` comes from four sources, each read through its own partial index
 * (see store/sqlite/migrations/index.ts), so each read is one B-tree descent plus the rows returned, whatever the
 * number of finished jobs and executions:
 *   schedule  Pending schedules with scheduled_at <= now                  (schedules_pending_due)
 *   cron      Active cron jobs with next_invocation <= now                 (cron_jobs_active_due)
 *   waiting   Pending/Retrying executions with next_attempt_at <= now      (executions_waiting)
 *             — a retry after its backoff, a triggered run, a backlog occurrence of misfire `all`.
 *   lease     Running executions with lease_expires_at <= now              (executions_running_lease)
 *             — their node died or stalled; the work is leased again, attempt + 1.
 *
 * CANDIDATES_SQL takes at most `limit` rows from each source (index order, so it never sorts a
 * whole table), merges them and keeps the `limit` earliest by due instant. The due instant of a
 * lease is its expiry, the moment it became claimable again, the same instant nextDueAt reports.
 * Candidates are then handled in that order until `limit` items are claimed (a cron job with
 * misfire `all` can yield several items; a candidate that yields nothing, e.g. a Skipped
 * occurrence or a deleted job's execution, uses no room).
 *
 * Every lease runs to now + the job's timeoutMs + p.leaseMs. What a claim decides (misfire,
 * overlap, leases, a broken cron engine, the job's advance, the newest execution) is the
 * rulebook's, src/store/rules/claim.ts, shared with PostgreSQL; this file is the SQL around it.
 *
 * Why one IMMEDIATE transaction and no SKIP LOCKED: SQLite has one writer at a time. BEGIN
 * IMMEDIATE takes the write lock *before* reading the candidates, so no other connection (another
 * process on the same file) can claim the same rows between our read and our write; a second
 * claimer waits on busy_timeout and then sees the rows already Running / advanced. A deferred
 * transaction would read under a shared lock and could fail with SQLITE_BUSY on upgrade instead
 * of waiting. (PostgreSQL needs FOR UPDATE SKIP LOCKED instead: store/postgres/claim/claim.ts; this file is SQLite's.)
 *
 * Why "select candidates, then update each row" rather than one UPDATE … RETURNING per kind:
 * the limit and the earliest-first order span three tables, and a cron occurrence needs the
 * cron engine (JavaScript, through store/rules/claim.ts) between read and write. Inside the transaction
 * the per-row statements are prepared once and cheap (figures: test/store/burst.bench.ts).
 *
 * Never twice: every occurrence's execution is INSERT … ON CONFLICT (job_type, job_id,
 * scheduled_for) WHERE triggered = 0 DO NOTHING (the partial unique index executions_occurrence;
 * triggered executions are outside it, so two triggers in one millisecond are two executions). A
 * schedule leaves Pending and a cron job's next_invocation advances in the same transaction that
 * inserts the execution, so a second claim at the same `now` finds nothing; should an occurrence
 * be claimed again anyway (a clock set back, a cron job resumed onto an instant that already ran)
 * the insert is a no-op and nothing is returned for it.
 *
 * Never early: every comparison is `<= now`, with `now` chosen by the caller (the clock is
 * injected; PostgreSQL's production store uses the database's clock instead), and every instant
 * from the cron engine is rounded up to the whole ms. A claim that looks ahead (`aheadMs`)
 * compares schedules, cron jobs and waiting executions with `dueBy` instead, and marks each item
 * not yet due with `notBefore` (store/rules/claim.ts, "Claiming ahead"): the caller holds it until then.
 *
 * Decisions about existing executions:
 * - A waiting execution or an expired lease whose job was deleted meanwhile is not leased again:
 *   the execution becomes Failed with error 'job deleted' (a deleted job never fires again). It
 *   is not counted in the returned items, so a claim may return fewer than `limit` while more is
 *   due; nextDueAt then reports a past instant and the dispatcher claims again at once.
 * - A waiting execution or an expired lease of a cron job that is now Paused is leased again: the
 *   occurrence was created while Active (or by a trigger) and is owed. The endpoint, data, retry
 *   policy and timeout sent are the job's current ones (a schedule cannot change once claimed; a
 *   cron job's fix of its URL applies to its retries).
 * - A waiting backfilled execution of a cron job with overlap `skip` that must wait its turn
 *   (`backfill_blocked`, store/rules/backfill.ts "Pacing") is not leased: it is put back
 *   BACKFILL_RECHECK_MS ahead (the finish of the execution before it makes it due sooner).
 * - started_at (the first attempt's start, hence lateMs) is set when attempt 1 is claimed, and
 *   replaced by attempt 1's own startedAt when its outcome is recorded (executions.ts). So a
 *   first attempt whose node died still leaves its start, and a retry never overwrites it.
 */
import { cronJobNext } from '../../../cron/index.js';
import { newId } from '../../../domain/ids.js';
import type { JobType, MissedOccurrences } from '../../../domain/types.js';
import {
  afterInsert,
  attemptStart,
  claimClock,
  cronAdvance,
  leaseExpiry,
  newerExecution,
  occurrenceDelay,
  occurrenceDue,
  occurrenceStatus,
  overlapStart,
  pausedEntry,
  planCron,
  CLAIM_READS_MAX,
  sourceRoom,
  sourceStatus,
  type ClaimClock,
  type ClaimResult,
  type ExecutionKey,
  type OccurrenceStatus,
} from '../../rules/claim.js';
import { BACKFILL_RECHECK_MS } from '../../rules/backfill.js';
import { executionWithJobSql, occurrenceItem, pushClaimed, reletItem, startedSchedule, type ReletRow, type StartedScheduleRow } from '../../sql/claim.js';
import { columnList, REQUEST_COLUMNS, RETRY_COLUMNS } from '../../rows/jobs.js';
import { missedToRow } from '../../rows/executions.js';
import type { ClaimDueParams, DueCounts } from '../../store.js';
import { HeldQueries } from './held.js';
import { COUNT_START_SQL } from '../../sql/flow-control.js';
import { CANDIDATES_SQL, DUE_COUNT_SQL, IN_PROGRESS_SQL, NEXT_DUE_SQL } from './sql.js';
import type { Db } from '../connection.js';
import { CRON_SELECT, cronFromRow, type CronRow } from '../queries/cron-jobs.js';
import { SQLITE_CODEC } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** An existing execution with what is needed to call its job now (see executionWithJobSql). */
const EXECUTION_WITH_JOB = executionWithJobSql('executions e');

interface Candidate {
  kind: 'schedule' | 'cron' | 'waiting' | 'lease';
  id: string;
  due: number;
}

/** A waiting or expired execution as the claim reads it before leasing it again. */
interface ExistingRow extends ReletRow {
  /** NULL when its job is gone (then it fails at the claim). */
  endpoint: string | null;
  job_exists: number;
  /** 1: a backfilled execution that must wait its turn (store/rules/backfill.ts). */
  backfill_blocked: number;
}

/** Columns of one new execution row (see {@link ClaimQueries.insertExecution}). */
interface NewExecution {
  id: string;
  jobType: JobType;
  jobId: string;
  scheduledFor: number;
  /** A schedule's `due_at`, or a jittered occurrence's; null (meaning `scheduledFor`) for other cron occurrences. */
  dueAt: number | null;
  status: OccurrenceStatus;
  attempt: number;
  now: number;
  startedAt: number | null;
  finishedAt: number | null;
  nextAttemptAt: number | null;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** The `missed_*` columns ({@link missedToRow}). */
  missed_count: number | null;
  missed_first: number | null;
  missed_last: number | null;
  missed_capped: unknown;
  /** The job's flow-control key, null: none. */
  flowControlKey: string | null;
}

export type { ClaimResult } from '../../rules/claim.js';

/** The state of one claim transaction. */
interface Claim extends ClaimClock {
  p: ClaimDueParams;
  /** Items still allowed (`limit` minus those claimed). */
  room: number;
  result: ClaimResult;
}

/** The claim and the next-due query, prepared once. */
export class ClaimQueries {
  private readonly candidates;
  private readonly nextDue;
  private readonly dueCounts;
  private readonly startSchedule;
  private readonly insertExecution;
  private readonly dueCron;
  private readonly inProgress;
  private readonly advanceCron;
  private readonly waiting;
  private readonly expired;
  private readonly relet;
  private readonly failDeleted;
  private readonly deferBackfill;
  private readonly claimTx;
  private readonly held;
  private readonly countStart;

  constructor(db: Db) {
    this.candidates = db.prepare<[{ now: number; dueBy: number; limit: number }], Candidate>(CANDIDATES_SQL);
    this.nextDue = db.prepare<
      [],
      { schedule_due: number | null; cron_due: number | null; waiting_due: number | null; lease_due: number | null }
    >(NEXT_DUE_SQL);
    this.dueCounts = db.prepare<[{ now: number; limit: number }], DueCounts>(DUE_COUNT_SQL);
    this.startSchedule = db.prepare<[string], StartedScheduleRow & { flow_control_key: string | null }>(
      `UPDATE schedules SET status = 'Running' WHERE id = ? AND status = 'Pending'
       RETURNING endpoint, data, scheduled_at, coalesce(due_at, scheduled_at) AS due_at, ${columnList(RETRY_COLUMNS)},
         timeout_ms, success_statuses, ${columnList(REQUEST_COLUMNS)}, flow_control_key`,
    );
    this.insertExecution = db.prepare<[NewExecution], { id: string }>(
      `INSERT INTO executions (id, job_type, job_id, scheduled_for, due_at, triggered, status, attempt, created_at,
         started_at, finished_at, next_attempt_at, lease_owner, lease_expires_at,
         missed_count, missed_first, missed_last, missed_capped, flow_control_key)
       VALUES (:id, :jobType, :jobId, :scheduledFor, :dueAt, 0, :status, :attempt, :now,
         :startedAt, :finishedAt, :nextAttemptAt, :leaseOwner, :leaseExpiresAt,
         :missed_count, :missed_first, :missed_last, :missed_capped, :flowControlKey)
       ON CONFLICT (job_type, job_id, scheduled_for) WHERE triggered = 0 DO NOTHING
       RETURNING id`,
    );
    this.dueCron = db.prepare<[string, number], CronRow>(
      `${CRON_SELECT} WHERE c.id = ? AND c.status = 'Active' AND c.next_invocation <= ?`,
    );
    this.inProgress = db.prepare<[string], { one: number }>(IN_PROGRESS_SQL);
    this.advanceCron = db.prepare<[object]>(
      `UPDATE cron_jobs SET next_invocation = :next, status = :status, invocations = invocations + :added,
         skipped_occurrences = skipped_occurrences + :skipped, last_execution_id = :lastExecutionId
       WHERE id = :id`,
    );
    this.waiting = db.prepare<[string, number], ExistingRow>(
      `${EXECUTION_WITH_JOB} WHERE e.id = ? AND e.status IN ('Pending', 'Retrying') AND e.next_attempt_at <= ?`,
    );
    this.expired = db.prepare<[string, number], ExistingRow>(
      `${EXECUTION_WITH_JOB} WHERE e.id = ? AND e.status = 'Running' AND e.lease_expires_at <= ?`,
    );
    // started_at: kept when set (the claim of attempt 1 set it); a triggered or backlog execution
    // gets it now (attemptStart: its due instant if claimed ahead), at its first attempt.
    this.relet = db.prepare<[object], { attempt: number }>(
      `UPDATE executions SET status = 'Running', attempt = attempt + 1, started_at = coalesce(started_at, :startedAt),
         next_attempt_at = NULL, lease_owner = :nodeId, lease_expires_at = :leaseExpiresAt
       WHERE id = :id RETURNING attempt`,
    );
    this.failDeleted = db.prepare<[object]>(
      `UPDATE executions SET status = 'Failed', finished_at = :now, error = 'job deleted',
         next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL
       WHERE id = :id`,
    );
    this.deferBackfill = db.prepare<[{ id: string; at: number }]>('UPDATE executions SET next_attempt_at = :at WHERE id = :id');
    this.held = new HeldQueries(db);
    this.countStart = db.prepare<[{ key: string; now: number }]>(COUNT_START_SQL);
    this.claimTx = db.transaction((c: Claim) => this.claimIn(c));
  }

  /** Claims due work in one IMMEDIATE transaction (see the comment at the top of this file). */
  claim(p: ClaimDueParams): ClaimResult {
    const limit = Math.floor(p.limit);
    const result: ClaimResult = { claimed: [], paused: [], skippedOccurrences: 0 };
    if (!(limit > 0)) return result;
    // STRICT INTEGER columns: instants are whole ms (claimClock floors `now`).
    this.claimTx.immediate({ p, ...claimClock(p), room: limit, result });
    return result;
  }

  /** Earliest instant at which {@link claim} could return something, or null. */
  nextDueAt(): number | null {
    const r = this.nextDue.get();
    let min: number | null = null;
    for (const v of [r?.schedule_due, r?.cron_due, r?.waiting_due, r?.lease_due, this.held.nextDueAt()]) {
      if (typeof v === 'number' && (min === null || v < min)) min = v;
    }
    return min;
  }

  /** Due, unclaimed work per source at `now`, each count at most `limit` (see Store.dueCount). */
  dueCount(now: number, limit: number): DueCounts {
    return this.dueCounts.get({ now: Math.floor(now), limit: Math.max(1, Math.floor(limit)) })!;
  }

  private claimIn(c: Claim): void {
    for (let read = 0; read < CLAIM_READS_MAX && c.room > 0; read++) {
      const limit = c.room;
      const candidates = this.candidates.all({ now: c.now, dueBy: c.dueBy, limit });
      for (const cand of candidates) {
        if (c.room <= 0) break; // a cron job with misfire `all` may have used the room up
        if (cand.kind === 'schedule') this.claimSchedule(c, cand.id);
        else if (cand.kind === 'cron') this.claimCron(c, cand.id);
        else this.claimExisting(c, cand);
      }
      if (candidates.length < limit) break; // nothing more is due (CLAIM_READS_MAX: why read again)
    }
    // The calls waiting for their flow-control key, with the room left (held.ts).
    this.held.claim(c, (id, due) => this.claimExisting(c, { kind: 'waiting', id, due }));
  }

  private claimSchedule(c: Claim, id: string): void {
    const s = this.startSchedule.get(id);
    if (!s) return;
    const leaseExpiresAt = leaseExpiry(c, s.timeout_ms);
    const status = sourceStatus(s.flow_control_key);
    const executionId = this.insert(c, 'schedule', id, s.scheduled_at, status, leaseExpiresAt, null, s.due_at, s.due_at, s.flow_control_key);
    if (status === 'Pending') return; // it waits for its key (held.ts takes it)
    // No execution inserted: this occurrence already has one, which owns the schedule's status.
    // Unreachable through the Store contract (a schedule leaves Pending exactly when its execution
    // is inserted, and only a Pending schedule can be patched), kept harmless on purpose.
    if (!executionId) return;
    pushClaimed(c, startedSchedule(SQLITE_CODEC, c, id, executionId, s));
  }

  /** One due cron job: its occurrences, statuses and advance by the rules of store/rules/claim.ts. */
  private claimCron(c: Claim, id: string): void {
    const row = this.dueCron.get(id, c.dueBy);
    if (!row) return;
    const job = cronFromRow(row);
    const plan = planCron(job, c.now, c.p.misfireThresholdMs, cronJobNext);
    const paused = pausedEntry(id, plan);
    if (paused) c.result.paused.push(paused);

    let overlap = overlapStart(plan, job.overlap, () => this.inProgress.get(id) !== undefined);
    let added = 0;
    let newest: ExecutionKey | null =
      row.last_execution_id === null ? null : { scheduledFor: row.last_invocation ?? -Infinity, id: row.last_execution_id };
    for (const o of plan.occurrences) {
      const delay = occurrenceDelay(job, o);
      const status = occurrenceStatus(overlap, sourceRoom(job.flowControlKey, c.room), delay);
      const leaseExpiresAt = status === 'Running' ? leaseExpiry(c, job.timeoutMs) : null;
      // Only a plan of one occurrence (misfire `once`) stands for others: plan.missed is its.
      const due = occurrenceDue(o, status, delay);
      const executionId = this.insert(c, 'cron', id, o, status, leaseExpiresAt, plan.missed, due.dueAt, due.nextAttemptAt, job.flowControlKey);
      if (!executionId) continue; // that occurrence already has its execution
      added++;
      newest = newerExecution(newest, { scheduledFor: o, id: executionId });
      overlap = afterInsert(overlap, status);
      if (status === 'Running') {
        pushClaimed(c, occurrenceItem(c, job, executionId, o, leaseExpiresAt!, plan.missed));
      }
    }
    const advance = cronAdvance(plan, added, job.nextInvocation);
    this.advanceCron.run({
      id,
      next: advance.nextInvocation,
      status: advance.status,
      added: advance.invocationsAdded,
      skipped: advance.skippedAdded,
      lastExecutionId: newest?.id ?? null,
    });
    c.result.skippedOccurrences += advance.skippedAdded;
  }

  /** An execution waiting for its next attempt, or whose lease expired: leased again. */
  private claimExisting(c: Claim, { id, kind, due }: Candidate): void {
    const e = kind === 'waiting' ? this.waiting.get(id, c.dueBy) : this.expired.get(id, c.now);
    if (!e) return;
    if (!e.job_exists || e.endpoint === null) {
      this.failDeleted.run({ id, now: c.now });
      return;
    }
    if (e.backfill_blocked) {
      this.deferBackfill.run({ id, at: c.now + BACKFILL_RECHECK_MS }); // its turn comes (store/rules/backfill.ts)
      return;
    }
    const leaseExpiresAt = leaseExpiry(c, e.timeout_ms);
    const startedAt = attemptStart(c, due);
    const { attempt } = this.relet.get({ id, startedAt, nodeId: c.p.nodeId, leaseExpiresAt })!;
    pushClaimed(c, reletItem(SQLITE_CODEC, c, e, e.endpoint, due, attempt, leaseExpiresAt));
    // A keyed call leased again keeps its slot; its start still counts against its key's rate.
    if (kind === 'lease' && e.flow_control_key !== null) this.countStart.run({ key: e.flow_control_key, now: c.now });
  }


  /**
   * Inserts the execution of one occurrence, `Running` (attempt 1, leased, started now),
   * `Pending` (due at `nextAttemptAt`, else its occurrence, for a later claim) or `Skipped`
   * (finished now), with the occurrences it stands for (`missed`, null for itself only).
   * @param dueAt the `due_at` column: a schedule's, or a jittered occurrence's (store/rules/claim-occurrences.ts)
   * @returns its id, or null when that occurrence already had an execution
   */
  private insert(
    c: Claim,
    jobType: JobType,
    jobId: string,
    scheduledFor: number,
    status: NewExecution['status'],
    leaseExpiresAt: number | null,
    missed: MissedOccurrences | null,
    dueAt: number | null = null,
    nextAttemptAt: number | null = null,
    flowControlKey: string | null = null,
  ): string | null {
    const running = status === 'Running';
    const r = this.insertExecution.get({
      id: newId(),
      jobType,
      jobId,
      scheduledFor,
      dueAt,
      status,
      attempt: running ? 1 : 0,
      now: c.now,
      startedAt: running ? attemptStart(c, scheduledFor) : null,
      finishedAt: status === 'Skipped' ? c.now : null,
      nextAttemptAt: status === 'Pending' ? (nextAttemptAt ?? scheduledFor) : null,
      leaseOwner: running ? c.p.nodeId : null,
      leaseExpiresAt: running ? leaseExpiresAt : null,
      ...missedToRow(SQLITE_CODEC, missed),
      flowControlKey,
    });
    return r ? r.id : null;
  }
}

/** The store operations of the claim and the backlog (../../sql-store.ts), on the statements of ClaimQueries. */
export const claimOperations = {
  claimDue: (q, p) => q.claim.claim(p),
  nextDueAt: (q) => q.claim.nextDueAt(),
  dueCount: (q, p) => q.claim.dueCount(p.now, p.limit),
} satisfies Partial<Operations<{ claim: ClaimQueries }>>;
