/** Version 8 of the SQLite schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

/*
 * The jobs that carry sealed secrets, by id (partial indexes: a job without secrets is not in
 * them). The start of `punctual serve` reads the newest of each table to check that its keys
 * open them (`Store.secretsNewest`, src/serve-store.ts), and `secrets rekey` walks them
 * (`Store.secretsPage`): both walk the index, never the table, however many jobs have none.
 */
export const MIGRATION: Migration = {
  version: 8,
  sql: `
CREATE INDEX schedules_with_secrets ON schedules (id) WHERE secrets IS NOT NULL;
CREATE INDEX cron_jobs_with_secrets ON cron_jobs (id) WHERE secrets IS NOT NULL;
`,
};
