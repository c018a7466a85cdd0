/**
 * SQLite's migrations of what happens when calls fail (docs/when-calls-fail.md): retry steps,
 * what counts as success and the auto-pause of cron jobs, the executions index across jobs and
 * replays, notification channels and their outbox, and the Trace Context of attempts. Apart from
 * store/sqlite/migrations/index.ts (the runner and the earlier versions) so that each file reads in one sitting;
 * `MIGRATIONS` there lists these after the others.
 */
import type { Migration } from './index.js';

/** The migrations from version 9 on, in order. */
export const FAILURE_MIGRATIONS: readonly Migration[] = [
  /*
   * The steps of a retry policy (docs/calls.md, "Outcomes and retries"): a JSON array of delays in
   * ms, NULL for the exponential rule of retry_initial_delay_ms and retry_max_delay_ms. Rows made
   * before this migration read NULL, so every existing job keeps the exponential policy it was
   * created with; new jobs store the steps of the default policy (src/store/rows/jobs.ts, RETRY_COLUMNS).
   */
  {
    version: 9,
    sql: `
ALTER TABLE schedules ADD COLUMN retry_delays_ms TEXT;
ALTER TABLE cron_jobs ADD COLUMN retry_delays_ms TEXT;
`,
  },
  /*
   * What counts as success, and the auto-pause of cron jobs (docs/calls.md, "What counts as
   * success"; docs/cron.md, "Auto-pause"; src/store/rules/outcome.ts): each job's
   * `success_statuses` (JSON text, existing jobs `["2xx"]`: what they did before); for cron jobs
   * `pause_after_failures` (NULL: never), `paused_reason` (NULL: none) and
   * `consecutive_failures`, kept by the finish transaction.
   */
  {
    version: 10,
    sql: `
ALTER TABLE schedules ADD COLUMN success_statuses     TEXT    NOT NULL DEFAULT '["2xx"]';
ALTER TABLE cron_jobs ADD COLUMN success_statuses     TEXT    NOT NULL DEFAULT '["2xx"]';
ALTER TABLE cron_jobs ADD COLUMN pause_after_failures INTEGER;
ALTER TABLE cron_jobs ADD COLUMN paused_reason        TEXT;
ALTER TABLE cron_jobs ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
`,
  },
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
  {
    version: 11,
    sql: `
ALTER TABLE executions ADD COLUMN retry_base INTEGER NOT NULL DEFAULT 0;
CREATE INDEX executions_by_type_status_time ON executions (job_type, status, scheduled_for, id) WHERE status <> 'Running';
`,
  },
  /*
   * Notification channels and the outbox of notifications (docs/when-calls-fail.md;
   * src/store/rules/notifications.ts). `events` and `job_ids` are lists stored as `,a,b,`
   * (`listToColumn`); a null `job_ids` means every job. The outbox is written in the transaction of
   * the outcome that causes a notification and emptied by the notifier: `due_at` is when a row may
   * be claimed (its occurrence, a retry's instant, or the end of its channel's minute once grouped
   * into the digest), `lease_*` who holds it (as for executions). `migrate-store` copies the
   * channels, not the outbox.
   */
  {
    version: 12,
    sql: `
CREATE TABLE notification_channels (
  id         TEXT    NOT NULL PRIMARY KEY,
  name       TEXT    NOT NULL,
  type       TEXT    NOT NULL CHECK (type IN ('webhook', 'slack')),
  url        TEXT    NOT NULL,
  events     TEXT    NOT NULL,
  job_ids    TEXT,
  created_at INTEGER NOT NULL
) STRICT;
CREATE TABLE notification_outbox (
  seq              INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  channel_id       TEXT    NOT NULL,
  event_type       TEXT    NOT NULL,
  job_type         TEXT    NOT NULL,
  job_id           TEXT    NOT NULL,
  execution_id     TEXT,
  reason           TEXT,
  occurred_at      INTEGER NOT NULL,
  due_at           INTEGER NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  digest           INTEGER NOT NULL DEFAULT 0,
  lease_owner      TEXT,
  lease_expires_at INTEGER
) STRICT;
CREATE INDEX notification_outbox_due ON notification_outbox (due_at, seq);
CREATE INDEX notification_outbox_channel ON notification_outbox (channel_id);
`,
  },
  /*
   * The W3C Trace Context of each attempt (docs/calls.md, "Trace Context"): the trace id (the
   * execution's) and the span id sent in its `traceparent`. Attempts recorded before have none (NULL).
   */
  {
    version: 13,
    sql: `
ALTER TABLE execution_attempts ADD COLUMN trace_id TEXT;
ALTER TABLE execution_attempts ADD COLUMN span_id  TEXT;
`,
  },
];
