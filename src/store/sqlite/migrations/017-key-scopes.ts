/**
 * SQLite's migrations of key scopes, expiry and rotation (docs/keys-and-audit.md).
 */
import type { Migration } from './migration.js';

/**
 * Version 17, on `api_keys`:
 *   scopes               the key's scopes separated by spaces (store/rows/api-keys.ts); every key
 *                        made before holds all of them, so nothing it did is refused
 *   expires_at           epoch ms from which the key is refused, NULL: never
 *   previous_digest      SHA-256 of the token the last rotation replaced, NULL: never rotated
 *   previous_expires_at  epoch ms until which that token is still accepted (the grace period)
 *   api_keys_previous_digest  the lookup of a request's token by the previous digest (partial:
 *                        only rotated keys)
 */
export const MIGRATION: Migration = {
  version: 17,
  sql: `
ALTER TABLE api_keys ADD COLUMN scopes              TEXT    NOT NULL DEFAULT 'jobs:read jobs:write keys:manage metrics:read';
ALTER TABLE api_keys ADD COLUMN expires_at          INTEGER;
ALTER TABLE api_keys ADD COLUMN previous_digest     TEXT;
ALTER TABLE api_keys ADD COLUMN previous_expires_at INTEGER;
CREATE INDEX api_keys_previous_digest ON api_keys (previous_digest) WHERE previous_digest IS NOT NULL;
`,
};
