/*
 * The PostgreSQL claim: how due work leaves the database when several nodes claim at once. Read
 * this before changing it. The rules of *what* a claim does (misfire, overlap, leases, a broken
 * cron engine, the job's advance, the newest execution) are the rulebook's, src/store/claim-rules.ts,
 * shared with SQLite (whose claim.ts explains the four sources and deleted jobs), and one
 * conformance suite holds both stores to them; this file is about doing it safely and fast with
 * many concurrent claimers.
 *
 * One transaction (READ COMMITTED), in this order:
 *
 * 1. CANDIDATES (one statement). Each of the four sources is read through its partial index
 *    (migrations.ts), `ORDER BY due LIMIT room FOR UPDATE SKIP LOCKED`:
 *      schedule  Pending schedules, scheduled_at <= now             (schedules_pending_due)
 *      cron      Active cron jobs, next_invocation <= now            (cron_jobs_active_due)
 *      waiting   Pending/Retrying executions, next_attempt_at <= now (executions_waiting)
 *      lease     Running executions, lease_expires_at <= now         (executions_running_lease)
 *    then the rows are merged and the `limit` earliest kept (ties: kind, then id, as in SQLite).
 *    SKIP LOCKED is what lets any number of nodes claim at once without waiting for each other
 *    and without taking an item twice: a row another claimer has locked is passed over, and the
 *    index walk goes on to the next row, so concurrent claimers get disjoint batches. Each source
 *    locks in index order, then the locking node re-checks the row's newest version (READ
 *    COMMITTED's EvalPlanQual): a row another node claimed and committed after our snapshot no
 *    longer matches `status = 'Pending'` (or `<= now`) and is dropped. So every row this
 *    statement returns is locked by us and still due, until COMMIT.
 *    A row locked by a source but not among the `limit` kept (up to 3 × limit when every source
 *    has work) stays locked until COMMIT, so other claimers skip it meanwhile; the next claim
 *    takes it. That costs a little fairness of order across nodes, never an item.
 *
 * 2. The writes, in candidate order, batched (the round trip is the cost on PostgreSQL, not the
 *    row): a run of consecutive schedule/waiting/lease candidates becomes one statement per kind
 *    (`unnest` of the ids): schedules go Pending → Running and get their executions (INSERT …
 *    SELECT, ON CONFLICT (occurrence) DO NOTHING); waiting and expired executions are leased again
 *    with attempt + 1 (or Failed 'job deleted'). A cron job is one statement of its own (insert its
 *    occurrences, advance it), after one statement that read all the due cron rows of the claim.
 *    Room (`limit` minus items claimed) is counted exactly as SQLite counts it — a run is cut at
 *    the room left, and a cron job with misfire `all` consumes room as it creates Running items —
 *    so both stores return the same items for the same data.
 *
 * 3. COMMIT. The executions, the leases, the advanced cron jobs become visible at once; the row
 *    locks and the advisory lock below are released.
 *
 * Never twice, even without the locks: every occurrence's execution is inserted ON CONFLICT
 * (job_type, job_id, scheduled_for) WHERE NOT triggered DO NOTHING (executions_occurrence), and a
 * schedule leaves Pending / a cron job advances in the transaction that inserts the execution.
 *
 * Never early, whatever the nodes' clocks. With `clock: 'database'` (production),
 * `now` is the database's clock, read once by the candidates statement as
 * floor(extract(epoch FROM clock_timestamp()) * 1000) and used for everything in the claim: the
 * due comparisons, the misfire rule, started_at, the lease expiry (compared by other nodes with
 * the same clock). `p.now` is ignored: a node whose clock runs 5 s ahead claims nothing that the
 * database does not consider due (test/store/postgres.test.ts). With `clock: 'caller'` (the
 * conformance suite), `p.now` decides, as in SQLite.
 *
 * Once per cluster: re-leasing expired leases (source 4) is guarded by
 * pg_try_advisory_xact_lock on this schema's "reclaim" key, taken only when an expired lease is
 * found (the lock call sits in that source's filter, which runs only on rows the index returns).
 * SKIP LOCKED already makes the re-lease row-safe; the advisory lock makes it a duty of one
 * claimer at a time, not of every node: when a node dies with hundreds of leases, one node's claim takes them over per
 * round instead of every node scanning and contending for them. A claimer that does not get the
 * lock skips that source for this claim only (it never waits), and the lock ends with the
 * transaction, so a claimer that dies cannot keep it. A lease row would need its own expiry; the
 * transaction-scoped advisory lock needs nothing.
 *
 * Measured (test/store/burst-postgres.bench.ts: 100,000 schedules due at one instant, batches of
 * 256, clock 'database', PostgreSQL 15 on 127.0.0.1, synchronous_commit on; a 2-core machine
 * shared with other test runs, load average 4–6, so take the spread as the error bar):
 *   one claimer       68–115 µs per claimed item; outcomes 54–60 µs each
 *   three claimers    46–67 µs per item (cluster throughput); outcomes 28–40 µs each
 *   a round trip (SELECT 1) 200–300 µs; SQLite on the same machine at the same time: 22 µs per
 *   claimed item, 9–11 µs per outcome (burst.bench.ts).
 * Per batch of 256 the four statements of a claim of schedules cost ~1 ms of round trips; the rest is the row
 * work: the schedule's UPDATE (non-HOT: status is in a partial index's predicate) and the
 * execution's INSERT (heap + 4 B-trees, speculative insertion for ON CONFLICT), ~9 WAL records
 * per item. Per-row statements, as SQLite runs them (~1 µs each in-process), would add a round
 * trip per item here. Three claimers are faster together than one because each one's round
 * trips and commit flushes overlap the others' work; SKIP LOCKED keeps them from queueing.
 * EXPLAIN of every hot statement was checked for primary-key access (see the note above
 * START_SCHEDULES_SQL about partial indexes and stale statistics).
 */
