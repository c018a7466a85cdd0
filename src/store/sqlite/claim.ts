/*
 * The claim: how due work leaves the database for the dispatcher. Read this before changing it.
 *
 * What is due at `now` comes from three sources, each read through its own partial index
 * (see migrations.ts), so each read is one B-tree descent plus the rows returned, whatever the
 * number of finished jobs:
 *   schedule  Pending schedules with scheduled_at <= now        (schedules_pending_due)
 *   cron      Active cron jobs with next_invocation <= now       (cron_jobs_active_due)
 *   lease     Running executions with lease_expires_at <= now    (executions_running_lease)
 *             — their node died or stalled; the work is leased again, attempt + 1.
 *
 * CANDIDATES_SQL takes at most `limit` rows from each source (index order, so it never sorts a
 * whole table), merges them and keeps the `limit` earliest by due instant. The due instant of a
 * lease is its expiry, the moment it became claimable again, the same instant nextDueAt reports.
 *
 * Why one IMMEDIATE transaction and no SKIP LOCKED: SQLite has one writer at a time. BEGIN
 * IMMEDIATE takes the write lock *before* reading the candidates, so no other connection (another
 * process on the same file) can claim the same rows between our read and our write; a second
 * claimer waits on busy_timeout and then sees the rows already Running / advanced. A deferred
 * transaction would read under a shared lock and could fail with SQLITE_BUSY on upgrade instead
 * of waiting. (PostgreSQL, issue #4, needs FOR UPDATE SKIP LOCKED instead; this file is SQLite's.)
 *
 * Why "select candidates, then update each row" rather than one UPDATE … RETURNING per kind:
 * the limit and the earliest-first order span three tables, and a cron occurrence needs
 * `nextOccurrence` (JavaScript, the cron engine) between read and write. Inside the transaction
 * the per-row statements are prepared once and cheap: measured with 100,000 pending schedules,
 * claims of 1,000 cost 13 µs per item (≈ 75,000 items/s, one fsync per batch), and nextDueAt
 * ≈ 15 µs with 300,000 rows.
 *
 * Never twice: every execution row is INSERT … ON CONFLICT (job_type, job_id, scheduled_for)
 * DO NOTHING. A schedule leaves Pending and a cron job's next_invocation advances in the same
 * transaction that inserts the execution, so a second claim at the same `now` finds nothing;
 * should an occurrence be claimed again anyway (a clock set back, a cron job resumed onto an
 * instant that already ran) the insert is a no-op and nothing is returned for it.
 *
 * Never early: every comparison is `<= now`, with `now` chosen by the caller (the clock is
 * injected; issue #4 moves it into the database).
 *
 * Decisions:
 * - A cron job whose `nextOccurrence` returns null (no further occurrence), an instant not
 *   after `now` (a broken engine: the job would be due again at once, forever), or throws (one
 *   broken job must not stop every claim), is set Paused with next_invocation left at the
 *   occurrence just claimed; that occurrence still runs. The store's logger is told. Resuming
 *   the job (PATCH status Active) recomputes next_invocation.
 * - An expired lease whose job was deleted meanwhile is not leased again: the execution becomes
 *   Failed with error 'job deleted' (a deleted job never fires again). It is not counted in the
 *   returned items, so a claim may return fewer than `limit` while more is due; nextDueAt then
 *   reports a past instant and the dispatcher claims again at once.
 * - An expired lease of a cron job that is now Paused is leased again: the occurrence was
 *   claimed while Active and is owed at least once. The endpoint and data sent are the job's
 *   current ones (a schedule cannot change once claimed; a cron job's fix of its URL applies).
 */
import { newId } from '../../domain/ids.js';
import type { ClaimedExecution, JobType } from '../../domain/types.js';
import type { ClaimDueParams } from '../store.js';
import type { Db } from './connection.js';
import { CRON_COLUMNS, cronFromRow, type CronRow } from './cron-jobs.js';
import { objectFromColumn } from './json.js';

/** Up to `limit` due items across the three sources, earliest first. Bound: `:now`, `:limit`. */
export const CANDIDATES_SQL = `
SELECT kind, id, due FROM (
  SELECT 'schedule' AS kind, id, scheduled_at AS due FROM schedules
   WHERE status = 'Pending' AND scheduled_at <= :now ORDER BY scheduled_at LIMIT :limit)
UNION ALL
SELECT kind, id, due FROM (
  SELECT 'cron' AS kind, id, next_invocation AS due FROM cron_jobs
   WHERE status = 'Active' AND next_invocation <= :now ORDER BY next_invocation LIMIT :limit)
UNION ALL
SELECT kind, id, due FROM (
  SELECT 'lease' AS kind, id, lease_expires_at AS due FROM executions
   WHERE status = 'Running' AND lease_expires_at <= :now ORDER BY lease_expires_at LIMIT :limit)
ORDER BY due, kind, id
LIMIT :limit`;

