import { FLOW_CONTROL_BOUNDS } from '../../../domain/flow-control.js';
import type { AttemptOutcome, Execution, JobType } from '../../../domain/types.js';
import { cronDecisionSql, goneSql, pauseReasonSql, type AutoPause, type FinishResult } from '../../rules/outcome.js';
import { decodeCursor } from '../../rules/paging.js';
import { columnList, PASS_THROUGH } from '../../rows/jobs.js';
import * as execRows from '../../rows/executions.js';
import { DB_NOW_MS, lockKeySql, positional, type NotifyContext, type Sql, type PgContext } from '../connection.js';
import * as T from '../../sql/executions.js';
import { notifySql } from '../notify.js';
import { promoteBackfillSql } from '../../rules/backfill.js';
import { finishedOutboxSql, pausedOutboxSql } from '../../rules/notifications.js';
import type { Operations } from '../../sql-store.js';

const ATTEMPT_LIST = columnList(execRows.ATTEMPT_COLUMNS);

/**
 * A job's executions, newest first: a backward walk of `executions_by_job` (job_type, job_id,
 * scheduled_for, id), so a page costs one descent plus its rows. Keyset paging: the next page
 * starts strictly after the last row of the previous one (`$4`, `$5`), a row comparison the
 * B-tree reads as an index condition.
 */
export const LIST_FIRST_SQL = `SELECT ${execRows.EXECUTION_COLUMNS} FROM executions
 WHERE job_type = $1 AND job_id = $2
 ORDER BY scheduled_for DESC, id DESC LIMIT $3`;
/** {@link LIST_FIRST_SQL} after the cursor (`$4` scheduled_for, `$5` id). */
export const LIST_AFTER_SQL = `SELECT ${execRows.EXECUTION_COLUMNS} FROM executions
 WHERE job_type = $1 AND job_id = $2 AND (scheduled_for, id) < ($4::bigint, $5::text)
 ORDER BY scheduled_for DESC, id DESC LIMIT $3`;
/** The attempts of a page of executions, in one query: primary-key lookups. */
export const ATTEMPTS_OF_SQL = `SELECT ${ATTEMPT_LIST} FROM execution_attempts
 WHERE execution_id = ANY($1::text[]) ORDER BY execution_id, number`;

/**
 * Records a batch of outcomes in ONE statement (one round trip, one commit, whatever the batch
 * size): the outcomes travel as parallel arrays, `unnest` turns them into rows, and data-modifying
 * CTEs do what SQLite does per outcome with prepared statements:
 *   f  finishes each execution still leased to this node for this very attempt (a lease taken
 *      over — by another node, or by this one as a later attempt — or an execution already
 *      finished ignores its outcome; a lease that expired but was not yet taken over still
 *      counts: the call did finish, and recording it saves a duplicate call). started_at: attempt
 *      1's own start replaces the claim instant.
 *   a  appends the attempt of each execution f changed;
 *   s  gives a finished schedule its execution's status (a deleted schedule has no row: nothing);
 *   r, t, j, d, p  the auto-pause of cron jobs (store/rules/outcome.ts, whose SQL expressions decide):
 *      r the finished outcomes of cron jobs with their place in the batch (`ord`, the order of
 *      the arrays), t per job its trailing failures (after its last Succeeded one), j locks the
 *      jobs (FOR UPDATE: the newest row version, as the rule must read it), d decides the new
 *      count and the pause, p writes them and RETURNS each job with the kind of its pause (NULL:
 *      none) and its reason;
 *   b  makes the oldest Pending backfilled execution of each cron job that finished one due at
 *      that end (store/rules/backfill.ts, "Pacing"); the earliest is announced with the retries;
 *   n  writes the notifications the finished executions cause (store/rules/notifications.ts: a join
 *      with notification_channels, so nothing is read but an empty table when there is no channel);
 *   q  writes the `cron.auto_paused` notifications of the jobs p paused, at the end of the batch's
 *      last attempt (the same join);
 *   and the earliest Retrying instant is announced (notify.ts); the jobs paused are answered as
 *   JSON (`paused`).
 * The row lock each UPDATE takes is re-checked on the newest row version (READ COMMITTED), so a
 * takeover that commits meanwhile makes the outcome a no-op, as the contract says.
 * The plan must be a primary-key probe per outcome, whatever the statistics say: a plan that
 * walked executions_running_lease (every Running execution) per outcome was seen with stale
 * statistics at the start of a burst — 2.4 s for 256 outcomes with 38,000 leases held. Hence
 * `e.id = ANY($2)` (redundant with the join: it gives the primary key a direct condition), and
 * `e.status = o.running` (the constant 'Running' carried by the MATERIALIZED rows of o): a
 * comparison with another relation's column cannot prove a partial index's predicate, so
 * executions_running_lease is not a candidate path at all.
 */