import { cronJobNext } from '../../cron/index.js';
import { newId } from '../../domain/ids.js';
import type { ClaimedExecution, CronJob, JobType, JsonObject } from '../../domain/types.js';
import {
  claimClock,
  cronAdvance,
  leaseExpiry,
  occurrenceStatuses,
  pausedEntry,
  planCron,
  type ClaimClock,
  type ClaimResult,
} from '../claim-rules.js';
import type { ClaimDueParams, DueCounts } from '../store.js';
import { DB_NOW_MS, lockKeySql, type Sql } from './connection.js';
import { cronFromRow, JOB_COLUMNS, type CronRow } from './cron-jobs.js';

/**
 * Up to `$1` due items across the four sources, earliest first, each row locked (FOR UPDATE SKIP
 * LOCKED). Params: `$1` limit, `$2` the schema (advisory lock scope), and with clock 'caller' `$3`
 * now. Returns `now` with each row: the instant the claim uses.
 */
export function candidatesSql(clock: 'database' | 'caller'): string {
  const now = clock === 'database' ? DB_NOW_MS : '$3::bigint';
  return `WITH t AS MATERIALIZED (SELECT ${now} AS now),
s AS (SELECT 'schedule' AS kind, id, scheduled_at AS due FROM schedules
       WHERE status = 'Pending' AND scheduled_at <= (SELECT now FROM t)
       ORDER BY scheduled_at LIMIT $1 FOR UPDATE SKIP LOCKED),
c AS (SELECT 'cron' AS kind, id, next_invocation AS due FROM cron_jobs
       WHERE status = 'Active' AND next_invocation <= (SELECT now FROM t)
       ORDER BY next_invocation LIMIT $1 FOR UPDATE SKIP LOCKED),
w AS (SELECT 'waiting' AS kind, id, next_attempt_at AS due FROM executions
       WHERE status IN ('Pending', 'Retrying') AND next_attempt_at <= (SELECT now FROM t)
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED),
l AS (SELECT 'lease' AS kind, id, lease_expires_at AS due FROM executions
       WHERE status = 'Running' AND lease_expires_at <= (SELECT now FROM t)
         AND pg_try_advisory_xact_lock(${lockKeySql('reclaim', '$2')})
       ORDER BY lease_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
SELECT x.kind, x.id, x.due, (SELECT now FROM t) AS now
  FROM (SELECT * FROM s UNION ALL SELECT * FROM c UNION ALL SELECT * FROM w UNION ALL SELECT * FROM l) AS x
 ORDER BY x.due, x.kind COLLATE "C", x.id
 LIMIT $1`;
}

