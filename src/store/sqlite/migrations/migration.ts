import { columnWriters } from '../../sql/columns.js';
import type { TagTableNames } from '../../sql/tags.js';

/** One numbered schema change. Versions start at 1, increase by 1, and are never edited once released. */
export interface Migration {
  version: number;
  /** Statements run in the migration's transaction. */
  sql: string;
}

/**
 * The derived tag table of a job kind (store/sql/tags.ts).
 * Released migrations run this text byte for byte (test/unit/migrations-frozen.test.ts).
 */
export function tagTable(n: TagTableNames): string {
  return `CREATE TABLE ${n.tags} (
  tag         TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  ${n.id.padEnd(11)} TEXT    NOT NULL,
  PRIMARY KEY (tag, created_at, ${n.id})
) STRICT, WITHOUT ROWID;`;
}

/** The triggers that keep the tag table of {@link tagTable} in step with the jobs' `tags`. */
export function tagTriggers(n: TagTableNames): string {
  const insert = `INSERT INTO ${n.tags} (tag, created_at, ${n.id})
  SELECT DISTINCT value, NEW.created_at, NEW.id FROM json_each(NEW.tags);`;
  const remove = `DELETE FROM ${n.tags}
   WHERE tag IN (SELECT value FROM json_each(OLD.tags)) AND created_at = OLD.created_at AND ${n.id} = OLD.id;`;
  return `CREATE TRIGGER ${n.tags}_insert AFTER INSERT ON ${n.jobs} BEGIN
  ${insert}
END;

CREATE TRIGGER ${n.tags}_update AFTER UPDATE OF tags ON ${n.jobs} WHEN OLD.tags IS NOT NEW.tags BEGIN
  ${remove}
  ${insert}
END;

CREATE TRIGGER ${n.tags}_delete AFTER DELETE ON ${n.jobs} BEGIN
  ${remove}
END;`;
}

/** Tags on a job kind that had none: its `tags` column (`[]` for existing jobs), its tag table and triggers. */
export function tagsAdded(n: TagTableNames): string {
  return `ALTER TABLE ${n.jobs} ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';\n\n${tagTable(n)}\n\n${tagTriggers(n)}`;
}

/** The tag table of a job kind whose `tags` column exists: the table, filled from the jobs' tags, and its triggers. */
export function tagsOf(n: TagTableNames): string {
  return `${tagTable(n)}\n\nINSERT INTO ${n.tags} (tag, created_at, ${n.id})\nSELECT DISTINCT j.value, s.created_at, s.id FROM ${n.jobs} s, json_each(s.tags) j;\n\n${tagTriggers(n)}`;
}

/**
 * Column DDL in SQLite's types (store/sql/columns.ts): `text` and `json` are TEXT, `integer` and
 * `bigint` INTEGER.
 */
export const { addColumns, columnDefs } = columnWriters({ text: 'TEXT', json: 'TEXT', integer: 'INTEGER', bigint: 'INTEGER' });
