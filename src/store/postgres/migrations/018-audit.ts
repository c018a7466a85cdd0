/**
 * PostgreSQL's migration of the audit log (docs/keys-and-audit.md; src/store/rules/audit.ts).
 */
import type { Migration } from './migration.js';

/*
 * One row per event. `actor_kind` is `key` (with `actor_key_id`, `actor_key_name`), `cli` or
 * `system`; `changes` JSON text; `failures` and `dedupe` only for the counted `auth.failure`
 * rows (one per address and minute, upserted on the unique `dedupe`). The indexes answer the
 * list newest first: by time, by resource, by key and by action, each ending in (occurred_at, id).
 */
export const MIGRATION: Migration = {
  version: 18,
  sql: `
CREATE TABLE audit_events (
  id             text    NOT NULL PRIMARY KEY,
  occurred_at    bigint  NOT NULL,
  actor_kind     text    NOT NULL CHECK (actor_kind IN ('key', 'cli', 'system')),
  actor_key_id   text,
  actor_key_name text,
  action         text    NOT NULL,
  resource_type  text    NOT NULL,
  resource_id    text    NOT NULL,
  request_id     text,
  source_address text,
  changes        text    NOT NULL,
  failures       integer,
  dedupe         text
);
CREATE INDEX audit_events_by_time ON audit_events (occurred_at, id);
CREATE INDEX audit_events_by_resource ON audit_events (resource_type, resource_id, occurred_at, id);
CREATE INDEX audit_events_by_actor ON audit_events (actor_key_id, occurred_at, id) WHERE actor_key_id IS NOT NULL;
CREATE INDEX audit_events_by_action ON audit_events (action, occurred_at, id);
CREATE UNIQUE INDEX audit_events_dedupe ON audit_events (dedupe);
`,
};
