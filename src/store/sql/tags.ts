/*
 * The indexes of the lists' order and the derived tag tables of the two job kinds, alike on both
 * databases. The tag tables: one row per (tag, job),
 * in list order (created_at, id), kept in step with the jobs' `tags` by triggers, so that a tag
 * filter walks one tag's jobs from the table's primary key (docs/interface.md, "Tags"). Each
 * database's migrations/migration.ts writes the table and its triggers from these names.
 */

/**
 * The names of a job kind's tag table: `jobs` (the jobs' table, with a JSON array column `tags`
 * and `created_at`, `id`), `tags` (the derived table) and `id` (its column of the job's id).
 */
export interface TagTableNames {
  jobs: string;
  tags: string;
  id: string;
}

/** Schedules' tags: `schedule_tags` (tag, created_at, schedule_id). */
export const SCHEDULE_TAGS: TagTableNames = { jobs: 'schedules', tags: 'schedule_tags', id: 'schedule_id' };

/** Cron jobs' tags: `cron_job_tags` (tag, created_at, cron_job_id). */
export const CRON_JOB_TAGS: TagTableNames = { jobs: 'cron_jobs', tags: 'cron_job_tags', id: 'cron_job_id' };

/**
 * The indexes the paged lists walk (store/rules/paging.ts): every job of a kind, and the jobs of
 * each status, in list order (created_at, id). Valid on both databases; created by SQLite's
 * migration 3 and PostgreSQL's migration 2.
 */
export const LIST_INDEXES = `CREATE INDEX schedules_by_created ON schedules (created_at, id);
CREATE INDEX schedules_pending_by_created ON schedules (created_at, id) WHERE status = 'Pending';
CREATE INDEX schedules_running_by_created ON schedules (created_at, id) WHERE status = 'Running';
CREATE INDEX schedules_succeeded_by_created ON schedules (created_at, id) WHERE status = 'Succeeded';
CREATE INDEX schedules_failed_by_created ON schedules (created_at, id) WHERE status = 'Failed';
CREATE INDEX cron_jobs_by_created ON cron_jobs (created_at, id);
CREATE INDEX cron_jobs_active_by_created ON cron_jobs (created_at, id) WHERE status = 'Active';
CREATE INDEX cron_jobs_paused_by_created ON cron_jobs (created_at, id) WHERE status = 'Paused';`;
