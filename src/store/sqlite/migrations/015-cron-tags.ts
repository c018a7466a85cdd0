/**
 * SQLite's migration of tags on cron jobs (docs/interface.md, "Tags"): `cron_jobs.tags` (a JSON
 * array, `[]` for existing jobs) and `cron_job_tags`, derived from it and kept in step by triggers,
 * as `schedule_tags` is for schedules (migration 3, store/sqlite/migrations/index.ts): a row per (tag, job) in list
 * order, so that a tag filter walks one tag's jobs straight from its primary key and checks the
 * other tags by primary-key lookups (the table and its triggers: store/sql/tags.ts).
 */
import { tagsAdded, type Migration } from './migration.js';
import { CRON_JOB_TAGS } from '../../sql/tags.js';

/** Version 15. */
export const MIGRATION: Migration = {
  version: 15,
  sql: `
${tagsAdded(CRON_JOB_TAGS)}
`,
};
