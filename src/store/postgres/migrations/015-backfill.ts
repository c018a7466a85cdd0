/**
 * PostgreSQL's migration of the backfill of cron jobs, as SQLite's (src/store/sqlite/migrations/016-backfill.ts).
 */
import type { Migration } from './migration.js';

// `backfill`: true for an execution made by `POST /cron/{id}/backfill`, false for every other one.
export const MIGRATION: Migration = {
  version: 15,
  sql: `
ALTER TABLE executions ADD COLUMN backfill boolean NOT NULL DEFAULT false;
`,
};
