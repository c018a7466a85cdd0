/** Version 7 of the PostgreSQL schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

// The jobs that carry sealed secrets, by id, as SQLite's migration 8 (`Store.secretsNewest`, `Store.secretsPage`).
export const MIGRATION: Migration = {
  version: 7,
  sql: `
CREATE INDEX schedules_with_secrets ON schedules (id) WHERE secrets IS NOT NULL;
CREATE INDEX cron_jobs_with_secrets ON cron_jobs (id) WHERE secrets IS NOT NULL;
`,
};
