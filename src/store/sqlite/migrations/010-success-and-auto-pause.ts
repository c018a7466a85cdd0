/** One of SQLite's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

/*
 * What counts as success, and the auto-pause of cron jobs (docs/calls.md, "What counts as
 * success"; docs/cron.md, "Auto-pause"; src/store/rules/outcome.ts): each job's
 * `success_statuses` (JSON text, existing jobs `["2xx"]`: what they did before); for cron jobs
 * `pause_after_failures` (NULL: never), `paused_reason` (NULL: none) and
 * `consecutive_failures`, kept by the finish transaction.
 */
export const MIGRATION: Migration = {
  version: 10,
  sql: `
ALTER TABLE schedules ADD COLUMN success_statuses     TEXT    NOT NULL DEFAULT '["2xx"]';
ALTER TABLE cron_jobs ADD COLUMN success_statuses     TEXT    NOT NULL DEFAULT '["2xx"]';
ALTER TABLE cron_jobs ADD COLUMN pause_after_failures INTEGER;
ALTER TABLE cron_jobs ADD COLUMN paused_reason        TEXT;
ALTER TABLE cron_jobs ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
`,
};
