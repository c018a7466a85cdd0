/*
 * The SQLite claim's statements that read the due sources (claim.ts explains the claim), each
 * through its partial index (store/sqlite/migrations/index.ts); the plans are checked with EXPLAIN QUERY PLAN in
 * test/store/sqlite.test.ts.
 */

/**
 * Up to `limit` due items across the four sources, earliest first. Bound: `:now`, `:dueBy` (the
 * claim's look ahead, store/rules/claim.ts: leases are compared with `:now`, the rest with `:dueBy`),
 * `:limit`. Each branch is a range search of its partial index (checked with EXPLAIN QUERY PLAN).
 */
export const CANDIDATES_SQL = `
SELECT kind, id, due FROM (
  SELECT 'schedule' AS kind, id, scheduled_at AS due FROM schedules
   WHERE status = 'Pending' AND scheduled_at <= :dueBy ORDER BY scheduled_at LIMIT :limit)
UNION ALL
SELECT kind, id, due FROM (
  SELECT 'cron' AS kind, id, next_invocation AS due FROM cron_jobs
   WHERE status = 'Active' AND next_invocation <= :dueBy ORDER BY next_invocation LIMIT :limit)
UNION ALL
SELECT kind, id, due FROM (
  SELECT 'waiting' AS kind, id, next_attempt_at AS due FROM executions
   WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL AND next_attempt_at <= :dueBy ORDER BY next_attempt_at LIMIT :limit)
UNION ALL
SELECT kind, id, due FROM (
  SELECT 'lease' AS kind, id, lease_expires_at AS due FROM executions
   WHERE status = 'Running' AND lease_expires_at <= :now ORDER BY lease_expires_at LIMIT :limit)
ORDER BY due, kind, id
LIMIT :limit`;

/**
 * The earliest due instant of each source: four scalar subqueries, each reading the first entry
 * of its partial index (ORDER BY … LIMIT 1 on the indexed column: O(log n), no scan, no sort —
 * checked with EXPLAIN QUERY PLAN in test/store/sqlite.test.ts).
 */
export const NEXT_DUE_SQL = `
SELECT
  (SELECT scheduled_at FROM schedules WHERE status = 'Pending' ORDER BY scheduled_at LIMIT 1) AS schedule_due,
  (SELECT next_invocation FROM cron_jobs WHERE status = 'Active' ORDER BY next_invocation LIMIT 1) AS cron_due,
  (SELECT next_attempt_at FROM executions WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL ORDER BY next_attempt_at LIMIT 1) AS waiting_due,
  (SELECT lease_expires_at FROM executions WHERE status = 'Running' ORDER BY lease_expires_at LIMIT 1) AS lease_due`;

/**
 * Due work not yet claimed, per source, each count stopping at `:limit` (Store.dueCount): the
 * same `<= :now` range searches of the same partial indexes as CANDIDATES_SQL, reading at most
 * `:limit` entries each (index only, except `executions_waiting`, whose IN predicate SQLite checks
 * again on the row; checked with EXPLAIN QUERY PLAN in test/store/sqlite.test.ts). INDEXED BY, as
 * in IN_PROGRESS_SQL: without statistics the planner may prefer an index on `status` alone, and
 * would then walk every Pending schedule (due or not) instead of the due ones. Bound: `:now`,
 * `:limit`.
 */
export const DUE_COUNT_SQL = `
SELECT
  (SELECT count(*) FROM (SELECT 1 FROM schedules INDEXED BY schedules_pending_due
     WHERE status = 'Pending' AND scheduled_at <= :now LIMIT :limit)) AS schedule,
  (SELECT count(*) FROM (SELECT 1 FROM cron_jobs INDEXED BY cron_jobs_active_due
     WHERE status = 'Active' AND next_invocation <= :now LIMIT :limit)) AS cron,
  (SELECT count(*) FROM (SELECT 1 FROM executions INDEXED BY executions_waiting
     WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL AND next_attempt_at <= :now LIMIT :limit)) AS waiting,
  (SELECT count(*) FROM (SELECT 1 FROM executions INDEXED BY executions_running_lease
     WHERE status = 'Running' AND lease_expires_at <= :now LIMIT :limit)) AS lease`;

/**
 * Is an execution of this cron job in progress? One descent of `executions_in_progress`. INDEXED
 * BY because, without statistics, the planner prefers `executions_by_job` (two equality terms
 * instead of one) and would then walk the job's whole history.
 */
export const IN_PROGRESS_SQL = `SELECT 1 AS one FROM executions INDEXED BY executions_in_progress
 WHERE job_type = 'cron' AND job_id = ? AND status IN ('Pending', 'Running', 'Retrying') LIMIT 1`;
