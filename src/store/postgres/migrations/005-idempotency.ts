/** Version 5 of the PostgreSQL schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

// Idempotency records of the API, as SQLite's migration 6 (src/store/rules/idempotency.ts).
export const MIGRATION: Migration = {
  version: 5,
  sql: `
CREATE TABLE idempotency_keys (
  api_key_id      text COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  method          text COLLATE "C" NOT NULL,
  path            text COLLATE "C" NOT NULL,
  idem_key        text COLLATE "C" NOT NULL,
  fingerprint     text    NOT NULL,
  state           text    NOT NULL CHECK (state IN ('running', 'done')),
  started_at      bigint  NOT NULL,
  response_status integer,
  response_body   text,
  PRIMARY KEY (api_key_id, method, path, idem_key)
);
CREATE INDEX idempotency_keys_started ON idempotency_keys (started_at);
`,
};