/**
 * The earliest due instant of the four sources: each scalar subquery reads the first entry of
 * its partial index (ORDER BY … LIMIT 1: one descent, no sort); LEAST ignores NULLs.
 */
export const NEXT_DUE_SQL = `SELECT LEAST(
  (SELECT scheduled_at FROM schedules WHERE status = 'Pending' ORDER BY scheduled_at LIMIT 1),
  (SELECT next_invocation FROM cron_jobs WHERE status = 'Active' ORDER BY next_invocation LIMIT 1),
  (SELECT next_attempt_at FROM executions WHERE status IN ('Pending', 'Retrying') ORDER BY next_attempt_at LIMIT 1),
  (SELECT lease_expires_at FROM executions WHERE status = 'Running' ORDER BY lease_expires_at LIMIT 1)) AS due`;

/**
 * Due work not yet claimed, per source, each count stopping at `$1` (Store.dueCount): the same
 * `<= now` range searches of the same partial indexes as the candidates statement, without locks,
 * each reading at most `$1` index entries (index-only scans; test/store/postgres.test.ts checks
 * the plan). Params: `$1` limit, and with clock 'caller' `$2` now.
 */
export function dueCountSql(clock: 'database' | 'caller'): string {
  const now = clock === 'database' ? DB_NOW_MS : '$2::bigint';
  return `WITH t AS MATERIALIZED (SELECT ${now} AS now)
SELECT
  (SELECT count(*) FROM (SELECT 1 FROM schedules
     WHERE status = 'Pending' AND scheduled_at <= (SELECT now FROM t) LIMIT $1) AS x) AS schedule,
  (SELECT count(*) FROM (SELECT 1 FROM cron_jobs
     WHERE status = 'Active' AND next_invocation <= (SELECT now FROM t) LIMIT $1) AS x) AS cron,
  (SELECT count(*) FROM (SELECT 1 FROM executions
     WHERE status IN ('Pending', 'Retrying') AND next_attempt_at <= (SELECT now FROM t) LIMIT $1) AS x) AS waiting,
  (SELECT count(*) FROM (SELECT 1 FROM executions
     WHERE status = 'Running' AND lease_expires_at <= (SELECT now FROM t) LIMIT $1) AS x) AS lease`;
}

/**
 * Schedules of a run of candidates (`$1` ids, `$2` new execution ids, `$3` now, `$4` node, `$5`
 * lease margin): Pending → Running, each with its Running execution (attempt 1, leased until
 * now + its timeout + margin). A schedule whose occurrence already has an execution (unreachable
 * through the contract) stays Running and returns nothing, as in SQLite.
 *
 * Plans (this and the statements below): every write after the candidates statement reaches its
 * rows by primary key, never through a partial index, whatever the statistics (at the start of a
 * burst they are stale: the planner then takes a partial index for small and walks all of it, per
 * batch). So the rows are named by `id = ANY($1)`, and a status re-check, when kept, compares
 * with a column of a MATERIALIZED CTE (`x.status = u.pending`), which cannot prove a partial
 * index's predicate; or it filters rows already fetched by key. The re-checks are redundant —
 * the candidates statement locked these rows, so nothing else changed them — and kept as a guard.
 * Nor do the results join two CTEs (the planner estimates one row for a data-modifying CTE and
 * picks a nested loop: 256 × 256 comparisons, measured at ~12 ms of a 24 ms statement): a
 * hashed `IN (SELECT …)` in the SELECT list, or RETURNING columns of the UPDATE's FROM list.
 */
