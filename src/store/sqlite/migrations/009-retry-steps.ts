/** One of SQLite's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

/*
 * The steps of a retry policy (docs/calls.md, "Outcomes and retries"): a JSON array of delays in
 * ms, NULL for the exponential rule of retry_initial_delay_ms and retry_max_delay_ms. Rows made
 * before this migration read NULL, so every existing job keeps the exponential policy it was
 * created with; new jobs store the steps of the default policy (src/store/rows/jobs.ts, RETRY_COLUMNS).
 */
export const MIGRATION: Migration = {
  version: 9,
  sql: `
ALTER TABLE schedules ADD COLUMN retry_delays_ms TEXT;
ALTER TABLE cron_jobs ADD COLUMN retry_delays_ms TEXT;
`,
};