export function finishSql(clock: 'database' | 'caller'): string {
  return `WITH o AS MATERIALIZED (
  SELECT o.*, 'Running'::text AS running, $1::text AS node
    FROM unnest($2::text[], $3::int[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::int[], $9::text[], $10::text[],
                $11::text[], $12::text[], $13::text[], $14::text[], $16::bigint[], $17::bigint[])
      WITH ORDINALITY
      AS o(execution_id, attempt, status, next_attempt_at, started_at, duration_ms, status_code, error, response_body, method, url,
           trace_id, span_id, waited_ms, hold_until, ord)),
f AS (
  UPDATE executions e SET
    status = o.status,
    finished_at = CASE WHEN o.status = 'Retrying' THEN NULL ELSE o.started_at + o.duration_ms END,
    next_attempt_at = o.next_attempt_at,
    started_at = CASE WHEN o.attempt = 1 THEN o.started_at ELSE coalesce(e.started_at, o.started_at) END,
    lease_owner = NULL,
    lease_expires_at = NULL
  FROM o
  WHERE e.id = o.execution_id AND e.lease_owner = o.node AND e.status = o.running AND e.attempt = o.attempt
  RETURNING e.id, e.attempt, e.job_type, e.job_id, e.status, e.next_attempt_at, e.finished_at, e.scheduled_for, e.flow_control_key),
a AS (
  INSERT INTO execution_attempts (execution_id, number, started_at, duration_ms, status_code, error, response_body, method, url,
                                  trace_id, span_id, waited_ms)
  SELECT o.execution_id, o.attempt, o.started_at, o.duration_ms, o.status_code, o.error, o.response_body, o.method, o.url,
         o.trace_id, o.span_id, o.waited_ms
    FROM o JOIN f ON f.id = o.execution_id AND f.attempt = o.attempt
  ON CONFLICT (execution_id, number) DO NOTHING),
s AS (
  UPDATE schedules x SET status = f.status FROM f
   WHERE f.job_type = 'schedule' AND f.status <> 'Retrying' AND x.id = f.job_id AND x.status = 'Running'),
${CRON_PAUSE_CTES},
b AS (
${promoteBackfillSql('g.job_id', 'g.at', `(SELECT f.job_id, max(f.finished_at) AS at FROM f
          WHERE f.job_type = 'cron' AND f.status IN ('Succeeded', 'Failed') GROUP BY f.job_id) g`)}
  RETURNING x.next_attempt_at),
n AS (
${finishedOutboxSql('f')}),
q AS (
${pausedOutboxSql(`(SELECT p.id AS job_id, p.paused_reason AS reason, CAST(NULL AS text) AS execution_id,
                           (SELECT max(f.finished_at) FROM f) AS occurred_at
                      FROM p WHERE p.kind IS NOT NULL)`)}),
u AS (
${AUTO_PAUSE_AUDIT_SQL}),
${FLOW_CONTROL_FINISH_CTES}
SELECT (SELECT count(*) FROM f) AS finished,
       ${notifySql(`LEAST((SELECT min(f.next_attempt_at) FROM f WHERE f.status = 'Retrying'), (SELECT min(b.next_attempt_at) FROM b))`, '$15', clock)} AS notified,
       (SELECT min(b.next_attempt_at) FROM b) AS backfill_due,
       (SELECT max(f.finished_at) FROM f WHERE f.flow_control_key IS NOT NULL) AS flow_control_due,
       (SELECT coalesce(json_agg(json_build_object('jobId', p.id, 'kind', p.kind, 'reason', p.paused_reason)), '[]'::json)
          FROM p WHERE p.kind IS NOT NULL) AS paused`;
}

