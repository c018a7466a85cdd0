/**
 * SQLite's migrations of the life of cron jobs (docs/cron.md, "Start, end and limits" and
 * "Jitter"): the window and the limit of a job's occurrences, its jitter, and the `Completed`
 * state.
 */
import { columnDefs, type Migration } from './migration.js';
import { AUTO_PAUSE, CALL_REQUEST, CRON_LIFE, CRON_POLICIES, DELIVERY, SUCCESS_STATUSES } from '../../sql/job-columns.js';

/** Columns of `cron_jobs` as they stand at version 13, in the order of the table. */
const V13_COLUMNS = `id, expression, name, timezone, status, endpoint, data, invocations, next_invocation, created_at,
  retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, timeout_ms, misfire, overlap, last_execution_id,
  skipped_occurrences, method, headers, body, auth, secrets, retry_delays_ms, success_statuses, pause_after_failures,
  paused_reason, consecutive_failures`;


/*
 * `start_at`, `end_at` (epoch ms, NULL: unbounded), `max_invocations` (NULL: no limit),
 * `jitter_ms` (0: none) and the state `Completed`. SQLite cannot alter a CHECK, so the table is
 * rebuilt (nothing references `cron_jobs` by foreign key): the new table under a temporary
 * name, the rows copied, the old one dropped, the new one renamed, its indexes made again (with
 * the partial index of the `Completed` page scans of `GET /cron?status=Completed`). The groups of
 * columns earlier migrations added, and the new ones (`CRON_LIFE`), are those of
 * store/sql/job-columns.ts, in the layout those migrations gave them.
 */
export const MIGRATION: Migration = {
  version: 14,
  sql: `
CREATE TABLE cron_jobs_v14 (
  id              TEXT    NOT NULL PRIMARY KEY,
  expression      TEXT    NOT NULL,
  name            TEXT,
  timezone        TEXT,
  status          TEXT    NOT NULL CHECK (status IN ('Active', 'Paused', 'Completed')),
  endpoint        TEXT    NOT NULL,
  data            TEXT,
  invocations     INTEGER NOT NULL DEFAULT 0,
  next_invocation INTEGER NOT NULL,
  created_at      INTEGER NOT NULL,
${columnDefs(DELIVERY)},
${columnDefs(CRON_POLICIES, { nameWidth: 8 })},
  last_execution_id TEXT,
  skipped_occurrences INTEGER NOT NULL DEFAULT 0,
${columnDefs(CALL_REQUEST)},
  retry_delays_ms TEXT,
${columnDefs([SUCCESS_STATUSES, ...AUTO_PAUSE])},
${columnDefs(CRON_LIFE)}
) STRICT;
INSERT INTO cron_jobs_v14 (${V13_COLUMNS}) SELECT ${V13_COLUMNS} FROM cron_jobs;
DROP TABLE cron_jobs;
ALTER TABLE cron_jobs_v14 RENAME TO cron_jobs;
CREATE INDEX cron_jobs_active_due ON cron_jobs (next_invocation) WHERE status = 'Active';
CREATE INDEX cron_jobs_by_created ON cron_jobs (created_at, id);
CREATE INDEX cron_jobs_active_by_created ON cron_jobs (created_at, id) WHERE status = 'Active';
CREATE INDEX cron_jobs_paused_by_created ON cron_jobs (created_at, id) WHERE status = 'Paused';
CREATE INDEX cron_jobs_completed_by_created ON cron_jobs (created_at, id) WHERE status = 'Completed';
CREATE INDEX cron_jobs_with_secrets ON cron_jobs (id) WHERE secrets IS NOT NULL;
`,
};
