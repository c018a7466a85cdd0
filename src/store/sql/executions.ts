/**
 * Statements of the `executions` table outside the claim, valid in both dialects, with named
 * parameters (`:name`; PostgreSQL's queries turn them into `$n` with `positional`): pruning
 * (`Store.executionsPrune`) and the trigger of a job (`Store.jobTrigger`). Instants are epoch ms (UTC).
 */

/**
 * Up to `:limit` finished executions older than `:before`, oldest first (the `executions_finished`
 * index). The newest execution of an existing cron job is kept: it backs the job's
 * lastInvocation/lastStatus (a primary-key lookup of the job per row).
 */
export const PRUNABLE_SQL = `SELECT e.id FROM executions e
 WHERE e.finished_at < :before AND e.status IN ('Succeeded', 'Failed', 'Skipped')
   AND NOT (e.job_type = 'cron'
            AND EXISTS (SELECT 1 FROM cron_jobs c WHERE c.id = e.job_id AND c.last_execution_id = e.id))
 ORDER BY e.finished_at LIMIT :limit`;

/** A trigger of a schedule starts it: `Pending` becomes `Running`; no row when it is not Pending (or absent). */
export const TRIGGER_START_SCHEDULE_SQL = `UPDATE schedules SET status = 'Running' WHERE id = :jobId AND status = 'Pending' RETURNING id`;

/** One row when schedule `:jobId` exists (a trigger refused tells `not_pending` from `not_found`). */
export const SCHEDULE_EXISTS_SQL = 'SELECT 1 AS one FROM schedules WHERE id = :jobId';

/** The newest execution of cron job `:jobId` and its occurrence (`LastExecutionRow`); no row when the job is absent. */
export const TRIGGER_CRON_LAST_SQL = `SELECT c.last_execution_id, l.scheduled_for AS last_invocation
 FROM cron_jobs c LEFT JOIN executions l ON l.id = c.last_execution_id WHERE c.id = :jobId`;

/**
 * The execution of a trigger: `Pending` at attempt 0, due at once, its occurrence the instant of
 * the trigger (`:now`), with its job's flow-control key; `:triggered` is the dialect's true (SQLite 1).
 */
export const TRIGGER_INSERT_SQL = `INSERT INTO executions (id, job_type, job_id, scheduled_for, triggered, status, attempt, created_at, next_attempt_at,
   flow_control_key)
 VALUES (:id, :jobType, :jobId, :now, :triggered, 'Pending', 0, :now, :now,
   coalesce((SELECT s.flow_control_key FROM schedules s WHERE :jobType = 'schedule' AND s.id = :jobId),
            (SELECT c.flow_control_key FROM cron_jobs c WHERE :jobType = 'cron' AND c.id = :jobId)))`;

/** A trigger counts as an invocation of its cron job and may become its newest execution (`:lastExecutionId`). */
export const TRIGGER_COUNT_CRON_SQL = 'UPDATE cron_jobs SET invocations = invocations + 1, last_execution_id = :lastExecutionId WHERE id = :jobId';
