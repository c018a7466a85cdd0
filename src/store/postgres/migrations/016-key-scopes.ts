/**
 * PostgreSQL's migrations of key scopes, expiry and rotation (docs/keys-and-audit.md).
 */
import type { Migration } from './migration.js';

/**
 * Version 16, as SQLite's migration 17: on `api_keys`, `scopes` (every existing key holds all of
 * them), `expires_at`, `previous_digest` and `previous_expires_at` (the rotation's grace period),
 * and the partial index that looks a token up by the previous digest.
 */
export const MIGRATION: Migration = {
  version: 16,
  sql: `
ALTER TABLE api_keys ADD COLUMN scopes              text   NOT NULL DEFAULT 'jobs:read jobs:write keys:manage metrics:read';
ALTER TABLE api_keys ADD COLUMN expires_at          bigint;
ALTER TABLE api_keys ADD COLUMN previous_digest     text COLLATE "C";
ALTER TABLE api_keys ADD COLUMN previous_expires_at bigint;
CREATE INDEX api_keys_previous_digest ON api_keys (previous_digest) WHERE previous_digest IS NOT NULL;
`,
};
