import type { ApiKey, ApiKeyStatus } from '../../domain/types.js';
import type { ApiKeyCreateParams } from '../store.js';
import { API_KEY_COLUMNS as COLUMNS, apiKeyFromRow as fromRow, type ApiKeyRow } from '../rows.js';
import type { Db } from './connection.js';

/** The `api_keys` table: statements prepared once, synchronous methods (the store wraps them). */
export class ApiKeyQueries {
  private readonly insert;
  private readonly byId;
  private readonly all;
  private readonly patch;
  private readonly remove;
  private readonly byDigest;
  private readonly touchOne;
  private readonly enable;
  private readonly touchTx;
  private readonly ensureTx;

  constructor(db: Db) {
    this.insert = db.prepare<[ApiKeyCreateParams], ApiKeyRow>(
      `INSERT INTO api_keys (id, name, status, digest, created_at, last_used)
       VALUES (:id, :name, :status, :digest, :now, NULL) RETURNING ${COLUMNS}`,
    );
    this.byId = db.prepare<[string], ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`);
    this.all = db.prepare<[], ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, rowid`);
    this.patch = db.prepare<[{ id: string; name: string | null; status: string | null }], ApiKeyRow>(
      `UPDATE api_keys SET name = coalesce(:name, name), status = coalesce(:status, status)
       WHERE id = :id RETURNING ${COLUMNS}`,
    );
    this.remove = db.prepare<[string]>('DELETE FROM api_keys WHERE id = ?');
    this.byDigest = db.prepare<[string], ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE digest = ?`);
    this.touchOne = db.prepare<[{ id: string; at: number }]>(
      'UPDATE api_keys SET last_used = :at WHERE id = :id AND (last_used IS NULL OR last_used < :at)',
    );
    this.enable = db.prepare<[{ digest: string; name: string }], ApiKeyRow>(
      `UPDATE api_keys SET status = 'Enabled', name = :name WHERE digest = :digest RETURNING ${COLUMNS}`,
    );
    this.touchTx = db.transaction((lastUsed: ReadonlyMap<string, number>) => {
      for (const [id, at] of lastUsed) this.touchOne.run({ id, at });
    });
    this.ensureTx = db.transaction((p: ApiKeyCreateParams): ApiKey => {
      const r = this.enable.get({ digest: p.digest, name: p.name });
      return r ? fromRow(r) : this.create({ ...p, status: 'Enabled' });
    });
  }

  create(p: ApiKeyCreateParams): ApiKey {
    return fromRow(this.insert.get(p)!);
  }

  get(id: string): ApiKey | null {
    const r = this.byId.get(id);
    return r ? fromRow(r) : null;
  }

  list(): ApiKey[] {
    return this.all.all().map(fromRow);
  }

  update(p: { id: string; name?: string; status?: ApiKeyStatus }): ApiKey | null {
    const r = this.patch.get({ id: p.id, name: p.name ?? null, status: p.status ?? null });
    return r ? fromRow(r) : null;
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }

  findByDigest(digest: string): ApiKey | null {
    const r = this.byDigest.get(digest);
    return r ? fromRow(r) : null;
  }

  /** One transaction for the whole map; each row only moves forward. */
  touch(lastUsed: ReadonlyMap<string, number>): void {
    if (lastUsed.size > 0) this.touchTx.immediate(lastUsed);
  }

  /** Enables and renames the key with `p.digest`, or creates it (Enabled) with `p.id`. */
  ensure(p: ApiKeyCreateParams): ApiKey {
    return this.ensureTx.immediate(p);
  }
}
