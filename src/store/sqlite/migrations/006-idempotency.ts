/** Version 6 of the SQLite schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

/*
 * Idempotency records of the API (docs/interface.md, "Idempotency-Key";
 * src/store/rules/idempotency.ts): one per API key, method, path and key, `running` until the
 * request's answer is kept (`done`, with its status and body). Deleted with their API key; pruned
 * by `started_at` after 24 h.
 */
export const MIGRATION: Migration = {
  version: 6,
  sql: `
CREATE TABLE idempotency_keys (
  api_key_id      TEXT    NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  method          TEXT    NOT NULL,
  path            TEXT    NOT NULL,
  idem_key        TEXT    NOT NULL,
  fingerprint     TEXT    NOT NULL,   -- SHA-256 of the JSON of the parsed body, lowercase hex
  state           TEXT    NOT NULL CHECK (state IN ('running', 'done')),
  started_at      INTEGER NOT NULL,
  response_status INTEGER,
  response_body   TEXT,
  PRIMARY KEY (api_key_id, method, path, idem_key)
) STRICT;
CREATE INDEX idempotency_keys_started ON idempotency_keys (started_at);
`,
};
