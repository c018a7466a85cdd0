/**
 * The API keys of the store (docs/keys-and-audit.md): their scopes, expiry and rotation, and the
 * params of the deletes of every resource. Part of {@link Store}; both stores implement it, held
 * to the conformance suite.
 */
import type { AuditRecord } from '../../domain/audit.js';
import type { ApiKey, ApiKeyScope, ApiKeyStatus } from '../../domain/types.js';
import type { ApiKeyMatch } from '../rows/api-keys.js';

/** The operations on API keys. Instants are epoch ms (UTC). */
export interface ApiKeysStore {
  apiKeyCreate(p: ApiKeyCreateParams): Promise<ApiKey>;
  apiKeyGet(p: { id: string }): Promise<ApiKey | null>;
  /** All keys, oldest first. */
  apiKeyList(): Promise<ApiKey[]>;
  /** Partial update; returns null when no key has that id. */
  apiKeyUpdate(p: ApiKeyUpdateParams): Promise<ApiKey | null>;
  /** Returns false when no key had that id. */
  apiKeyDelete(p: AuditedId): Promise<boolean>;
  /**
   * The key whose token, or whose token replaced by its last rotation, has this SHA-256 digest
   * (lowercase hex), and which of the two it is; null when none. Whether the token is still
   * valid (expiry, the grace period, the status) is the caller's rule (service/api-keys.ts).
   */
  apiKeyFindByDigest(p: { digest: string }): Promise<ApiKeyMatch | null>;
  /**
   * Replaces the key's token in one statement: the digest becomes `p.digest`, the old digest
   * becomes the previous one, accepted until `p.previousExpiresAt` (epoch ms, UTC). A token
   * replaced earlier is forgotten. Id, name, scopes, status, expiry and `lastUsed` are kept.
   * @returns the key, or null when no key has that id
   */
  apiKeyRotate(p: { id: string; digest: string; previousExpiresAt: number; audit?: AuditRecord }): Promise<ApiKey | null>;
  /**
   * Records last use of keys in one write. An entry only moves `lastUsed` forward.
   * @param p.lastUsed key id → epoch ms (UTC)
   */
  apiKeyTouch(p: { lastUsed: ReadonlyMap<string, number> }): Promise<void>;
  /**
   * Makes sure an `Enabled` key with this digest exists: creates it (with `p.id`, `p.name`,
   * `p.scopes`, `p.expiresAt`) when no key has the digest, otherwise sets the existing key
   * `Enabled`, renames it `p.name` and gives it `p.scopes` and `p.expiresAt`.
   */
  apiKeyEnsure(p: ApiKeyCreateParams): Promise<ApiKey>;
}

/** Params of the deletes: the id, and the audit event to write with the delete (store/rules/audit.ts). */
export interface AuditedId {
  id: string;
  audit?: AuditRecord;
}

/** Params of {@link Store.apiKeyCreate}. `digest` is the SHA-256 (lowercase hex) of the token. */
export interface ApiKeyCreateParams {
  /** When given, the change writes this audit event in its transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
  id: string;
  name: string;
  status: ApiKeyStatus;
  digest: string;
  /** Non-empty; stored without duplicates in the order of `API_KEY_SCOPES`. Absent: all of them. */
  scopes?: readonly ApiKeyScope[];
  /** Epoch ms (UTC) from which the key is refused, or null (or absent): never. */
  expiresAt?: number | null;
  /** Epoch ms (UTC). */
  now: number;
}

/** Params of {@link Store.apiKeyUpdate}: absent fields keep their values; `expiresAt` null clears the expiry. */
export interface ApiKeyUpdateParams {
  id: string;
  name?: string;
  status?: ApiKeyStatus;
  /** Non-empty when given. */
  scopes?: readonly ApiKeyScope[];
  expiresAt?: number | null;
  /** When given, the change writes this audit event in its transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
}
