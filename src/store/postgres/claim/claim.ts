/*
 * The PostgreSQL claim: how due work leaves the database when several nodes claim at once. Read
 * this before changing it. The rules of *what* a claim does (misfire, overlap, leases, a broken
 * cron engine, the job's advance, the newest execution) are the rulebook's, src/store/rules/claim.ts,
 * shared with SQLite (whose claim.ts explains the four sources and deleted jobs), and one
 * conformance suite holds both stores to them; this file is about doing it safely and fast with
 * many concurrent claimers.
 *
 * One transaction (READ COMMITTED), in this order:
 *
 * 1. CANDIDATES (one statement). Each of the four sources is read through its partial index
 *    (store/postgres/migrations/index.ts), `ORDER BY due LIMIT room FOR UPDATE SKIP LOCKED`:
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
 * conformance suite), `p.now` decides, as in SQLite. A claim that looks ahead (`p.aheadMs`) takes schedules, cron
 * jobs and waiting executions due by now + aheadMs on that same clock (expired leases still at
 * now), and marks each item not yet due `notBefore` (store/rules/claim.ts, "Claiming ahead").
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
import { cronJobNext } from '../../../cron/index.js';
import { newId } from '../../../domain/ids.js';
import type { ClaimedExecution, CronJob } from '../../../domain/types.js';
import {
  claimClock,
  cronAdvance,
  leaseExpiry,
  occurrenceDelay,
  occurrenceStatuses,
  pausedEntry,
  planCron,
  CLAIM_READS_MAX,
  sourceRoom,
  type ClaimClock,
  type ClaimResult,
} from '../../rules/claim.js';
import type { ClaimDueParams, DueCounts } from '../../store.js';
import { occurrenceItem, pushClaimed, reletItem, startedSchedule, type ReletRow, type StartedScheduleRow } from '../../sql/claim.js';
import { PASS_THROUGH } from '../../rows/jobs.js';
import { missedToRow } from '../../rows/executions.js';
import {
  candidatesSql,
  CRON_ADVANCE_SQL,
  dueCountSql,
  DUE_CRON_SQL,
  EXISTING_OCCURRENCES_SQL,
  NEXT_DUE_SQL,
  RELET_SQL,
  START_SCHEDULES_SQL,
} from './sql.js';
import type { PgContext, Sql } from '../connection.js';
import { claimHeld, countStarts, heldNextDueAt } from './held.js';
import { cronFromRow, type CronRow } from '../queries/cron-jobs.js';
import type { Operations } from '../../sql-store.js';

interface Candidate {
  kind: 'schedule' | 'cron' | 'waiting' | 'lease' | 'held';
  id: string;
  due: number;
  now: number;
}

interface StartedRow extends StartedScheduleRow {
  id: string;
  flow_control_key: string | null;
  eid: string;
  /** False when the occurrence already had an execution (see START_SCHEDULES_SQL). */
  inserted: boolean;
}

/** A row of RELET_SQL: the execution leased again, with what the statement counted and leased. */
interface LeasedAgainRow extends ReletRow {
  endpoint: string;
  attempt: number;
  lease_expires_at: number;
}

interface DueCronRow extends CronRow {
  in_progress: boolean;
}

export type { ClaimResult } from '../../rules/claim.js';

