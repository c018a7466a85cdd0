/**
 * SQLite's migration of job keys (docs/apply.md): the `key` of schedules and cron jobs, unique per
 * table, and `managed_by`, `apply` for the jobs `punctual apply` created.ts lists it.
 */
import type { Migration } from './migration.js';

/*
 *   key          the job's key (src/domain/job-key.ts), NULL: none
 *   managed_by   'apply' for a job created by `punctual apply`, NULL otherwise; set at create only
 *   <table>_by_key  partial and unique: two jobs of one kind never share a key, any number have
 *                none, and the list's `key` filter is one index lookup (src/store/rules/job-keys.ts)
 */
export const MIGRATION: Migration = {
  version: 18,
  sql: `
ALTER TABLE schedules ADD COLUMN key TEXT;
ALTER TABLE schedules ADD COLUMN managed_by TEXT CHECK (managed_by IN ('apply'));
ALTER TABLE cron_jobs ADD COLUMN key TEXT;
ALTER TABLE cron_jobs ADD COLUMN managed_by TEXT CHECK (managed_by IN ('apply'));
CREATE UNIQUE INDEX schedules_by_key ON schedules (key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX cron_jobs_by_key ON cron_jobs (key) WHERE key IS NOT NULL;
`,
};
