/**
 * PostgreSQL's migration of tags on cron jobs, as SQLite's migration 15: `cron_jobs.tags` (json,
 * `[]` for existing jobs) and `cron_job_tags` (tag, created_at, cron_job_id), kept in step by a
 * trigger as `schedule_tags` is (migration 2, store/postgres/migrations/index.ts), so that a tag filter walks one tag's
 * jobs in list order (the table and its triggers: store/sql/tags.ts).
 */
import { tagsAdded, type Migration } from './migration.js';
import { CRON_JOB_TAGS } from '../../sql/tags.js';

/** Version 14. */
export const MIGRATION: Migration = {
  version: 14,
  sql: `
${tagsAdded(CRON_JOB_TAGS)}

ANALYZE cron_job_tags;
`,
};
