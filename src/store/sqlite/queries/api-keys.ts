import type { ApiKey } from '../../../domain/types.js';
import type { ApiKeyCreateParams, ApiKeyUpdateParams } from '../../store.js';
import { API_KEY_COLUMNS as COLUMNS, apiKeyFromRow as fromRow, scopesText, type ApiKeyMatch, type ApiKeyRow } from '../../rows/api-keys.js';
import type { Db } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** The bound values of an insert: the params with the scopes as their column's text. */
type InsertRow = Omit<ApiKeyCreateParams, 'scopes' | 'expiresAt'> & { scopes: string; expiresAt: number | null };

/** The `api_keys` table: statements prepared once, synchronous methods (the store wraps them). */
export class ApiKeyQueries {
  private readonly insert;
  private readonly byId;
  private readonly all;
  private readonly patch;
  private readonly remove;
  private readonly byDigest;
  private readonly rotateOne;
  private readonly touchOne;
  private readonly enable;
  private readonly touchTx;
  private readonly ensureTx;

  constructor(db: Db) {
    this.insert = db.prepare<[InsertRow], ApiKeyRow>(
      `INSERT INTO api_keys (id, name, status, digest, created_at, last_used, scopes, expires_at)
       VALUES (:id, :name, :status, :digest, :now, NULL, :scopes, :expiresAt) RETURNING ${COLUMNS}`,
    );
    this.byId = db.prepare<[string], ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`);
    this.all = db.prepare<[], ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, rowid`);
    this.patch = db.prepare<
      [{ id: string; name: string | null; status: string | null; scopes: string | null; setExpiry: number; expiresAt: number | null }],
      ApiKeyRow
    >(
      `UPDATE api_keys SET name = coalesce(:name, name), status = coalesce(:status, status), scopes = coalesce(:scopes, scopes),
              expires_at = CASE WHEN :setExpiry = 1 THEN :expiresAt ELSE expires_at END
       WHERE id = :id RETURNING ${COLUMNS}`,
    );
    this.remove = db.prepare<[string]>('DELETE FROM api_keys WHERE id = ?');
    // The current token first: a digest is never both (tokens are random), but the order is fixed.
    this.byDigest = db.prepare<[{ digest: string }], ApiKeyRow & { current: number }>(
      `SELECT ${COLUMNS}, 1 AS current FROM api_keys WHERE digest = :digest
       UNION ALL
       SELECT ${COLUMNS}, 0 AS current FROM api_keys WHERE previous_digest = :digest
       ORDER BY current DESC LIMIT 1`,
    );
    this.rotateOne = db.prepare<[{ id: string; digest: string; previousExpiresAt: number }], ApiKeyRow>(
      `UPDATE api_keys SET previous_digest = digest, previous_expires_at = :previousExpiresAt, digest = :digest
       WHERE id = :id RETURNING ${COLUMNS}`,
    );
    this.touchOne = db.prepare<[{ id: string; at: number }]>(
      'UPDATE api_keys SET last_used = :at WHERE id = :id AND (last_used IS NULL OR last_used < :at)',
    );
    this.enable = db.prepare<[{ digest: string; name: string; scopes: string; expiresAt: number | null }], ApiKeyRow>(
      `UPDATE api_keys SET status = 'Enabled', name = :name, scopes = :scopes, expires_at = :expiresAt
       WHERE digest = :digest RETURNING ${COLUMNS}`,
    );
    this.touchTx = db.transaction((lastUsed: ReadonlyMap<string, number>) => {
      for (const [id, at] of lastUsed) this.touchOne.run({ id, at });
    });
    this.ensureTx = db.transaction((p: ApiKeyCreateParams): ApiKey => {
      const r = this.enable.get({ digest: p.digest, name: p.name, scopes: scopesText(p.scopes), expiresAt: p.expiresAt ?? null });
      return r ? fromRow(r) : this.create({ ...p, status: 'Enabled' });
    });
  }

  create(p: ApiKeyCreateParams): ApiKey {
    return fromRow(this.insert.get({ ...p, scopes: scopesText(p.scopes), expiresAt: p.expiresAt ?? null })!);
  }

  get(id: string): ApiKey | null {
    const r = this.byId.get(id);
    return r ? fromRow(r) : null;
  }

  list(): ApiKey[] {
    return this.all.all().map(fromRow);
  }

  update(p: ApiKeyUpdateParams): ApiKey | null {
    const r = this.patch.get({
      id: p.id,
      name: p.name ?? null,
      status: p.status ?? null,
      scopes: p.scopes === undefined ? null : scopesText(p.scopes),
      setExpiry: p.expiresAt === undefined ? 0 : 1,
      expiresAt: p.expiresAt ?? null,
    });
    return r ? fromRow(r) : null;
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }

  findByDigest(digest: string): ApiKeyMatch | null {
    const r = this.byDigest.get({ digest });
    return r ? { key: fromRow(r), token: r.current === 1 ? 'current' : 'previous' } : null;
  }

  rotate(p: { id: string; digest: string; previousExpiresAt: number }): ApiKey | null {
    const r = this.rotateOne.get(p);
    return r ? fromRow(r) : null;
  }

  /** One transaction for the whole map; each row only moves forward. */
  touch(lastUsed: ReadonlyMap<string, number>): void {
    if (lastUsed.size > 0) this.touchTx.immediate(lastUsed);
  }

  /** Enables, renames and re-scopes the key with `p.digest`, or creates it (Enabled) with `p.id`. */
  ensure(p: ApiKeyCreateParams): ApiKey {
    return this.ensureTx.immediate(p);
  }
}

/** The store operations of API keys (../../sql-store.ts), on the statements of ApiKeyQueries. */
export const apiKeyOperations = {
  apiKeyCreate: (q, p) => q.apiKeys.create(p),
  apiKeyGet: (q, p) => q.apiKeys.get(p.id),
  apiKeyList: (q) => q.apiKeys.list(),
  apiKeyUpdate: (q, p) => q.apiKeys.update(p),
  apiKeyDelete: (q, p) => q.apiKeys.delete(p.id),
  apiKeyFindByDigest: (q, p) => q.apiKeys.findByDigest(p.digest),
  apiKeyRotate: (q, p) => q.apiKeys.rotate(p),
  apiKeyTouch: (q, p) => { q.apiKeys.touch(p.lastUsed); },
  apiKeyEnsure: (q, p) => q.apiKeys.ensure(p),
} satisfies Partial<Operations<{ apiKeys: ApiKeyQueries }>>;
