/** One of PostgreSQL's migrations of what happens when calls fail (docs/when-calls-fail.md). */
import type { Migration } from './migration.js';

// Notification channels and the outbox of notifications, as SQLite's migration 12.
export const MIGRATION: Migration = {
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
};
