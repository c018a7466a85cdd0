/*
 * The PostgreSQL claim's statements (claim.ts explains the claim, its locking and its measured
 * costs); their plans are checked with EXPLAIN in test/store/postgres.test.ts.
 */
import { BACKFILL_RECHECK_MS } from '../../rules/backfill.js';
import { executionWithJobSql } from '../../sql/claim.js';
import { columnList, REQUEST_COLUMNS, RETRY_COLUMNS } from '../../rows/jobs.js';
import { MISSED_COLUMN_NAMES } from '../../rows/executions.js';
import { DB_NOW_MS, lockKeySql } from '../connection.js';
import { JOB_COLUMNS } from '../queries/cron-jobs.js';

/**
 * Up to `$1` due items across the four sources, earliest first, each row locked (FOR UPDATE SKIP
 * LOCKED). Params: `$1` limit, `$2` the schema (advisory lock scope), `$3` the look ahead in ms
 * (store/rules/claim.ts, "Claiming ahead": leases are compared with now, the rest with now + `$3`), and
 * with clock 'caller' `$4` now. Returns `now` with each row: the instant the claim uses. A last row
 * of kind `held` says that a call waiting for its flow-control key is due (one descent of
 * executions_held_due; no lock): the claim then runs its flow-control pass (held.ts).
 */
export function candidatesSql(clock: 'database' | 'caller'): string {
  const now = clock === 'database' ? DB_NOW_MS : '$4::bigint';
  return `WITH t0 AS MATERIALIZED (SELECT ${now} AS now),
t AS MATERIALIZED (SELECT now, now + $3::bigint AS due_by FROM t0),
s AS (SELECT 'schedule' AS kind, id, scheduled_at AS due FROM schedules
       WHERE status = 'Pending' AND scheduled_at <= (SELECT due_by FROM t)
       ORDER BY scheduled_at LIMIT $1 FOR UPDATE SKIP LOCKED),
c AS (SELECT 'cron' AS kind, id, next_invocation AS due FROM cron_jobs
       WHERE status = 'Active' AND next_invocation <= (SELECT due_by FROM t)
       ORDER BY next_invocation LIMIT $1 FOR UPDATE SKIP LOCKED),
w AS (SELECT 'waiting' AS kind, id, next_attempt_at AS due FROM executions
       WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL AND next_attempt_at <= (SELECT due_by FROM t)
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED),
l AS (SELECT 'lease' AS kind, id, lease_expires_at AS due FROM executions
       WHERE status = 'Running' AND lease_expires_at <= (SELECT now FROM t)
         AND pg_try_advisory_xact_lock(${lockKeySql('reclaim', '$2')})
       ORDER BY lease_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED),
h AS (SELECT next_attempt_at AS due FROM executions
       WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NOT NULL AND next_attempt_at <= (SELECT now FROM t)
       ORDER BY next_attempt_at LIMIT 1)
(SELECT x.kind, x.id, x.due, (SELECT now FROM t) AS now
  FROM (SELECT * FROM s UNION ALL SELECT * FROM c UNION ALL SELECT * FROM w UNION ALL SELECT * FROM l) AS x
 ORDER BY x.due, x.kind COLLATE "C", x.id
 LIMIT $1)
UNION ALL
SELECT 'held', '', h.due, (SELECT now FROM t) FROM h`;
}

/**
 * The earliest due instant of the four sources: each scalar subquery reads the first entry of
 * its partial index (ORDER BY … LIMIT 1: one descent, no sort); LEAST ignores NULLs. `held`: the
 * oldest call waiting for its flow-control key (executions_held_due), whose keys the caller then
 * reads (held.ts) when it is not null.
 */
