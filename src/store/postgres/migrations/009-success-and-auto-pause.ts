/** One of PostgreSQL's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import { addColumns, type Migration } from './migration.js';
import { AUTO_PAUSE, SUCCESS_STATUSES } from '../../sql/job-columns.js';

/*
 * What counts as success and the auto-pause of cron jobs, as SQLite's migration 10:
 * `success_statuses` on both job kinds; `pause_after_failures`, `paused_reason` and
 * `consecutive_failures` on cron jobs (their types: store/sql/job-columns.ts).
 */
export const MIGRATION: Migration = {
  version: 9,
  sql: `
${addColumns({ schedules: [SUCCESS_STATUSES], cron_jobs: [SUCCESS_STATUSES, ...AUTO_PAUSE] })}
`,
};
