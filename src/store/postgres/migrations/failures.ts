/**
 * PostgreSQL's migrations of what happens when calls fail (docs/when-calls-fail.md): retry steps,
 * what counts as success and the auto-pause of cron jobs, the executions index across jobs and
 * replays, notification channels and their outbox, and the Trace Context of attempts. Apart from
 * store/postgres/migrations/index.ts (the runner and the earlier versions) so that each file reads in one sitting;
 * `MIGRATIONS` there lists these after the others.
 */
import type { Migration } from './index.js';

/** The migrations from version 8 on, in order. */
export const FAILURE_MIGRATIONS: readonly Migration[] = [
  // The steps of a retry policy, as SQLite's migration 9: JSON array of ms, NULL (every existing row) for the exponential rule.
  {
    version: 8,
    sql: `
ALTER TABLE schedules ADD COLUMN retry_delays_ms json;
ALTER TABLE cron_jobs ADD COLUMN retry_delays_ms json;
`,
  },
  // What counts as success and the auto-pause of cron jobs, as SQLite's migration 10.
  {
    version: 9,
    sql: `
ALTER TABLE schedules ADD COLUMN success_statuses     json    NOT NULL DEFAULT '["2xx"]';
ALTER TABLE cron_jobs ADD COLUMN success_statuses     json    NOT NULL DEFAULT '["2xx"]';
ALTER TABLE cron_jobs ADD COLUMN pause_after_failures integer;
ALTER TABLE cron_jobs ADD COLUMN paused_reason        text;
ALTER TABLE cron_jobs ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
`,
  },
  /*
   * As SQLite's migration 11. Executions across jobs and replay (docs/interface.md, "Executions across jobs"):
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
   * (store/sql/execution-search.ts; plans checked in test/store/postgres.test.ts).
   */
  {
    version: 10,
    sql: `
ALTER TABLE executions ADD COLUMN retry_base integer NOT NULL DEFAULT 0;
CREATE INDEX executions_by_type_status_time ON executions (job_type, status, scheduled_for, id) WHERE status <> 'Running';
`,
  },
  // Notification channels and the outbox of notifications, as SQLite's migration 12.
  {
    version: 11,
    sql: `
CREATE TABLE notification_channels (
  id         text COLLATE "C" NOT NULL PRIMARY KEY,
  name       text   NOT NULL,
  type       text   NOT NULL CHECK (type IN ('webhook', 'slack')),
  url        text   NOT NULL,
  events     text   NOT NULL,
  job_ids    text COLLATE "C",
  created_at bigint NOT NULL
);
CREATE TABLE notification_outbox (
  seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  channel_id       text COLLATE "C" NOT NULL,
  event_type       text    NOT NULL,
  job_type         text    NOT NULL,
  job_id           text COLLATE "C" NOT NULL,
  execution_id     text COLLATE "C",
  reason           text,
  occurred_at      bigint  NOT NULL,
  due_at           bigint  NOT NULL,
  attempts         integer NOT NULL DEFAULT 0,
  digest           integer NOT NULL DEFAULT 0,
  lease_owner      text,
  lease_expires_at bigint
);
CREATE INDEX notification_outbox_due ON notification_outbox (due_at, seq);
CREATE INDEX notification_outbox_channel ON notification_outbox (channel_id);
`,
  },
  // The W3C Trace Context of each attempt, as SQLite's migration 13: NULL for attempts recorded before.
  {
    version: 12,
    sql: `
ALTER TABLE execution_attempts ADD COLUMN trace_id text, ADD COLUMN span_id text;
`,
  },
];