export const NEXT_DUE_SQL = `SELECT LEAST(
  (SELECT scheduled_at FROM schedules WHERE status = 'Pending' ORDER BY scheduled_at LIMIT 1),
  (SELECT next_invocation FROM cron_jobs WHERE status = 'Active' ORDER BY next_invocation LIMIT 1),
  (SELECT next_attempt_at FROM executions WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL ORDER BY next_attempt_at LIMIT 1),
  (SELECT lease_expires_at FROM executions WHERE status = 'Running' ORDER BY lease_expires_at LIMIT 1)) AS due,
  (SELECT next_attempt_at FROM executions WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NOT NULL
    ORDER BY next_attempt_at LIMIT 1) AS held`;

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
     WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL AND next_attempt_at <= (SELECT now FROM t) LIMIT $1) AS x) AS waiting,
  (SELECT count(*) FROM (SELECT 1 FROM executions
     WHERE status = 'Running' AND lease_expires_at <= (SELECT now FROM t) LIMIT $1) AS x) AS lease`;
}

/**
 * Schedules of a run of candidates (`$1` ids, `$2` new execution ids, `$3` now, `$4` node, `$5`
 * lease margin): Pending → Running, each with its Running execution (attempt 1, leased until
 * now + its timeout + margin, started_at `greatest(now, scheduled_at)`: `attemptStart` of
 * store/rules/claim.ts, for a schedule claimed ahead); a schedule that names a flow-control key
 * gets a Pending execution instead, due at its `due_at`, with the key (`sourceStatus`,
 * store/rules/claim-occurrences.ts: the flow-control pass starts it). A schedule whose occurrence already has an execution (unreachable
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
  RETURNING x.id, u.eid, x.endpoint, x.data, x.scheduled_at, coalesce(x.due_at, x.scheduled_at) AS due_at,
            ${columnList(RETRY_COLUMNS, 'x')}, x.timeout_ms, x.success_statuses, ${columnList(REQUEST_COLUMNS, 'x')}, x.flow_control_key),
ins AS (
  INSERT INTO executions (id, job_type, job_id, scheduled_for, due_at, triggered, status, attempt, created_at,
                          started_at, lease_owner, lease_expires_at, next_attempt_at, flow_control_key)
  SELECT s.eid, 'schedule', s.id, s.scheduled_at, s.due_at, false, k.status, k.attempt, $3::bigint,
         CASE WHEN k.held THEN NULL ELSE greatest($3::bigint, s.scheduled_at) END,
         CASE WHEN k.held THEN NULL ELSE $4::text END,
         CASE WHEN k.held THEN NULL ELSE $3::bigint + s.timeout_ms + $5::bigint END,
         CASE WHEN k.held THEN s.due_at END, s.flow_control_key
    FROM s CROSS JOIN LATERAL (SELECT s.flow_control_key IS NOT NULL AS held,
                                      CASE WHEN s.flow_control_key IS NULL THEN 'Running' ELSE 'Pending' END AS status,
                                      CASE WHEN s.flow_control_key IS NULL THEN 1 ELSE 0 END AS attempt) AS k
  ON CONFLICT (job_type, job_id, scheduled_for) WHERE NOT triggered DO NOTHING
  RETURNING id)
SELECT s.*, s.eid IN (SELECT id FROM ins) AS inserted FROM s`;

/**
 * Waiting executions and expired leases of a run of candidates (`$1` ids, `$2` now, `$3` node,
 * `$4` lease margin, `$5` the claim's `dueBy`: a waiting execution due by then is taken, an
 * expired lease only at now): each is leased again with attempt + 1 and sent with its job's
 * *current* endpoint, data, request, retry policy and timeout; one whose job was deleted becomes
 * Failed ('job deleted') and returns nothing; a backfilled one that must wait its turn
 * (`backfill_blocked`, store/rules/backfill.ts) is put back BACKFILL_RECHECK_MS ahead and returns nothing. started_at is kept when set (attempt 1 set it), else
 * `greatest(now, next_attempt_at)` (`attemptStart`, store/rules/claim.ts; NULL for a lease: now).
 */
export const RELET_SQL = `WITH k AS MATERIALIZED (
  SELECT id, job_type, job_id, scheduled_for, due_at, status, backfill, next_attempt_at, lease_expires_at, retry_base, flow_control_key,
         ${columnList(MISSED_COLUMN_NAMES)}
    FROM executions WHERE id = ANY($1::text[])),
e AS (
  ${executionWithJobSql('k AS e')}
   WHERE ((e.status IN ('Pending', 'Retrying') AND e.next_attempt_at <= $5::bigint)
          OR (e.status = 'Running' AND e.lease_expires_at <= $2::bigint))),
failed AS (
  UPDATE executions x SET status = 'Failed', finished_at = $2::bigint, error = 'job deleted',
         next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL
    FROM e WHERE x.id = ANY($1::text[]) AND x.id = e.id AND NOT e.job_exists),
deferred AS (
  UPDATE executions x SET next_attempt_at = $2::bigint + ${BACKFILL_RECHECK_MS}
    FROM e WHERE x.id = ANY($1::text[]) AND x.id = e.id AND e.job_exists AND e.backfill_blocked = 1)
UPDATE executions x SET status = 'Running', attempt = x.attempt + 1, started_at = coalesce(x.started_at, greatest($2::bigint, x.next_attempt_at)),
       next_attempt_at = NULL, lease_owner = $3::text, lease_expires_at = $2::bigint + e.timeout_ms + $4::bigint
  FROM e WHERE x.id = ANY($1::text[]) AND x.id = e.id AND e.job_exists AND e.backfill_blocked = 0
RETURNING x.id, x.attempt, e.retry_base, e.flow_control_key, x.lease_expires_at, e.job_type, e.job_id, e.scheduled_for, e.due_at, e.endpoint, e.data,
          ${columnList(RETRY_COLUMNS, 'e')}, e.timeout_ms, e.success_statuses, ${columnList(MISSED_COLUMN_NAMES, 'e')},
          ${columnList(REQUEST_COLUMNS, 'e')}`;

