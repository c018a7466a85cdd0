import type { ApiKey, ApiKeyStatus } from '../../domain/types.js';
import type { ApiKeyCreateParams } from '../store.js';
import { API_KEY_COLUMNS as COLUMNS, apiKeyFromRow as fromRow, type ApiKeyRow } from '../rows.js';
import type { Sql } from './connection.js';

/** The `api_keys` table. Each method is one statement (atomic on its own). */
export const apiKeys = {
  async create(sql: Sql, p: ApiKeyCreateParams): Promise<ApiKey> {
    const [r] = await sql.rows<ApiKeyRow>(
      `INSERT INTO api_keys (id, name, status, digest, created_at, last_used)
       VALUES ($1, $2, $3, $4, $5, NULL) RETURNING ${COLUMNS}`,
      [p.id, p.name, p.status, p.digest, p.now],
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

  async update(sql: Sql, p: { id: string; name?: string; status?: ApiKeyStatus }): Promise<ApiKey | null> {
    const [r] = await sql.rows<ApiKeyRow>(
      `UPDATE api_keys SET name = coalesce($2, name), status = coalesce($3, status) WHERE id = $1 RETURNING ${COLUMNS}`,
      [p.id, p.name ?? null, p.status ?? null],
    );
    return r ? fromRow(r) : null;
  },

  async delete(sql: Sql, id: string): Promise<boolean> {
    return (await sql.count('DELETE FROM api_keys WHERE id = $1', [id])) > 0;
  },

  async findByDigest(sql: Sql, digest: string): Promise<ApiKey | null> {
    const [r] = await sql.rows<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE digest = $1`, [digest], 'punctual_api_key_by_digest');
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
   * Enables and renames the key with `p.digest`, or creates it (Enabled) with `p.id`: one
   * INSERT … ON CONFLICT (digest) DO UPDATE, so two nodes ensuring the same key at once agree.
   */
  async ensure(sql: Sql, p: ApiKeyCreateParams): Promise<ApiKey> {
    const [r] = await sql.rows<ApiKeyRow>(
      `INSERT INTO api_keys (id, name, status, digest, created_at, last_used)
       VALUES ($1, $2, 'Enabled', $3, $4, NULL)
       ON CONFLICT (digest) DO UPDATE SET status = 'Enabled', name = EXCLUDED.name
       RETURNING ${COLUMNS}`,
      [p.id, p.name, p.digest, p.now],
    );
    return fromRow(r!);
  },
};
