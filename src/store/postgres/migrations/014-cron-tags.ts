/**
 * PostgreSQL's migration of tags on cron jobs, as SQLite's migration 15: `cron_jobs.tags` (json,
 * `[]` for existing jobs) and `cron_job_tags` (tag, created_at, cron_job_id), kept in step by a
 * trigger as `schedule_tags` is (migration 2, store/postgres/migrations/index.ts), so that a tag filter walks one tag's
 * jobs in list order.ts) lists it after the others.
 */
import type { Migration } from './migration.js';

/** Version 14. */
export const MIGRATION: Migration = {
  version: 14,
  sql: `
ALTER TABLE cron_jobs ADD COLUMN tags json NOT NULL DEFAULT '[]';

CREATE TABLE cron_job_tags (
  tag         text COLLATE "C" NOT NULL,
  created_at  bigint NOT NULL,
  cron_job_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (tag, created_at, cron_job_id)
);

CREATE FUNCTION cron_job_tags_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM cron_job_tags
     WHERE tag IN (SELECT json_array_elements_text(OLD.tags)) AND created_at = OLD.created_at AND cron_job_id = OLD.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO cron_job_tags (tag, created_at, cron_job_id)
    SELECT DISTINCT t.tag, NEW.created_at, NEW.id FROM json_array_elements_text(NEW.tags) AS t(tag);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER cron_job_tags_insert AFTER INSERT ON cron_jobs
  FOR EACH ROW EXECUTE FUNCTION cron_job_tags_sync();
CREATE TRIGGER cron_job_tags_update AFTER UPDATE OF tags ON cron_jobs
  FOR EACH ROW WHEN (OLD.tags::text IS DISTINCT FROM NEW.tags::text) EXECUTE FUNCTION cron_job_tags_sync();
CREATE TRIGGER cron_job_tags_delete AFTER DELETE ON cron_jobs
  FOR EACH ROW EXECUTE FUNCTION cron_job_tags_sync();

ANALYZE cron_job_tags;
`,
};