export const START_SCHEDULES_SQL = `WITH u AS MATERIALIZED (SELECT u.*, 'Pending'::text AS pending FROM unnest($1::text[], $2::text[]) AS u(sid, eid)),
s AS (
  UPDATE schedules x SET status = 'Running' FROM u
   WHERE x.id = ANY($1::text[]) AND x.id = u.sid AND x.status = u.pending
  RETURNING x.id, u.eid, x.endpoint, x.data, x.scheduled_at,
            x.retry_max_attempts, x.retry_initial_delay_ms, x.retry_max_delay_ms, x.timeout_ms),
ins AS (
  INSERT INTO executions (id, job_type, job_id, scheduled_for, triggered, status, attempt, created_at,
                          started_at, lease_owner, lease_expires_at)
  SELECT s.eid, 'schedule', s.id, s.scheduled_at, false, 'Running', 1, $3::bigint,
         $3::bigint, $4::text, $3::bigint + s.timeout_ms + $5::bigint
    FROM s
  ON CONFLICT (job_type, job_id, scheduled_for) WHERE NOT triggered DO NOTHING
  RETURNING id)
SELECT s.*, s.eid IN (SELECT id FROM ins) AS inserted FROM s`;

/**
 * Waiting executions and expired leases of a run of candidates (`$1` ids, `$2` now, `$3` node,
 * `$4` lease margin): each is leased again with attempt + 1 and sent with its job's *current*
 * endpoint, data, retry policy and timeout; one whose job was deleted becomes Failed ('job
 * deleted') and returns nothing. started_at is kept when set (attempt 1 set it), else now.
 */
export const RELET_SQL = `WITH k AS MATERIALIZED (
  SELECT id, job_type, job_id, scheduled_for, status, next_attempt_at, lease_expires_at
    FROM executions WHERE id = ANY($1::text[])),
e AS (
  SELECT e.id, e.job_type, e.job_id, e.scheduled_for,
         coalesce(s.endpoint, c.endpoint) AS endpoint,
         coalesce(s.data, c.data) AS data,
         coalesce(s.retry_max_attempts, c.retry_max_attempts) AS retry_max_attempts,
         coalesce(s.retry_initial_delay_ms, c.retry_initial_delay_ms) AS retry_initial_delay_ms,
         coalesce(s.retry_max_delay_ms, c.retry_max_delay_ms) AS retry_max_delay_ms,
         coalesce(s.timeout_ms, c.timeout_ms) AS timeout_ms,
         (s.id IS NOT NULL OR c.id IS NOT NULL) AS job_exists
    FROM k AS e
    LEFT JOIN schedules s ON e.job_type = 'schedule' AND s.id = e.job_id
    LEFT JOIN cron_jobs c ON e.job_type = 'cron' AND c.id = e.job_id
   WHERE ((e.status IN ('Pending', 'Retrying') AND e.next_attempt_at <= $2::bigint)
          OR (e.status = 'Running' AND e.lease_expires_at <= $2::bigint))),
failed AS (
  UPDATE executions x SET status = 'Failed', finished_at = $2::bigint, error = 'job deleted',
         next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL
    FROM e WHERE x.id = ANY($1::text[]) AND x.id = e.id AND NOT e.job_exists)
UPDATE executions x SET status = 'Running', attempt = x.attempt + 1, started_at = coalesce(x.started_at, $2::bigint),
       next_attempt_at = NULL, lease_owner = $3::text, lease_expires_at = $2::bigint + e.timeout_ms + $4::bigint
  FROM e WHERE x.id = ANY($1::text[]) AND x.id = e.id AND e.job_exists
RETURNING x.id, x.attempt, x.lease_expires_at, e.job_type, e.job_id, e.scheduled_for, e.endpoint, e.data,
          e.retry_max_attempts, e.retry_initial_delay_ms, e.retry_max_delay_ms, e.timeout_ms`;

/**
 * The due cron jobs of a claim (`$1` ids, `$2` now), each with its newest execution and whether
 * it has one in progress (overlap 'skip'; one descent of executions_in_progress). The rows are
 * already locked by the candidates statement, so nothing changes them before this claim's own
 * writes, and the "in progress" answer cannot change through this claim's earlier writes either
 * (they only lease executions of existing jobs again, which stay in progress).
 */
