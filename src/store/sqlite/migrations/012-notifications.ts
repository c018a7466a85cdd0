/** One of SQLite's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

/*
 * Notification channels and the outbox of notifications (docs/when-calls-fail.md;
 * src/store/rules/notifications.ts). `events` and `job_ids` are lists stored as `,a,b,`
 * (`listToColumn`); a null `job_ids` means every job. The outbox is written in the transaction of
 * the outcome that causes a notification and emptied by the notifier: `due_at` is when a row may
 * be claimed (its occurrence, a retry's instant, or the end of its channel's minute once grouped
 * into the digest), `lease_*` who holds it (as for executions). `migrate-store` copies the
 * channels, not the outbox.
 */
export const MIGRATION: Migration = {
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
};