/**
 * The due cron jobs of a claim (`$1` ids, `$2` the claim's `dueBy`), each with its newest execution and whether
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
export const EXISTING_OCCURRENCES_SQL = `SELECT scheduled_for FROM executions
 WHERE job_type = 'cron' AND job_id = $1 AND NOT triggered AND scheduled_for = ANY($2::bigint[])`;

/**
 * One cron job's claim, in one statement: insert its occurrences (`$2` ids, `$3` instants, `$4`
 * statuses; `$5` now, `$6` node, `$7` lease expiry of the Running ones, started at
 * `greatest(now, occurrence)` (`attemptStart`, store/rules/claim.ts); `$12`–`$15` the
 * `missed_*` columns, NULL unless the plan has one occurrence that stands for several), ON
 * CONFLICT DO NOTHING, and advance the job (`$8` next_invocation, `$9` status) counting the
 * executions inserted, adding `$16` (the plan's `skipped`) to `skipped_occurrences` when any was
 * inserted (`cronAdvance`'s rule), and moving `last_execution_id` to the newest execution among
 * those inserted and the previous one (`$10`, `$11`), by the rule of `newerExecution`
 * (store/rules/claim.ts), here in SQL because only this statement knows which inserts took place.
 * `$17` and `$18` are each occurrence's `due_at` and `next_attempt_at` as the rules give them
 * (`occurrenceDue`, store/rules/claim-occurrences.ts: the jitter); `$19` the job's flow-control key. Returns the ids inserted.
 */
export const CRON_ADVANCE_SQL = `WITH u AS (SELECT * FROM unnest($2::text[], $3::bigint[], $4::text[], $17::bigint[], $18::bigint[])
                    WITH ORDINALITY AS u(id, sf, st, due, nat, ord)),
ins AS (
  INSERT INTO executions (id, job_type, job_id, scheduled_for, due_at, triggered, status, attempt, created_at,
                          started_at, finished_at, next_attempt_at, lease_owner, lease_expires_at,
                          ${columnList(MISSED_COLUMN_NAMES)}, flow_control_key)
  SELECT u.id, 'cron', $1::text, u.sf, u.due, false, u.st, CASE WHEN u.st = 'Running' THEN 1 ELSE 0 END, $5::bigint,
         CASE WHEN u.st = 'Running' THEN greatest($5::bigint, u.sf) END,
         CASE WHEN u.st = 'Skipped' THEN $5::bigint END,
         u.nat,
         CASE WHEN u.st = 'Running' THEN $6::text END,
         CASE WHEN u.st = 'Running' THEN $7::bigint END,
         $12::bigint, $13::bigint, $14::bigint, $15::boolean, $19::text
    FROM u ORDER BY u.ord
  ON CONFLICT (job_type, job_id, scheduled_for) WHERE NOT triggered DO NOTHING
  RETURNING id, scheduled_for),
adv AS (
  UPDATE cron_jobs SET next_invocation = $8::bigint, status = $9::text,
         invocations = invocations + (SELECT count(*) FROM ins),
         skipped_occurrences = skipped_occurrences + CASE WHEN EXISTS (SELECT 1 FROM ins) THEN $16::bigint ELSE 0 END,
         last_execution_id = coalesce(
           (SELECT n.id FROM (SELECT id, scheduled_for FROM ins
                              UNION ALL SELECT $10::text, $11::bigint WHERE $10::text IS NOT NULL) AS n
             ORDER BY n.scheduled_for DESC NULLS LAST, n.id COLLATE "C" DESC LIMIT 1),
           last_execution_id)
   WHERE id = $1::text)
SELECT id FROM ins`;