export const DUE_CRON_SQL = `WITH c AS MATERIALIZED (SELECT * FROM cron_jobs WHERE id = ANY($1::text[]))
SELECT ${JOB_COLUMNS},
       l.scheduled_for AS last_invocation, l.status AS last_status,
       EXISTS (SELECT 1 FROM executions p
                WHERE p.job_type = 'cron' AND p.job_id = c.id AND p.status IN ('Pending', 'Running', 'Retrying')) AS in_progress
  FROM c LEFT JOIN executions l ON l.id = c.last_execution_id
 WHERE c.status = 'Active' AND c.next_invocation <= $2::bigint`;

/** Which of a cron job's occurrences (`$2`) already have their execution (misfire `all` only). */
const EXISTING_OCCURRENCES_SQL = `SELECT scheduled_for FROM executions
 WHERE job_type = 'cron' AND job_id = $1 AND NOT triggered AND scheduled_for = ANY($2::bigint[])`;

/**
 * One cron job's claim, in one statement: insert its occurrences (`$2` ids, `$3` instants, `$4`
 * statuses; `$5` now, `$6` node, `$7` lease expiry of the Running ones), ON CONFLICT DO NOTHING,
 * and advance the job (`$8` next_invocation, `$9` status) counting the executions inserted and
 * moving `last_execution_id` to the newest execution among those inserted and the previous one
 * (`$10`, `$11`), by the rule of `newerExecution` (claim-rules.ts), here in SQL because only this
 * statement knows which inserts took place. Returns the ids inserted.
 */
export const CRON_ADVANCE_SQL = `WITH u AS (SELECT * FROM unnest($2::text[], $3::bigint[], $4::text[]) WITH ORDINALITY AS u(id, sf, st, ord)),
ins AS (
  INSERT INTO executions (id, job_type, job_id, scheduled_for, triggered, status, attempt, created_at,
                          started_at, finished_at, next_attempt_at, lease_owner, lease_expires_at)
  SELECT u.id, 'cron', $1::text, u.sf, false, u.st, CASE WHEN u.st = 'Running' THEN 1 ELSE 0 END, $5::bigint,
         CASE WHEN u.st = 'Running' THEN $5::bigint END,
         CASE WHEN u.st = 'Skipped' THEN $5::bigint END,
         CASE WHEN u.st = 'Pending' THEN u.sf END,
         CASE WHEN u.st = 'Running' THEN $6::text END,
         CASE WHEN u.st = 'Running' THEN $7::bigint END
    FROM u ORDER BY u.ord
  ON CONFLICT (job_type, job_id, scheduled_for) WHERE NOT triggered DO NOTHING
  RETURNING id, scheduled_for),
adv AS (
  UPDATE cron_jobs SET next_invocation = $8::bigint, status = $9::text,
         invocations = invocations + (SELECT count(*) FROM ins),
         last_execution_id = coalesce(
           (SELECT n.id FROM (SELECT id, scheduled_for FROM ins
                              UNION ALL SELECT $10::text, $11::bigint WHERE $10::text IS NOT NULL) AS n
             ORDER BY n.scheduled_for DESC NULLS LAST, n.id COLLATE "C" DESC LIMIT 1),
           last_execution_id)
   WHERE id = $1::text)
SELECT id FROM ins`;

interface Candidate {
  kind: 'schedule' | 'cron' | 'waiting' | 'lease';
  id: string;
  due: number;
  now: number;
}

/** Delivery columns of a job row. */
interface DeliveryRow {
  retry_max_attempts: number;
  retry_initial_delay_ms: number;
  retry_max_delay_ms: number;
  timeout_ms: number;
}

interface StartedScheduleRow extends DeliveryRow {
  id: string;
  eid: string;
  endpoint: string;
  data: JsonObject | null;
  scheduled_at: number;
  /** False when the occurrence already had an execution (see START_SCHEDULES_SQL). */
  inserted: boolean;
}

interface ReletRow extends DeliveryRow {
  id: string;
  job_type: JobType;
  job_id: string;
  scheduled_for: number;
  endpoint: string;
  data: JsonObject | null;
  attempt: number;
  lease_expires_at: number;
}