/**
 * The CTEs of {@link finishSql} for flow control (store/sql/flow-control.ts, WAKE_SQL and holdSql,
 * here over the batch): kh, each key whose calls finished, with the end of the latest hold their
 * receivers asked (a 429 or 503 with Retry-After; 0: none) and the batch's end; h, the holds; k,
 * the wake of the other keys (a slot freed). h and k touch disjoint rows: a statement's CTEs
 * must not change one row twice. The rows are locked in key order (lk) so that two finishes of
 * the same keys cannot deadlock.
 */
const FLOW_CONTROL_FINISH_CTES = `kh AS (
  SELECT f.flow_control_key AS key, max(coalesce(o.hold_until, 0)) AS until, max(o.started_at + o.duration_ms) AS at
    FROM f JOIN o ON o.execution_id = f.id AND o.attempt = f.attempt
   WHERE f.flow_control_key IS NOT NULL GROUP BY f.flow_control_key),
lk AS (SELECT x.key FROM flow_control_keys x WHERE x.key IN (SELECT kh.key FROM kh) ORDER BY x.key FOR UPDATE),
h AS (
  INSERT INTO flow_control_keys AS x (key, period_ms, created_at, updated_at, hold_until, ready_at)
  SELECT kh.key, ${FLOW_CONTROL_BOUNDS.periodDefaultMs}, kh.at, kh.at, kh.until, kh.until FROM kh WHERE kh.until > kh.at
      AND (SELECT count(*) FROM lk) >= 0 -- always true: it makes h wait for the locks of lk
  ON CONFLICT (key) DO UPDATE SET hold_until = greatest(coalesce(x.hold_until, 0), excluded.hold_until),
    ready_at = greatest(x.ready_at, excluded.ready_at)),
k AS (
  UPDATE flow_control_keys x SET ready_at = kh.at FROM kh, lk
   WHERE x.key = kh.key AND lk.key = kh.key AND kh.until <= kh.at AND x.ready_at > kh.at AND (x.hold_until IS NULL OR x.hold_until <= kh.at))`;

const DECISION = cronDecisionSql({
  status: 'j.status',
  count: 'j.consecutive_failures',
  limit: 'j.pause_after_failures',
  reset: 'j.reset',
  trailing: 'j.trailing',
  gone: 'j.gone',
});

/** A UUID v7 of the instant `ms` (epoch ms, bigint), from two v4 ids of gen_random_uuid(): per row, as ids.ts makes them. */
function uuidV7Sql(ms: string): string {
  const hex = `lpad(to_hex(${ms}), 12, '0')`;
  return `substr(${hex}, 1, 8) || '-' || substr(${hex}, 9, 4) || '-7' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 3) || '-' || substr(gen_random_uuid()::text, 20, 17)`;
}

/**
 * The CTE u of {@link finishSql}: a `cron.autoPause` audit event (actor `system`) per job p
 * paused, at the end of the batch's last attempt, its changes those of `autoPauseChanges`
 * (store/rules/audit.ts). Writes nothing, and costs one empty scan of p, when no job paused.
 */
const AUTO_PAUSE_AUDIT_SQL = `INSERT INTO audit_events (id, occurred_at, actor_kind, action, resource_type, resource_id, changes)
SELECT ${uuidV7Sql('x.at')}, x.at, 'system', 'cron.autoPause', 'cronJob', p.id,
       json_build_object('status', json_build_object('before', 'Active', 'after', 'Paused'),
                         'pausedReason', json_build_object('before', NULL, 'after', p.paused_reason))::text
  FROM p, (SELECT max(f.finished_at) AS at FROM f) x
 WHERE p.kind IS NOT NULL`;