/**
 * The earliest due instant of each source: three scalar subqueries, each reading the first entry
 * of its partial index (ORDER BY … LIMIT 1 on the indexed column: O(log n), no scan, no sort —
 * checked with EXPLAIN QUERY PLAN in test/store/sqlite.test.ts).
 */
export const NEXT_DUE_SQL = `
SELECT
  (SELECT scheduled_at FROM schedules WHERE status = 'Pending' ORDER BY scheduled_at LIMIT 1) AS schedule_due,
  (SELECT next_invocation FROM cron_jobs WHERE status = 'Active' ORDER BY next_invocation LIMIT 1) AS cron_due,
  (SELECT lease_expires_at FROM executions WHERE status = 'Running' ORDER BY lease_expires_at LIMIT 1) AS lease_due`;

interface Candidate {
  kind: 'schedule' | 'cron' | 'lease';
  id: string;
  due: number;
}

interface ExpiredRow {
  id: string;
  job_type: JobType;
  job_id: string;
  scheduled_for: number;
  endpoint: string | null;
  data: string | null;
  job_exists: number;
}

/** What a claim did: the work leased, and the cron jobs it paused (for the log). */
export interface ClaimResult {
  claimed: ClaimedExecution[];
  /** Cron jobs set Paused because they had no occurrence after `now` (`error`: the engine threw). */
  paused: { id: string; next: number | null; error?: unknown }[];
}

/** The claim and the next-due query, prepared once. */
export class ClaimQueries {
  private readonly candidates;
  private readonly nextDue;
  private readonly startSchedule;
  private readonly insertExecution;
  private readonly dueCron;
  private readonly advanceCron;
  private readonly expired;
  private readonly relet;
  private readonly failDeleted;
  private readonly claimTx;

  constructor(db: Db) {
    this.candidates = db.prepare<[{ now: number; limit: number }], Candidate>(CANDIDATES_SQL);
    this.nextDue = db.prepare<[], { schedule_due: number | null; cron_due: number | null; lease_due: number | null }>(
      NEXT_DUE_SQL,
    );
    this.startSchedule = db.prepare<[string], { endpoint: string; data: string | null; scheduled_at: number }>(
      `UPDATE schedules SET status = 'Running' WHERE id = ? AND status = 'Pending'
       RETURNING endpoint, data, scheduled_at`,
    );
    this.insertExecution = db.prepare<[object], { id: string }>(
      `INSERT INTO executions (id, job_type, job_id, scheduled_for, status, attempt, created_at, lease_owner, lease_expires_at)
       VALUES (:id, :jobType, :jobId, :scheduledFor, 'Running', 1, :now, :nodeId, :leaseExpiresAt)
       ON CONFLICT (job_type, job_id, scheduled_for) DO NOTHING
       RETURNING id`,
    );
    this.dueCron = db.prepare<[string, number], CronRow>(
      `SELECT ${CRON_COLUMNS} FROM cron_jobs WHERE id = ? AND status = 'Active' AND next_invocation <= ?`,
    );
    this.advanceCron = db.prepare<[object]>(
      `UPDATE cron_jobs SET next_invocation = :next, status = :status, invocations = invocations + :added
       WHERE id = :id`,
    );
    this.expired = db.prepare<[string, number], ExpiredRow>(
      `SELECT e.id, e.job_type, e.job_id, e.scheduled_for,
              coalesce(s.endpoint, c.endpoint) AS endpoint,
              coalesce(s.data, c.data) AS data,
              (s.id IS NOT NULL OR c.id IS NOT NULL) AS job_exists
         FROM executions e
         LEFT JOIN schedules s ON e.job_type = 'schedule' AND s.id = e.job_id
         LEFT JOIN cron_jobs c ON e.job_type = 'cron' AND c.id = e.job_id
        WHERE e.id = ? AND e.status = 'Running' AND e.lease_expires_at <= ?`,
    );
    this.relet = db.prepare<[object], { attempt: number }>(
      `UPDATE executions SET attempt = attempt + 1, lease_owner = :nodeId, lease_expires_at = :leaseExpiresAt
       WHERE id = :id RETURNING attempt`,
    );
    this.failDeleted = db.prepare<[object]>(
      `UPDATE executions SET status = 'Failed', finished_at = :now, last_error = 'job deleted', lease_expires_at = NULL
       WHERE id = :id`,
    );
    this.claimTx = db.transaction((p: ClaimDueParams, limit: number) => this.claimIn(p, limit));
  }

