/** One of SQLite's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import { addColumns, type Migration } from './migration.js';
import { AUTO_PAUSE, SUCCESS_STATUSES } from '../../sql/job-columns.js';

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
${addColumns({ schedules: [SUCCESS_STATUSES], cron_jobs: [SUCCESS_STATUSES, ...AUTO_PAUSE] })}
`,
};
