/** One of PostgreSQL's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

// What counts as success and the auto-pause of cron jobs, as SQLite's migration 10.
export const MIGRATION: Migration = {
  version: 9,
  sql: `
ALTER TABLE schedules ADD COLUMN success_statuses     json    NOT NULL DEFAULT '["2xx"]';
ALTER TABLE cron_jobs ADD COLUMN success_statuses     json    NOT NULL DEFAULT '["2xx"]';
ALTER TABLE cron_jobs ADD COLUMN pause_after_failures integer;
ALTER TABLE cron_jobs ADD COLUMN paused_reason        text;
ALTER TABLE cron_jobs ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
`,
};
