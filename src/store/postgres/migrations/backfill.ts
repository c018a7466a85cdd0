/**
 * PostgreSQL's migration of the backfill of cron jobs, as SQLite's (src/store/sqlite/migrations/backfill.ts).
 */
import type { Migration } from './index.js';

/** The migrations of backfill, in order. */
export const BACKFILL_MIGRATIONS: readonly Migration[] = [
  // `backfill`: true for an execution made by `POST /cron/{id}/backfill`, false for every other one.
  {
    version: 15,
    sql: `
ALTER TABLE executions ADD COLUMN backfill boolean NOT NULL DEFAULT false;
`,
  },
];
