import type { ApiKey } from '../../../domain/types.js';
import type { ApiKeyCreateParams, ApiKeyUpdateParams } from '../../store.js';
import { API_KEY_COLUMNS as COLUMNS, apiKeyFromRow as fromRow, scopesText, type ApiKeyMatch, type ApiKeyRow } from '../../rows/api-keys.js';
import type { PgContext, Sql } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** The `api_keys` table. Each method is one statement (atomic on its own). */
export const apiKeys = {
  async create(sql: Sql, p: ApiKeyCreateParams): Promise<ApiKey> {
    const [r] = await sql.rows<ApiKeyRow>(
      `INSERT INTO api_keys (id, name, status, digest, created_at, last_used, scopes, expires_at)
       VALUES ($1, $2, $3, $4, $5, NULL, $6, $7) RETURNING ${COLUMNS}`,
      [p.id, p.name, p.status, p.digest, p.now, scopesText(p.scopes), p.expiresAt ?? null],
    );
    return fromRow(r!);
  },

  async get(sql: Sql, id: string): Promise<ApiKey | null> {
    const [r] = await sql.rows<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id], 'punctual_api_key_get');
    return r ? fromRow(r) : null;
  },

  /** Oldest first; `seq` orders keys created in the same ms by insertion (SQLite: rowid). */
  async list(sql: Sql): Promise<ApiKey[]> {
    return (await sql.rows<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, seq`)).map(fromRow);
  },

  async update(sql: Sql, p: ApiKeyUpdateParams): Promise<ApiKey | null> {
    const [r] = await sql.rows<ApiKeyRow>(
      `UPDATE api_keys SET name = coalesce($2, name), status = coalesce($3, status), scopes = coalesce($4, scopes),
              expires_at = CASE WHEN $5::boolean THEN $6::bigint ELSE expires_at END
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        p.id,
        p.name ?? null,
        p.status ?? null,
        p.scopes === undefined ? null : scopesText(p.scopes),
        p.expiresAt !== undefined,
        p.expiresAt ?? null,
      ],
    );
    return r ? fromRow(r) : null;
  },

  async delete(sql: Sql, id: string): Promise<boolean> {
    return (await sql.count('DELETE FROM api_keys WHERE id = $1', [id])) > 0;
  },

  /** The current token first: a digest is never both (tokens are random), but the order is fixed. */
  async findByDigest(sql: Sql, digest: string): Promise<ApiKeyMatch | null> {
    const [r] = await sql.rows<ApiKeyRow & { current: boolean }>(
      `SELECT ${COLUMNS}, true AS current FROM api_keys WHERE digest = $1
       UNION ALL
       SELECT ${COLUMNS}, false AS current FROM api_keys WHERE previous_digest = $1
       ORDER BY current DESC LIMIT 1`,
      [digest],
      'punctual_api_key_by_digest',
    );
    return r ? { key: fromRow(r), token: r.current ? 'current' : 'previous' } : null;
  },

  async rotate(sql: Sql, p: { id: string; digest: string; previousExpiresAt: number }): Promise<ApiKey | null> {
    const [r] = await sql.rows<ApiKeyRow>(
      `UPDATE api_keys SET previous_digest = digest, previous_expires_at = $3, digest = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
      [p.id, p.digest, p.previousExpiresAt],
    );
    return r ? fromRow(r) : null;
  },

  /** One statement for the whole map; each row only moves forward. */
  async touch(sql: Sql, lastUsed: ReadonlyMap<string, number>): Promise<void> {
    if (lastUsed.size === 0) return;
    await sql.rows(
      `UPDATE api_keys k SET last_used = u.at
         FROM unnest($1::text[], $2::bigint[]) AS u(id, at)
        WHERE k.id = u.id AND (k.last_used IS NULL OR k.last_used < u.at)`,
      [[...lastUsed.keys()], [...lastUsed.values()].map((v) => Math.floor(v))],
    );
  },

  /**
   * Enables, renames and re-scopes the key with `p.digest`, or creates it (Enabled) with `p.id`:
   * one INSERT … ON CONFLICT (digest) DO UPDATE, so two nodes ensuring the same key at once agree.
   */
  async ensure(sql: Sql, p: ApiKeyCreateParams): Promise<ApiKey> {
    const [r] = await sql.rows<ApiKeyRow>(
      `INSERT INTO api_keys (id, name, status, digest, created_at, last_used, scopes, expires_at)
       VALUES ($1, $2, 'Enabled', $3, $4, NULL, $5, $6)
       ON CONFLICT (digest) DO UPDATE SET status = 'Enabled', name = EXCLUDED.name, scopes = EXCLUDED.scopes, expires_at = EXCLUDED.expires_at
       RETURNING ${COLUMNS}`,
      [p.id, p.name, p.digest, p.now, scopesText(p.scopes), p.expiresAt ?? null],
    );
    return fromRow(r!);
  },
};

/** The store operations of API keys (store/sql-store.ts). */
export const apiKeyOperations = {
  apiKeyCreate: (c, p) => apiKeys.create(c.sql, p),
  apiKeyGet: (c, p) => apiKeys.get(c.sql, p.id),
  apiKeyList: (c) => apiKeys.list(c.sql),
  apiKeyUpdate: (c, p) => apiKeys.update(c.sql, p),
  apiKeyDelete: (c, p) => apiKeys.delete(c.sql, p.id),
  apiKeyFindByDigest: (c, p) => apiKeys.findByDigest(c.sql, p.digest),
  apiKeyRotate: (c, p) => apiKeys.rotate(c.sql, p),
  apiKeyTouch: async (c, p) => {
    await apiKeys.touch(c.sql, p.lastUsed);
  },
  apiKeyEnsure: (c, p) => apiKeys.ensure(c.sql, p),
} satisfies Partial<Operations<PgContext>>;