interface DueCronRow extends CronRow {
  in_progress: boolean;
}

export type { ClaimResult } from '../claim-rules.js';

/** The state of one claim transaction; `now` is the database's clock, or `p.now` floored (clock 'caller'). */
interface Claim extends ClaimClock {
  sql: Sql;
  p: ClaimDueParams;
  /** Items still allowed (`limit` minus those claimed). */
  room: number;
  result: ClaimResult;
}

/** The claim and the next-due query of one store. */
export class ClaimQueries {
  private readonly candidates: string;
  private readonly dueCounts: string;

  constructor(private readonly clock: 'database' | 'caller') {
    this.candidates = candidatesSql(clock);
    this.dueCounts = dueCountSql(clock);
  }

  /**
   * Claims due work in the caller's transaction (see the comment at the top of this file).
   * @param scope the schema, for the advisory lock of expired leases
   */
  async claim(sql: Sql, scope: string, p: ClaimDueParams): Promise<ClaimResult> {
    const limit = Math.floor(p.limit);
    const result: ClaimResult = { claimed: [], paused: [] };
    if (!(limit > 0)) return result;
    const params = this.clock === 'database' ? [limit, scope] : [limit, scope, claimClock(p).now];
    const candidates = await sql.rows<Candidate>(this.candidates, params, `punctual_claim_candidates_${this.clock}`);
    if (candidates.length === 0) return result;
    const c: Claim = { sql, p, ...claimClock({ now: candidates[0]!.now, leaseMs: p.leaseMs }), room: limit, result };

    const cronIds = candidates.filter((k) => k.kind === 'cron').map((k) => k.id);
    const cronRows = new Map<string, DueCronRow>();
    if (cronIds.length > 0) {
      for (const r of await sql.rows<DueCronRow>(DUE_CRON_SQL, [cronIds, c.now], 'punctual_claim_due_cron')) cronRows.set(r.id, r);
    }

    let i = 0;
    while (i < candidates.length && c.room > 0) {
      const cand = candidates[i]!;
      if (cand.kind === 'cron') {
        i++;
        const row = cronRows.get(cand.id);
        if (row) await this.claimCron(c, row);
        continue;
      }
      // A run of schedule/waiting/lease candidates, at most `room` long: each yields at most one item.
      const run: Candidate[] = [];
      while (i < candidates.length && candidates[i]!.kind !== 'cron' && run.length < c.room) run.push(candidates[i++]!);
      await this.claimRun(c, run);
    }
    return result;
  }

  /** Earliest instant at which {@link claim} could return something, or null. */
  async nextDueAt(sql: Sql): Promise<number | null> {
    const [r] = await sql.rows<{ due: number | null }>(NEXT_DUE_SQL, [], 'punctual_next_due');
    return r?.due ?? null;
  }

  /** Due, unclaimed work per source, each count at most `limit` (see Store.dueCount). */
  async dueCount(sql: Sql, now: number, limit: number): Promise<DueCounts> {
    const n = Math.max(1, Math.floor(limit));
    const params = this.clock === 'database' ? [n] : [n, Math.floor(now)];
    const [r] = await sql.rows<DueCounts & Record<string, number>>(this.dueCounts, params, `punctual_due_count_${this.clock}`);
    return { schedule: r!.schedule, cron: r!.cron, waiting: r!.waiting, lease: r!.lease };
  }

