/** Version 2 of the SQLite schema (the conventions are in index.ts). */
import { addColumns, type Migration } from './migration.js';
import { CRON_POLICIES, DELIVERY } from '../../sql/job-columns.js';

/*
 * Delivery settings on both kinds of job (existing rows take the defaults of docs/calls.md):
 * `retry_max_attempts`, `retry_initial_delay_ms`, `retry_max_delay_ms`, `timeout_ms`; cron
 * policies: `misfire`, `overlap` (their types: store/sql/job-columns.ts); an execution history
 * with one row per attempt; a settings table.
 *
 * `cron_jobs.last_execution_id` points at the job's newest execution (greatest scheduled_for,
 * then id, the first row of its execution list), so `lastInvocation`/`lastStatus` are a primary-
 * key join at read time. Only the claim and a trigger, which create executions and write the
 * job row anyway, move the pointer; recording an outcome (the hot path) never touches cron_jobs.
 * Columns copied into cron_jobs would have to follow every status change of the execution.
 *
 * `executions` is rebuilt, because its UNIQUE (job_type, job_id, scheduled_for) is a table
 * constraint (an automatic index SQLite cannot drop) and must now exclude triggered executions:
 * two triggers in the same millisecond are two executions. The uniqueness of occurrences becomes
 * a partial unique index. The old `last_*` columns of the one recorded attempt move to
 * `execution_attempts`; `error` keeps what ended an execution without an attempt of its own
 * ('job deleted'). `started_at` is the first attempt's start: in migration 1 it was the start of
 * the attempt that *finished*, which after a crash is not the first; an execution was created
 * when its first attempt was claimed, so `created_at` is the best value for those rows.
 *
 * Indexes, each for one query (see claim.ts and executions.ts):
 *   executions_occurrence   one execution per occurrence (the claim's ON CONFLICT target)
 *   executions_by_job       a job's executions newest first, keyset-paged (read backwards)
 *   executions_running_lease  expired leases (claim source 4, nextDueAt)
 *   executions_waiting      Pending/Retrying executions by next attempt (claim source 3)
 *   executions_in_progress  "does this cron job have an execution in progress?" (overlap:
 *                           skip). Cron executions only: a schedule never asks, and keeping
 *                           schedules' executions out saves a B-tree insert and delete per
 *                           execution on the burst path (measured: ~4 µs per claim, ~3 µs
 *                           per outcome, 100,000 executions, WAL + synchronous FULL).
 *   executions_finished     finished executions by age (pruning)
 */
export const MIGRATION: Migration = {
  version: 2,
  sql: `
${addColumns({ schedules: DELIVERY })}

${addColumns({ cron_jobs: DELIVERY })}
${addColumns({ cron_jobs: CRON_POLICIES }, { nameWidth: 8 })}
-- The newest execution. No foreign key: read with LEFT JOIN; pruning never deletes the row it names.
ALTER TABLE cron_jobs ADD COLUMN last_execution_id TEXT;

ALTER TABLE executions RENAME TO executions_v1;

CREATE TABLE executions (
  id               TEXT    NOT NULL PRIMARY KEY,
  job_type         TEXT    NOT NULL CHECK (job_type IN ('schedule', 'cron')),
  job_id           TEXT    NOT NULL,
  scheduled_for    INTEGER NOT NULL,            -- the occurrence; for a trigger, its instant
  triggered        INTEGER NOT NULL DEFAULT 0 CHECK (triggered IN (0, 1)),
  status           TEXT    NOT NULL,            -- Pending | Running | Retrying | Succeeded | Failed | Skipped
  attempt          INTEGER NOT NULL,            -- number of the latest attempt claimed; 0 before the first
  created_at       INTEGER NOT NULL,
  started_at       INTEGER,                     -- first attempt's start
  finished_at      INTEGER,
  next_attempt_at  INTEGER,                     -- when a Pending or Retrying execution is due
  lease_owner      TEXT,
  lease_expires_at INTEGER,
  error            TEXT,                        -- why it ended without an attempt ('job deleted')
  CHECK (status <> 'Running' OR (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)),
  CHECK (status NOT IN ('Pending', 'Retrying') OR next_attempt_at IS NOT NULL),
  CHECK (status IN ('Pending', 'Running', 'Retrying') OR finished_at IS NOT NULL)
) STRICT;

INSERT INTO executions (id, job_type, job_id, scheduled_for, triggered, status, attempt, created_at,
                        started_at, finished_at, next_attempt_at, lease_owner, lease_expires_at, error)
SELECT id, job_type, job_id, scheduled_for, 0, status, attempt, created_at,
       CASE WHEN attempt = 1 AND started_at IS NOT NULL THEN started_at ELSE created_at END,
       finished_at, NULL, lease_owner, lease_expires_at,
       CASE WHEN started_at IS NULL THEN last_error END
  FROM executions_v1;

-- One row per attempt whose outcome was recorded. number = the attempt claimed (1-based).
CREATE TABLE execution_attempts (
  execution_id  TEXT    NOT NULL REFERENCES executions (id),
  number        INTEGER NOT NULL,
  started_at    INTEGER NOT NULL,
  duration_ms   INTEGER NOT NULL,
  status_code   INTEGER,
  error         TEXT,
  response_body TEXT,
  PRIMARY KEY (execution_id, number)
) STRICT;

-- Migration 1 set started_at only when recording an outcome: those rows had one recorded attempt.
INSERT INTO execution_attempts (execution_id, number, started_at, duration_ms, status_code, error, response_body)
SELECT id, attempt, started_at, coalesce(last_duration_ms, 0), last_status_code, last_error, last_response_body
  FROM executions_v1
 WHERE started_at IS NOT NULL;

DROP TABLE executions_v1;

CREATE UNIQUE INDEX executions_occurrence ON executions (job_type, job_id, scheduled_for) WHERE triggered = 0;
CREATE INDEX executions_by_job ON executions (job_type, job_id, scheduled_for, id);
CREATE INDEX executions_running_lease ON executions (lease_expires_at) WHERE status = 'Running';
CREATE INDEX executions_waiting ON executions (next_attempt_at) WHERE status IN ('Pending', 'Retrying');
CREATE INDEX executions_in_progress ON executions (job_id) WHERE job_type = 'cron' AND status IN ('Pending', 'Running', 'Retrying');
CREATE INDEX executions_finished ON executions (finished_at) WHERE finished_at IS NOT NULL;

UPDATE cron_jobs SET last_execution_id = (
  SELECT e.id FROM executions e
   WHERE e.job_type = 'cron' AND e.job_id = cron_jobs.id
   ORDER BY e.scheduled_for DESC, e.id DESC LIMIT 1);

CREATE TABLE settings (
  key   TEXT NOT NULL PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
`,
};
