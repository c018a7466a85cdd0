/** One of PostgreSQL's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

// The steps of a retry policy, as SQLite's migration 9: JSON array of ms, NULL (every existing row) for the exponential rule.
export const MIGRATION: Migration = {
  version: 8,
  sql: `
ALTER TABLE schedules ADD COLUMN retry_delays_ms json;
ALTER TABLE cron_jobs ADD COLUMN retry_delays_ms json;
`,
};
