import { columnWriters } from '../../sql/columns.js';
import type { TagTableNames } from '../../sql/tags.js';

/** One numbered schema change. Versions start at 1, increase by 1, and are never edited once released. */
export interface Migration {
  version: number;
  /** Statements run in the migration's transaction (PostgreSQL DDL is transactional). */
  sql: string;
}

/**
 * The derived tag table of a job kind (store/sql/tags.ts).
 * Released migrations run this text byte for byte (test/unit/migrations-frozen.test.ts).
 */
export function tagTable(n: TagTableNames): string {
  return `CREATE TABLE ${n.tags} (
  tag         text COLLATE "C" NOT NULL,
  created_at  bigint NOT NULL,
  ${n.id.padEnd(11)} text COLLATE "C" NOT NULL,
  PRIMARY KEY (tag, created_at, ${n.id})
);`;
}

/** The trigger function and triggers that keep the tag table of {@link tagTable} in step with the jobs' `tags`. */
export function tagTriggers(n: TagTableNames): string {
  return `CREATE FUNCTION ${n.tags}_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM ${n.tags}
     WHERE tag IN (SELECT json_array_elements_text(OLD.tags)) AND created_at = OLD.created_at AND ${n.id} = OLD.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO ${n.tags} (tag, created_at, ${n.id})
    SELECT DISTINCT t.tag, NEW.created_at, NEW.id FROM json_array_elements_text(NEW.tags) AS t(tag);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER ${n.tags}_insert AFTER INSERT ON ${n.jobs}
  FOR EACH ROW EXECUTE FUNCTION ${n.tags}_sync();
CREATE TRIGGER ${n.tags}_update AFTER UPDATE OF tags ON ${n.jobs}
  FOR EACH ROW WHEN (OLD.tags::text IS DISTINCT FROM NEW.tags::text) EXECUTE FUNCTION ${n.tags}_sync();
CREATE TRIGGER ${n.tags}_delete AFTER DELETE ON ${n.jobs}
  FOR EACH ROW EXECUTE FUNCTION ${n.tags}_sync();`;
}

/** Tags on a job kind that had none: its `tags` column (`[]` for existing jobs), its tag table and triggers. */
export function tagsAdded(n: TagTableNames): string {
  return `ALTER TABLE ${n.jobs} ADD COLUMN tags json NOT NULL DEFAULT '[]';\n\n${tagTable(n)}\n\n${tagTriggers(n)}`;
}

/** The tag table of a job kind whose `tags` column exists: the table, filled from the jobs' tags, and its triggers. */
export function tagsOf(n: TagTableNames): string {
  return `${tagTable(n)}\n\nINSERT INTO ${n.tags} (tag, created_at, ${n.id})\nSELECT DISTINCT t.tag, s.created_at, s.id FROM ${n.jobs} s, json_array_elements_text(s.tags) AS t(tag);\n\n${tagTriggers(n)}`;
}

/** Column DDL in PostgreSQL's types (store/sql/columns.ts): `text`, `json`, `integer` and `bigint` as named. */
export const { addColumns, columnDefs } = columnWriters({ text: 'text', json: 'json', integer: 'integer', bigint: 'bigint' });
