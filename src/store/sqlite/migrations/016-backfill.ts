/**
 * SQLite's migration of the backfill of cron jobs (docs/cron.md, "Backfill"; the rules in
 * src/store/rules/backfill.ts).
 */
import type { Migration } from './migration.js';

/*
 * `backfill`: 1 for an execution made by `POST /cron/{id}/backfill`, 0 for every other one
 * (existing rows included). The claim and the finish find a job's backfilled executions through
 * `executions_in_progress` (they are Pending until they run), so no index is added.
 */
export const MIGRATION: Migration = {
  version: 16,
  sql: `
ALTER TABLE executions ADD COLUMN backfill INTEGER NOT NULL DEFAULT 0;
`,
};