/** The CTEs r, t, j, d, p of {@link finishSql} (the auto-pause of cron jobs). */
const CRON_PAUSE_CTES = `r AS (
  SELECT f.job_id, f.status, o.ord, ${goneSql('f.status', 'o.status_code')} AS gone,
         max(o.ord) FILTER (WHERE f.status = 'Succeeded') OVER (PARTITION BY f.job_id) AS last_success
    FROM f JOIN o ON o.execution_id = f.id AND o.attempt = f.attempt
   WHERE f.job_type = 'cron' AND f.status IN ('Succeeded', 'Failed')),
t AS (
  SELECT r.job_id, bool_or(r.last_success IS NOT NULL) AS reset,
         count(*) FILTER (WHERE r.status = 'Failed' AND r.ord > coalesce(r.last_success, 0)) AS trailing,
         coalesce(bool_or(r.gone) FILTER (WHERE r.ord > coalesce(r.last_success, 0)), false) AS gone
    FROM r GROUP BY r.job_id),
j AS (
  SELECT c.id, c.status, c.consecutive_failures, c.pause_after_failures, t.reset, t.trailing, t.gone
    FROM cron_jobs c JOIN t ON c.id = t.job_id
  FOR UPDATE OF c),
d AS (
  SELECT j.id, j.pause_after_failures, ${DECISION.count} AS failures, ${DECISION.kind} AS kind FROM j),
p AS (
  UPDATE cron_jobs c SET consecutive_failures = d.failures,
         status = CASE WHEN d.kind IS NULL THEN c.status ELSE 'Paused' END,
         paused_reason = CASE WHEN d.kind IS NULL THEN c.paused_reason ELSE ${pauseReasonSql('d.kind', 'd.pause_after_failures')} END
    FROM d WHERE c.id = d.id
  RETURNING c.id, d.kind, c.paused_reason)`;

/** PostgreSQL text cannot hold U+0000; what a receiver answered is kept with U+FFFD in its place. */
function storable(text: string | null | undefined): string | null {
  return text == null ? null : text.replaceAll('\u0000', '\uFFFD');
}

