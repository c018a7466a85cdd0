/**
 * The rows of `api_keys` for both stores: the columns read as an {@link ApiKey}, row → key, and a
 * key as stored (with its digests) → the values of its row (for `migrate-store`). Scopes are one
 * text column, the scopes separated by single spaces in the order of `API_KEY_SCOPES` (as OAuth
 * writes them), so both databases store and compare them the same way.
 */
import { API_KEY_SCOPES, type ApiKeyScope } from '../../domain/enums.js';
import { ALL_SCOPES, canonicalScopes } from '../../domain/scopes.js';
import type { ApiKey, ApiKeyStatus } from '../../domain/types.js';
import type { ApiKeyRecord } from '../transfer/records.js';

/** The columns of `api_keys` read as an {@link ApiKey} (never a digest). */
export const API_KEY_COLUMNS = 'id, name, status, created_at, last_used, scopes, expires_at, previous_expires_at';

/** A row of `api_keys` ({@link API_KEY_COLUMNS}; the digests only where selected). */
export interface ApiKeyRow {
  id: string;
  name: string;
  status: ApiKeyStatus;
  created_at: number;
  last_used: number | null;
  /** Space-separated scopes ({@link scopesText}). */
  scopes: string;
  expires_at: number | null;
  previous_expires_at: number | null;
  digest?: string;
  previous_digest?: string | null;
}

/**
 * Scopes → the text of the `scopes` column: without duplicates, in the order of `API_KEY_SCOPES`,
 * separated by spaces; absent: all of them (`ApiKeyCreateParams.scopes`).
 */
export function scopesText(scopes: readonly ApiKeyScope[] | undefined): string {
  return canonicalScopes(scopes ?? ALL_SCOPES).join(' ');
}

/** The text of the `scopes` column → scopes (words that are no scope, which no write makes, are dropped). */
function scopesFromText(text: string): ApiKeyScope[] {
  const words = text.split(' ');
  return API_KEY_SCOPES.filter((s) => words.includes(s));
}

/** Row → API key. */
export function apiKeyFromRow(r: ApiKeyRow): ApiKey {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    createdAt: r.created_at,
    lastUsed: r.last_used,
    scopes: scopesFromText(r.scopes),
    expiresAt: r.expires_at,
    previousTokenExpiresAt: r.previous_expires_at,
  };
}

/** Every column of `api_keys` as written by a copy. */
export const API_KEY_WRITE_COLUMNS = [
  'id',
  'name',
  'status',
  'digest',
  'created_at',
  'last_used',
  'scopes',
  'expires_at',
  'previous_digest',
  'previous_expires_at',
] as const;

/** API key as stored → the values of its row. */
export function apiKeyToRow(k: ApiKeyRecord): Record<(typeof API_KEY_WRITE_COLUMNS)[number], unknown> {
  return {
    id: k.id,
    name: k.name,
    status: k.status,
    digest: k.digest,
    created_at: k.createdAt,
    last_used: k.lastUsed,
    scopes: scopesText(k.scopes),
    expires_at: k.expiresAt,
    previous_digest: k.previousDigest,
    previous_expires_at: k.previousTokenExpiresAt,
  };
}

/** An API key with the token it was found by: its current one, or the one its last rotation replaced. */
export interface ApiKeyMatch {
  key: ApiKey;
  /** `current`: the key's token; `previous`: the token replaced by its last rotation (valid until `key.previousTokenExpiresAt`). */
  token: 'current' | 'previous';
}
