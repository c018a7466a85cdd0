/** One of SQLite's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

/*
 * Executions across jobs and replay (docs/interface.md, "Executions across jobs"):
 *   retry_base                  attempts made before the current attempt budget began (0; a
 *                               replay sets it to the attempts made so far, so the job's retry
 *                               policy counts `attempt - retry_base`)
 *   executions_by_type_status_time  by kind, status, then (scheduled_for, id), for every status
 *                               but Running: the list, one backward range per kind and status,
 *                               merged. Partial, so that the hot path pays one index entry per
 *                               execution, written when it leaves Running: a claim inserts its
 *                               executions Running (nothing here) and the finish moves them to
 *                               their outcome (one entry). Running executions, as many as the
 *                               calls in flight and held leases, are read through
 *                               executions_running_lease. Not led by `status`: the claim's
 *                               searches of one status (waiting, finished) keep their partial indexes.
 * It holds `id`, so the list's scan reads the index only, then the page's rows by primary key
 * (store/sql/execution-search.ts; plans checked in test/store/sqlite.test.ts).
 */
export const MIGRATION: Migration = {
  version: 11,
  sql: `
ALTER TABLE executions ADD COLUMN retry_base INTEGER NOT NULL DEFAULT 0;
CREATE INDEX executions_by_type_status_time ON executions (job_type, status, scheduled_for, id) WHERE status <> 'Running';
`,
};
