/** Version 2 of the PostgreSQL schema (the conventions are in index.ts). */
import { tagsOf, type Migration } from './migration.js';
import { LIST_INDEXES, SCHEDULE_TAGS } from '../../sql/tags.js';

/*
 * Lists that scale, as SQLite's migration 3 (see there): indexes in list order
 * (created_at, id) for the whole lists and, partial, for each status (a status index leading
 * with `status` would compete with the claim's partial indexes for its `status = 'Pending'`),
 * and `schedule_tags` (tag, created_at, schedule_id) for one tag, kept in step with `schedules.tags` by a trigger, so `migrate-store`'s
 * target and any other writer keep it right. A GIN index on `tags` would find a tag's schedules
 * but not in list order: a page of a common tag would sort all of them. `json` has no equality
 * operator, hence the comparison as text in the update trigger's WHEN (a change in spacing only
 * rewrites the same tag rows).
 *
 * PostgreSQL chooses the ordered index walks of paging.ts from its statistics. With none (a
 * table never analysed, right after a bulk load) it may estimate a tag or status as rare and
 * sort all its rows instead, which costs in proportion to the rows matching. Autovacuum keeps
 * the statistics (it analyses a table after 10% of it changed); this migration and
 * `migrate-store` analyse the tables they fill.
 */
export const MIGRATION: Migration = {
  version: 2,
  sql: `
${LIST_INDEXES}

${tagsOf(SCHEDULE_TAGS)}

-- The page statements walk these indexes only when the planner knows how many rows they hold
-- (without statistics it may sort instead; see paging.ts): give it statistics now.
ANALYZE schedules, schedule_tags, cron_jobs;
`,
};
