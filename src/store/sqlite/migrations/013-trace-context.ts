/** One of SQLite's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

/*
 * The W3C Trace Context of each attempt (docs/calls.md, "Trace Context"): the trace id (the
 * execution's) and the span id sent in its `traceparent`. Attempts recorded before have none (NULL).
 */
export const MIGRATION: Migration = {
  version: 13,
  sql: `
ALTER TABLE execution_attempts ADD COLUMN trace_id TEXT;
ALTER TABLE execution_attempts ADD COLUMN span_id  TEXT;
`,
};