/** The state of one claim transaction; `now` is the database's clock, or `p.now` floored (clock 'caller'). */
interface Claim extends ClaimClock {
  sql: Sql;
  p: ClaimDueParams;
  /** Items still allowed (`limit` minus those claimed). */
  room: number;
  result: ClaimResult;
  /** A call waiting for its flow-control key is due, or this claim made one: the flow-control pass runs. */
  held: boolean;
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
    const result: ClaimResult = { claimed: [], paused: [], skippedOccurrences: 0 };
    if (!(limit > 0)) return result;
    const { now, dueBy } = claimClock(p);
    const params = this.clock === 'database' ? [limit, scope, dueBy - now] : [limit, scope, dueBy - now, now];
    let rows = await sql.rows<Candidate>(this.candidates, params, `punctual_claim_candidates_${this.clock}`);
    if (rows.length === 0) return result;
    const c: Claim = {
      sql,
      p,
      ...claimClock({ now: rows[0]!.now, leaseMs: p.leaseMs, aheadMs: dueBy - now }),
      room: limit,
      result,
      held: false,
    };
    for (let read = 1; ; read++) {
      const readLimit = c.room;
      const candidates = rows.filter((k) => k.kind !== 'held');
      if (candidates.length < rows.length) c.held = true;
      await this.claimCandidates(c, candidates);
      // A full read that left room read again (CLAIM_READS_MAX, store/rules/claim-occurrences.ts).
      if (candidates.length < readLimit || c.room <= 0 || read >= CLAIM_READS_MAX) break;
      const again = this.clock === 'database' ? [c.room, scope, c.dueBy - c.now] : [c.room, scope, c.dueBy - c.now, c.now];
      rows = await sql.rows<Candidate>(this.candidates, again, `punctual_claim_candidates_${this.clock}`);
    }
    // The calls waiting for their flow-control key, with the room left (held.ts).
    if (c.held) await claimHeld(c, (ids, dueOf) => this.relet(c, ids, dueOf));
    return result;
  }

  /** The candidates of one read of the sources, in their order (cron jobs one by one, the others in runs). */
  private async claimCandidates(c: Claim, candidates: Candidate[]): Promise<void> {
    const { sql } = c;
    const cronIds = candidates.filter((k) => k.kind === 'cron').map((k) => k.id);
    const cronRows = new Map<string, DueCronRow>();
    if (cronIds.length > 0) {
      for (const r of await sql.rows<DueCronRow>(DUE_CRON_SQL, [cronIds, c.dueBy], 'punctual_claim_due_cron')) cronRows.set(r.id, r);
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
  }

  /** Earliest instant at which {@link claim} could return something, or null. */
  async nextDueAt(sql: Sql): Promise<number | null> {
    const [r] = await sql.rows<{ due: number | null; held: number | null }>(NEXT_DUE_SQL, [], 'punctual_next_due');
    const held = r?.held == null ? null : await heldNextDueAt(sql);
    const due = r?.due == null ? null : Number(r.due);
    return due === null ? held : held === null ? due : Math.min(due, held);
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
      const rows = await c.sql.rows<StartedRow>(
        START_SCHEDULES_SQL,
        [scheduleIds, scheduleIds.map(() => newId()), c.now, c.p.nodeId, c.leaseMs],
        'punctual_claim_schedules',
      );
      for (const s of rows) {
        if (s.inserted && s.flow_control_key !== null) c.held = true; // it waits for its key (held.ts)
        if (!s.inserted || s.flow_control_key !== null) continue;
        items.set(`schedule:${s.id}`, startedSchedule(PASS_THROUGH, c, s.id, s.eid, s)); // the lease as the INSERT computed it
      }
    }
    const existing = run.filter((k) => k.kind !== 'schedule');
    const leases = new Set(run.filter((k) => k.kind === 'lease').map((k) => k.id));
    const restarted: string[] = []; // keys of calls leased again: they keep their slot, their start counts against the rate
    for (const item of await this.relet(c, existing.map((k) => k.id), new Map(existing.map((k) => [k.id, k.due])))) {
      items.set(`execution:${item.executionId}`, item);
      if (leases.has(item.executionId) && item.flowControlKey !== undefined) restarted.push(item.flowControlKey);
    }
    if (restarted.length > 0) await countStarts(c.sql, restarted, c.now);
    for (const k of run) {
      const item = items.get(k.kind === 'schedule' ? `schedule:${k.id}` : `execution:${k.id}`);
      if (item) pushClaimed(c, item);
    }
  }

  /**
   * Leases the executions `ids` again (RELET_SQL: a deleted job's fail, a backfill not yet its turn
   * waits) and answers their items, not pushed.
   * @param dueOf each execution's due instant (`notBefore` when after now)
   */
  private async relet(c: Claim, ids: string[], dueOf: ReadonlyMap<string, number>): Promise<ClaimedExecution[]> {
    if (ids.length === 0) return [];
    const rows = await c.sql.rows<LeasedAgainRow>(RELET_SQL, [ids, c.now, c.p.nodeId, c.leaseMs, c.dueBy], 'punctual_claim_relet');
    return rows.map((e) => reletItem(PASS_THROUGH, c, e, e.endpoint, dueOf.get(e.id) ?? c.now, e.attempt, e.lease_expires_at));
  }

  /** One due cron job: its occurrences, statuses and advance by the rules of store/rules/claim.ts. */
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
    const planned = occurrenceStatuses(
      plan,
      job.overlap,
      () => row.in_progress,
      sourceRoom(job.flowControlKey, c.room),
      (o) => existing.has(o),
      (o) => occurrenceDelay(job, o),
    ).map((x) => ({ id: newId(), ...x }));
    // The count of inserts is known only after the statement, which counts them itself.
    const advance = cronAdvance(plan, planned.length, job.nextInvocation);
    const leaseExpiresAt = leaseExpiry(c, job.timeoutMs);
    const missed = missedToRow(PASS_THROUGH, plan.missed); // only a plan of one occurrence has it
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
            missed.missed_count,
            missed.missed_first,
            missed.missed_last,
            missed.missed_capped,
            plan.skipped,
            planned.map((x) => x.dueAt),
            planned.map((x) => x.nextAttemptAt),
            job.flowControlKey,
          ],
          'punctual_claim_cron',
        )
      ).map((r) => r.id),
    );
    if (job.flowControlKey !== null && planned.some((x) => x.status === 'Pending' && inserted.has(x.id))) c.held = true;
    for (const x of planned) {
      if (x.status !== 'Running' || !inserted.has(x.id)) continue;
      pushClaimed(c, occurrenceItem(c, job, x.id, x.scheduledFor, leaseExpiresAt, plan.missed));
    }
    c.result.skippedOccurrences += cronAdvance(plan, inserted.size, job.nextInvocation).skippedAdded; // as the statement added it
  }

}

/** The claim's statements for each clock mode, built once. */
const CLAIMS = { database: new ClaimQueries('database'), caller: new ClaimQueries('caller') };

/** The store operations of the claim and the backlog (with clock 'database', `p.now` is ignored: the database's clock decides) (store/sql-store.ts). */
export const claimOperations = {
  claimDue: async (c, p) => {
    const scope = await c.scope();
    return c.tx((sql) => CLAIMS[c.clock].claim(sql, scope, p));
  },
  nextDueAt: (c) => CLAIMS[c.clock].nextDueAt(c.sql),
  dueCount: (c, p) => CLAIMS[c.clock].dueCount(c.sql, p.now, p.limit),
} satisfies Partial<Operations<PgContext>>;
