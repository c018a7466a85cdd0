/** Version 3 of the SQLite schema (the conventions are in index.ts). */
import { tagsOf, type Migration } from './migration.js';
import { LIST_INDEXES, SCHEDULE_TAGS } from '../../sql/tags.js';

/*
 * Lists that scale. `GET /schedules` and `GET /cron` are keyset-paged in list order
 * (created_at, then id) and filter by status, tags and name; each page must cost the same
 * whatever the number of jobs. Indexes, each for one driver of a page scan (schedules.ts,
 * cron-jobs.ts):
 *   schedules_by_created, cron_jobs_by_created   the whole list
 *   <table>_<status>_by_created                  one status: a partial index per status, so
 *                                                a page of one status walks only its rows (a
 *                                                claim moves a schedule from one to the next:
 *                                                two B-tree writes per status change)
 *   schedule_tags                                one tag: a row per (tag, schedule), in list order
 *
 * Partial indexes per status rather than one on (status, created_at, id): without statistics
 * (Punctual never runs ANALYZE) SQLite's planner takes an index whose first column is
 * constrained by equality over the claim's partial indexes (schedules_pending_due,
 * cron_jobs_active_due), and the claim would then read every Pending schedule and sort them
 * (test/store/sqlite.test.ts, "query plans", checks both plans).
 *
 * `schedule_tags` is derived from `schedules.tags` (a JSON array) and kept in step by triggers,
 * so that every writer — the store, `migrate-store`'s target, the bench's direct seeding — keeps
 * it right without knowing of it. It carries `created_at` so that one tag's schedules come in
 * list order straight from its primary key; `created_at` and `id` of a schedule never change.
 * No rowid (WITHOUT ROWID): the primary key is the whole row. A schedule's other tags are
 * checked by primary-key lookups into the same table.
 */
export const MIGRATION: Migration = {
  version: 3,
  sql: `
${LIST_INDEXES}

${tagsOf(SCHEDULE_TAGS)}
`,
};