  /** Claims due work in one IMMEDIATE transaction (see the comment at the top of this file). */
  claim(p: ClaimDueParams): ClaimResult {
    const limit = Math.floor(p.limit);
    if (!(limit > 0)) return { claimed: [], paused: [] };
    return this.claimTx.immediate(p, limit);
  }

  /** Earliest instant at which {@link claim} could return something, or null. */
  nextDueAt(): number | null {
    const r = this.nextDue.get();
    const dues = [r?.schedule_due, r?.cron_due, r?.lease_due].filter((v): v is number => typeof v === 'number');
    return dues.length === 0 ? null : Math.min(...dues);
  }

  private claimIn(p: ClaimDueParams, limit: number): ClaimResult {
    // STRICT INTEGER columns: instants are whole ms. Flooring `now` can only make work due later.
    const now = Math.floor(p.now);
    const nodeId = p.nodeId;
    const leaseExpiresAt = now + Math.ceil(p.leaseMs);
    const result: ClaimResult = { claimed: [], paused: [] };
    for (const c of this.candidates.all({ now, limit })) {
      const item =
        c.kind === 'schedule'
          ? this.claimSchedule(c.id, now, nodeId, leaseExpiresAt)
          : c.kind === 'cron'
            ? this.claimCron(c.id, p, now, leaseExpiresAt, result.paused)
            : this.reclaimLease(c.id, now, nodeId, leaseExpiresAt);
      if (item) result.claimed.push(item);
    }
    return result;
  }

  private claimSchedule(id: string, now: number, nodeId: string, leaseExpiresAt: number): ClaimedExecution | null {
    const s = this.startSchedule.get(id);
    if (!s) return null;
    const executionId = this.insertOccurrence('schedule', id, s.scheduled_at, now, nodeId, leaseExpiresAt);
    // No execution inserted: this occurrence already has one, which owns the schedule's status.
    // Unreachable through the Store contract (a schedule leaves Pending exactly when its execution
    // is inserted, and only a Pending schedule can be patched), kept harmless on purpose.
    if (!executionId) return null;
    return {
      executionId,
      jobType: 'schedule',
      jobId: id,
      scheduledFor: s.scheduled_at,
      attempt: 1,
      endpoint: s.endpoint,
      data: objectFromColumn(s.data),
      leaseExpiresAt,
    };
  }

  private claimCron(
    id: string,
    p: ClaimDueParams,
    now: number,
    leaseExpiresAt: number,
    paused: ClaimResult['paused'],
  ): ClaimedExecution | null {
    const row = this.dueCron.get(id, now);
    if (!row) return null;
    const job = cronFromRow(row);
    const occurrence = job.nextInvocation;
    const executionId = this.insertOccurrence('cron', id, occurrence, now, p.nodeId, leaseExpiresAt);
    let next: number | null = null;
    let error: unknown;
    try {
      next = p.nextOccurrence(job, now);
    } catch (err) {
      error = err; // one broken job must not stop every claim: it is paused like a finished one
    }
    if (next !== null) next = Math.ceil(next); // whole ms, rounded up: never early
    const advances = next !== null && next > now;
    if (!advances) paused.push({ id, next, ...(error !== undefined && { error }) });
    this.advanceCron.run({
      id,
      next: advances ? next : occurrence,
      status: advances ? 'Active' : 'Paused',
      added: executionId ? 1 : 0,
    });
    if (!executionId) return null;
    return {
      executionId,
      jobType: 'cron',
      jobId: id,
      scheduledFor: occurrence,
      attempt: 1,
      endpoint: job.endpoint,
      data: job.data ?? {},
      leaseExpiresAt,
    };
  }

  private reclaimLease(id: string, now: number, nodeId: string, leaseExpiresAt: number): ClaimedExecution | null {
    const e = this.expired.get(id, now);
    if (!e) return null;
    if (!e.job_exists || e.endpoint === null) {
      this.failDeleted.run({ id, now });
      return null;
    }
    const { attempt } = this.relet.get({ id, nodeId, leaseExpiresAt })!;
    return {
      executionId: id,
      jobType: e.job_type,
      jobId: e.job_id,
      scheduledFor: e.scheduled_for,
      attempt,
      endpoint: e.endpoint,
      data: objectFromColumn(e.data),
      leaseExpiresAt,
    };
  }

  /** Inserts the execution of one occurrence; returns its id, or null when it already existed. */
  private insertOccurrence(
    jobType: JobType,
    jobId: string,
    scheduledFor: number,
    now: number,
    nodeId: string,
    leaseExpiresAt: number,
  ): string | null {
    const r = this.insertExecution.get({ id: newId(), jobType, jobId, scheduledFor, now, nodeId, leaseExpiresAt });
    return r ? r.id : null;
  }
}
