/**
 * PostgreSQL's migrations of the life of cron jobs (docs/cron.md, "Start, end and limits" and
 * "Jitter"), as SQLite's migration 14.
 */
import { addColumns, type Migration } from './migration.js';
import { CRON_LIFE } from '../../sql/job-columns.js';

/*
 * `start_at`, `end_at` (epoch ms, NULL: unbounded), `max_invocations` (NULL: no limit),
 * `jitter_ms` (0: none), the state `Completed` in the status CHECK, and the partial index of the
 * `Completed` page scans (`GET /cron?status=Completed`).
 */
export const MIGRATION: Migration = {
  version: 13,
  sql: `
${addColumns({ cron_jobs: CRON_LIFE }, { aligned: false })}
ALTER TABLE cron_jobs DROP CONSTRAINT cron_jobs_status_check;
ALTER TABLE cron_jobs ADD CONSTRAINT cron_jobs_status_check CHECK (status IN ('Active', 'Paused', 'Completed'));
CREATE INDEX cron_jobs_completed_by_created ON cron_jobs (created_at, id) WHERE status = 'Completed';
`,
};