  /** A run of non-cron candidates: one statement per kind, items pushed in candidate order. */
  private async claimRun(c: Claim, run: Candidate[]): Promise<void> {
    const items = new Map<string, ClaimedExecution>();
    const scheduleIds = run.filter((k) => k.kind === 'schedule').map((k) => k.id);
    if (scheduleIds.length > 0) {
      const rows = await c.sql.rows<StartedScheduleRow>(
        START_SCHEDULES_SQL,
        [scheduleIds, scheduleIds.map(() => newId()), c.now, c.p.nodeId, c.leaseMs],
        'punctual_claim_schedules',
      );
      for (const s of rows) {
        if (!s.inserted) continue;
        items.set(`schedule:${s.id}`, {
          executionId: s.eid,
          jobType: 'schedule',
          jobId: s.id,
          scheduledFor: s.scheduled_at,
          attempt: 1,
          endpoint: s.endpoint,
          data: s.data ?? {},
          retry: retryOf(s),
          timeoutMs: s.timeout_ms,
          leaseExpiresAt: leaseExpiry(c, s.timeout_ms), // as the INSERT computed it
        });
      }
    }
    const existingIds = run.filter((k) => k.kind !== 'schedule').map((k) => k.id);
    if (existingIds.length > 0) {
      const rows = await c.sql.rows<ReletRow>(RELET_SQL, [existingIds, c.now, c.p.nodeId, c.leaseMs], 'punctual_claim_relet');
      for (const e of rows) {
        items.set(`execution:${e.id}`, {
          executionId: e.id,
          jobType: e.job_type,
          jobId: e.job_id,
          scheduledFor: e.scheduled_for,
          attempt: e.attempt,
          endpoint: e.endpoint,
          data: e.data ?? {},
          retry: retryOf(e),
          timeoutMs: e.timeout_ms,
          leaseExpiresAt: e.lease_expires_at,
        });
      }
    }
    for (const k of run) {
      const item = items.get(k.kind === 'schedule' ? `schedule:${k.id}` : `execution:${k.id}`);
      if (item) this.push(c, item);
    }
  }

  /** One due cron job: its occurrences, statuses and advance by the rules of claim-rules.ts. */
  private async claimCron(c: Claim, row: DueCronRow): Promise<void> {
    const job: CronJob = cronFromRow(row);
    const plan = planCron(job, c.now, c.p.misfireThresholdMs, cronJobNext);
    const paused = pausedEntry(job.id, plan);
    if (paused) c.result.paused.push(paused);

    // Occurrences that already have their execution insert nothing and use no room (SQLite learns
    // it from each INSERT; here the statuses of all are decided before the one statement, so a
    // job with several occurrences asks first — only misfire `all` has several).
    const { occurrences } = plan;
    const existing = new Set<number>();
    if (occurrences.length > 1) {
      for (const r of await c.sql.rows<{ scheduled_for: number }>(EXISTING_OCCURRENCES_SQL, [job.id, occurrences])) {
        existing.add(r.scheduled_for);
      }
    }
    const planned = occurrenceStatuses(plan, job.overlap, () => row.in_progress, c.room, (o) => existing.has(o)).map(
      (x) => ({ id: newId(), ...x }),
    );
    // The count of inserts is known only after the statement, which counts them itself.
    const advance = cronAdvance(plan, planned.length);
    const leaseExpiresAt = leaseExpiry(c, job.timeoutMs);
    const inserted = new Set(
      (
        await c.sql.rows<{ id: string }>(
          CRON_ADVANCE_SQL,
          [
            job.id,
            planned.map((x) => x.id),
            planned.map((x) => x.scheduledFor),
            planned.map((x) => x.status),
            c.now,
            c.p.nodeId,
            leaseExpiresAt,
            advance.nextInvocation,
            advance.status,
            row.last_execution_id,
            row.last_invocation,
          ],
          'punctual_claim_cron',
        )
      ).map((r) => r.id),
    );
    for (const x of planned) {
      if (x.status !== 'Running' || !inserted.has(x.id)) continue;
      this.push(c, {
        executionId: x.id,
        jobType: 'cron',
        jobId: job.id,
        scheduledFor: x.scheduledFor,
        attempt: 1,
        endpoint: job.endpoint,
        data: job.data ?? {},
        retry: { ...job.retry },
        timeoutMs: job.timeoutMs,
        leaseExpiresAt,
      });
    }
  }

  private push(c: Claim, item: ClaimedExecution): void {
    c.result.claimed.push(item);
    c.room--;
  }
}

/** The retry policy of a job row. */
function retryOf(r: DeliveryRow): ClaimedExecution['retry'] {
  return {
    maxAttempts: r.retry_max_attempts,
    initialDelayMs: r.retry_initial_delay_ms,
    maxDelayMs: r.retry_max_delay_ms,
  };
}
