/** One of PostgreSQL's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

// The W3C Trace Context of each attempt, as SQLite's migration 13: NULL for attempts recorded before.
export const MIGRATION: Migration = {
  version: 12,
  sql: `
ALTER TABLE execution_attempts ADD COLUMN trace_id text, ADD COLUMN span_id text;
`,
};
