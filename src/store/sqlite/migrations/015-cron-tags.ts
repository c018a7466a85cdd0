/**
 * SQLite's migration of tags on cron jobs (docs/interface.md, "Tags"): `cron_jobs.tags` (a JSON
 * array, `[]` for existing jobs) and `cron_job_tags`, derived from it and kept in step by triggers,
 * as `schedule_tags` is for schedules (migration 3, store/sqlite/migrations/index.ts): a row per (tag, job) in list
 * order, so that a tag filter walks one tag's jobs straight from its primary key and checks the
 * other tags by primary-key lookups.ts) lists it after the others.
 */
import type { Migration } from './migration.js';

/** Version 15. */
export const MIGRATION: Migration = {
  version: 15,
  sql: `
ALTER TABLE cron_jobs ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';

CREATE TABLE cron_job_tags (
  tag         TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  cron_job_id TEXT    NOT NULL,
  PRIMARY KEY (tag, created_at, cron_job_id)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER cron_job_tags_insert AFTER INSERT ON cron_jobs BEGIN
  INSERT INTO cron_job_tags (tag, created_at, cron_job_id)
  SELECT DISTINCT value, NEW.created_at, NEW.id FROM json_each(NEW.tags);
END;

CREATE TRIGGER cron_job_tags_update AFTER UPDATE OF tags ON cron_jobs WHEN OLD.tags IS NOT NEW.tags BEGIN
  DELETE FROM cron_job_tags
   WHERE tag IN (SELECT value FROM json_each(OLD.tags)) AND created_at = OLD.created_at AND cron_job_id = OLD.id;
  INSERT INTO cron_job_tags (tag, created_at, cron_job_id)
  SELECT DISTINCT value, NEW.created_at, NEW.id FROM json_each(NEW.tags);
END;

CREATE TRIGGER cron_job_tags_delete AFTER DELETE ON cron_jobs BEGIN
  DELETE FROM cron_job_tags
   WHERE tag IN (SELECT value FROM json_each(OLD.tags)) AND created_at = OLD.created_at AND cron_job_id = OLD.id;
END;
`,
};
