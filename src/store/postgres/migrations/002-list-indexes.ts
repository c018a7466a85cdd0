/** Version 2 of the PostgreSQL schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

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
CREATE INDEX schedules_by_created ON schedules (created_at, id);
CREATE INDEX schedules_pending_by_created ON schedules (created_at, id) WHERE status = 'Pending';
CREATE INDEX schedules_running_by_created ON schedules (created_at, id) WHERE status = 'Running';
CREATE INDEX schedules_succeeded_by_created ON schedules (created_at, id) WHERE status = 'Succeeded';
CREATE INDEX schedules_failed_by_created ON schedules (created_at, id) WHERE status = 'Failed';
CREATE INDEX cron_jobs_by_created ON cron_jobs (created_at, id);
CREATE INDEX cron_jobs_active_by_created ON cron_jobs (created_at, id) WHERE status = 'Active';
CREATE INDEX cron_jobs_paused_by_created ON cron_jobs (created_at, id) WHERE status = 'Paused';

CREATE TABLE schedule_tags (
  tag         text COLLATE "C" NOT NULL,
  created_at  bigint NOT NULL,
  schedule_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (tag, created_at, schedule_id)
);

INSERT INTO schedule_tags (tag, created_at, schedule_id)
SELECT DISTINCT t.tag, s.created_at, s.id FROM schedules s, json_array_elements_text(s.tags) AS t(tag);

CREATE FUNCTION schedule_tags_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM schedule_tags
     WHERE tag IN (SELECT json_array_elements_text(OLD.tags)) AND created_at = OLD.created_at AND schedule_id = OLD.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO schedule_tags (tag, created_at, schedule_id)
    SELECT DISTINCT t.tag, NEW.created_at, NEW.id FROM json_array_elements_text(NEW.tags) AS t(tag);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER schedule_tags_insert AFTER INSERT ON schedules
  FOR EACH ROW EXECUTE FUNCTION schedule_tags_sync();
CREATE TRIGGER schedule_tags_update AFTER UPDATE OF tags ON schedules
  FOR EACH ROW WHEN (OLD.tags::text IS DISTINCT FROM NEW.tags::text) EXECUTE FUNCTION schedule_tags_sync();
CREATE TRIGGER schedule_tags_delete AFTER DELETE ON schedules
  FOR EACH ROW EXECUTE FUNCTION schedule_tags_sync();

-- The page statements walk these indexes only when the planner knows how many rows they hold
-- (without statistics it may sort instead; see paging.ts): give it statistics now.
ANALYZE schedules, schedule_tags, cron_jobs;
`,
};