/** The `executions` table outside the claim: outcomes, reads, triggers, pruning. */
export const executions = {
  /**
   * Records a batch of outcomes with {@link finishSql}. Instants become whole ms as in SQLite:
   * startedAt floored, durationMs rounded, a retry's instant rounded up (never early). One
   * outcome per (execution, attempt): the first of duplicates wins, as when SQLite applies them
   * in order. Error and response texts have U+0000 replaced (see {@link storable}).
   * @returns the cron jobs paused (the `paused` column)
   */
  async finish(sql: Sql, n: NotifyContext, nodeId: string, outcomes: readonly AttemptOutcome[]): Promise<FinishResult> {
    if (outcomes.length === 0) return { paused: [] };
    const seen = new Set<string>();
    const cols: unknown[][] = [[], [], [], [], [], [], [], [], [], [], [], [], []];
    const flow: unknown[][] = [[], []]; // waited_ms, hold_until: $16, $17
    for (const o of outcomes) {
      const key = `${o.executionId}\u0000${o.attempt}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const { startedAt, durationMs, nextAttemptAt } = execRows.outcomeTimes(o);
      const texts = [storable(o.error), storable(o.responseBody)];
      const row = [o.executionId, o.attempt, o.status, nextAttemptAt, startedAt, durationMs, o.statusCode ?? null, ...texts, o.method ?? 'POST', o.url ?? null,
        o.traceId ?? null, o.spanId ?? null];
      row.forEach((v, i) => cols[i]!.push(v));
      flow[0]!.push(o.waitedMs ?? null);
      flow[1]!.push(o.flowControlHoldUntil ?? null);
    }
    const [r] = await sql.rows<{ paused: AutoPause[]; backfill_due: number | string | null; flow_control_due: number | string | null }>(
      finishSql(n.clock),
      [nodeId, ...cols, n.channel, ...flow],
      `punctual_finish_${n.clock}`,
    );
    const paused = r?.paused ?? [];
    return {
      paused,
      ...(r?.backfill_due != null && { backfillDueAt: Number(r.backfill_due) }),
      ...(r?.flow_control_due != null && { flowControlDueAt: Number(r.flow_control_due) }),
    };
  },

  /**
   * Hands back leases (`Store.leasesRelease`): each execution still Running and leased to
   * `p.nodeId` expires at once (the database's clock with clock 'database', else `p.now`).
   */
  async release(sql: Sql, clock: 'database' | 'caller', p: { nodeId: string; executionIds: string[]; now: number }): Promise<void> {
    if (p.executionIds.length === 0) return;
    const now = clock === 'database' ? DB_NOW_MS : '$3::bigint';
    const values: unknown[] = [p.nodeId, p.executionIds];
    if (clock === 'caller') values.push(Math.floor(p.now));
    await sql.count(
      `UPDATE executions SET lease_expires_at = LEAST(lease_expires_at, ${now})
        WHERE id = ANY($2::text[]) AND lease_owner = $1::text AND status = 'Running'`,
      values,
    );
  },

  /** Retrying executions, counted up to `limit` (Store.executionRetryingCount; through executions_waiting and executions_held). */
  async retryingCount(sql: Sql, limit: number): Promise<{ schedule: number; cron: number }> {
    const count = (jobType: string) =>
      `least($1, (SELECT count(*) FROM (SELECT 1 FROM executions
          WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL AND status = 'Retrying' AND job_type = '${jobType}' LIMIT $1) AS x)
        + (SELECT count(*) FROM (SELECT 1 FROM executions
          WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NOT NULL AND status = 'Retrying' AND job_type = '${jobType}' LIMIT $1) AS x))`;
    const [r] = await sql.rows<{ schedule: number; cron: number }>(
      `SELECT ${count('schedule')} AS schedule, ${count('cron')} AS cron`,
      [Math.max(1, Math.floor(limit))],
      'punctual_execution_retrying_count',
    );
    return { schedule: Number(r!.schedule), cron: Number(r!.cron) };
  },

  /** The execution with its attempts (oldest first), or null. */
  async get(sql: Sql, id: string): Promise<Execution | null> {
    const [r] = await sql.rows<execRows.ExecutionRow>(`SELECT ${execRows.EXECUTION_COLUMNS} FROM executions WHERE id = $1`, [id], 'punctual_execution_get');
    if (!r) return null;
    const attempts = await sql.rows<execRows.AttemptRow>(
      `SELECT ${ATTEMPT_LIST} FROM execution_attempts WHERE execution_id = $1 ORDER BY number`,
      [id],
      'punctual_execution_attempts',
    );
    return execRows.executionFromRow(PASS_THROUGH, r, attempts.map(execRows.attemptFromRow));
  },

  /** One page of a job's executions, newest first (see {@link LIST_FIRST_SQL}). */
  async list(
    sql: Sql,
    p: { jobType: JobType; jobId: string; limit: number; cursor: string | null },
  ): Promise<{ executions: Execution[]; nextCursor: string | null }> {
    const limit = Math.max(1, Math.floor(p.limit)); // the HTTP layer allows 1–100
    const after = p.cursor === null ? null : decodeCursor(p.cursor);
    // One row more than the page tells whether another page follows.
    const rows =
      after === null
        ? await sql.rows<execRows.ExecutionRow>(LIST_FIRST_SQL, [p.jobType, p.jobId, limit + 1])
        : await sql.rows<execRows.ExecutionRow>(LIST_AFTER_SQL, [p.jobType, p.jobId, limit + 1, after.at, after.id]);
    const ids = rows.slice(0, limit).map((r) => r.id);
    const attempts = ids.length === 0 ? [] : await sql.rows<execRows.AttemptRow>(ATTEMPTS_OF_SQL, [ids]);
    return execRows.executionPage(PASS_THROUGH, rows, limit, () => attempts);
  },

  /**
   * See `Store.jobTrigger`; runs in the caller's transaction. A cron job's row is locked (FOR
   * UPDATE) while its pointer to the newest execution moves, as the claim does. The new
   * execution is announced (due at `now`).
   */
  async trigger(
    sql: Sql,
    n: NotifyContext,
    p: { jobType: JobType; jobId: string; id: string; now: number },
  ): Promise<Execution | 'not_found' | 'not_pending'> {
    const now = Math.floor(p.now);
    const named = { ...p, now, triggered: true };
    const run = <R extends object>(text: string) => {
      const q = positional(text, named);
      return sql.rows<R>(q.text, q.values);
    };
    if (p.jobType === 'schedule') {
      if ((await run(T.TRIGGER_START_SCHEDULE_SQL)).length === 0) return (await run(T.SCHEDULE_EXISTS_SQL)).length > 0 ? 'not_pending' : 'not_found';
      await run(T.TRIGGER_INSERT_SQL);
    } else {
      const [job] = await run<execRows.LastExecutionRow>(`${T.TRIGGER_CRON_LAST_SQL} FOR UPDATE OF c`);
      if (!job) return 'not_found';
      await run(T.TRIGGER_INSERT_SQL);
      const q = positional(T.TRIGGER_COUNT_CRON_SQL, { jobId: p.jobId, lastExecutionId: execRows.newestExecutionId(job, now, p.id) });
      await sql.rows(q.text, q.values);
    }
    await sql.rows(`SELECT ${notifySql('$1::bigint', '$2', n.clock)} AS notified`, [now, n.channel]);
    return (await executions.get(sql, p.id))!;
  },

  /**
   * See `Store.executionsPrune`; runs in the caller's transaction. A once-per-cluster duty: it
   * runs only when `pg_try_advisory_xact_lock` on this schema's prune key succeeds, so when
   * several nodes prune at once one deletes and the others return 0 at once (they neither wait
   * nor contend on the same rows). The lock ends with the transaction.
   */
  async prune(sql: Sql, scope: string, before: number, limit: number): Promise<number> {
    const n = Math.floor(limit);
    if (!(n > 0)) return 0;
    const [lock] = await sql.rows<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${lockKeySql('prune')}) AS ok`, [scope]);
    if (!lock?.ok) return 0;
    const q = positional(T.PRUNABLE_SQL, { before: Math.floor(before), limit: n });
    const ids = (await sql.rows<{ id: string }>(q.text, q.values)).map((r) => r.id);
    if (ids.length === 0) return 0;
    await sql.rows('DELETE FROM execution_attempts WHERE execution_id = ANY($1::text[])', [ids]); // first: they reference their execution
    return sql.count('DELETE FROM executions WHERE id = ANY($1::text[])', [ids]);
  },
};

/** The store operations of executions (with clock 'database', `p.now` of a release is ignored, as for claims) (store/sql-store.ts). */
export const executionOperations = {
  executionsFinish: async (c, p) => (p.outcomes.length === 0 ? { paused: [] } : executions.finish(c.sql, await c.notifyContext(), p.nodeId, p.outcomes)),
  leasesRelease: async (c, p) => {
    await executions.release(c.sql, c.clock, p);
  },
  executionGet: (c, p) => executions.get(c.sql, p.id),
  executionRetryingCount: (c, p) => executions.retryingCount(c.sql, p.limit),
  executionList: (c, p) => executions.list(c.sql, p),
  jobTrigger: async (c, p) => {
    const n = await c.notifyContext();
    return c.tx((sql) => executions.trigger(sql, n, p));
  },
  executionsPrune: async (c, p) => {
    // Once per cluster: 0 at once while another node prunes.
    const scope = await c.scope();
    return c.tx((sql) => executions.prune(sql, scope, p.before, p.limit));
  },
} satisfies Partial<Operations<PgContext>>;
