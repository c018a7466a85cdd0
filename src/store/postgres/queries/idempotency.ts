import { beginDecision, IDEMPOTENCY_TABLE, idempotencyBinding, idempotencySql, type IdempotencyBinding, type IdempotencyRow, type NamedStatement } from '../../rules/idempotency.js';
import type {
  IdempotencyAbandonParams,
  IdempotencyBegin,
  IdempotencyBeginParams,
  IdempotencyFinishParams,
} from '../../contract/idempotency.js';
import type { PgContext, Sql } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** `$n` with the cast of each parameter. */
const CASTS: Record<keyof IdempotencyBinding, string> = {
  apiKeyId: 'text',
  method: 'text',
  path: 'text',
  key: 'text',
  fingerprint: 'text',
  startedAt: 'bigint',
  status: 'int',
  body: 'text',
};
const SQL = idempotencySql((name, n) => `$${n}::${CASTS[name]}`);

/** Records started before `$1`, oldest first, at most `$2`; rows another node is deleting are skipped. */
const PRUNE_SQL =
  `DELETE FROM ${IDEMPOTENCY_TABLE} WHERE ctid IN (SELECT ctid FROM ${IDEMPOTENCY_TABLE} ` +
  'WHERE started_at < $1::bigint ORDER BY started_at LIMIT $2::int FOR UPDATE SKIP LOCKED)';

const values = (s: NamedStatement, b: IdempotencyBinding): unknown[] => s.names.map((name) => b[name]);

/** The `idempotency_keys` table (store/contract/idempotency.ts). */
export const idempotency = {
  /**
   * See `Store.idempotencyBegin`. Run in a transaction (`Database.tx`): the INSERT of a concurrent
   * begin of the same record waits for this one to commit and then finds the row; an existing row
   * is locked (`FOR UPDATE`) from the read to the write. A row deleted between the two (abandoned
   * or pruned meanwhile) answers `running`: the client's retry finds the key free.
   */
  async begin(sql: Sql, p: IdempotencyBeginParams): Promise<IdempotencyBegin> {
    const b = idempotencyBinding(p, { fingerprint: p.fingerprint, startedAt: p.now });
    if ((await sql.count(SQL.insert.text, values(SQL.insert, b))) === 1) return { state: 'new', startedAt: p.now };
    const [row] = await sql.rows<IdempotencyRow>(`${SQL.select.text} FOR UPDATE`, values(SQL.select, b));
    if (row === undefined) return { state: 'running' };
    const decision = beginDecision(row, p);
    if (decision !== 'replace') return decision;
    await sql.count(SQL.replace.text, values(SQL.replace, b));
    return { state: 'new', startedAt: p.now };
  },

  /** See `Store.idempotencyFinish`: one statement. */
  async finish(sql: Sql, p: IdempotencyFinishParams): Promise<boolean> {
    const b = idempotencyBinding(p, { startedAt: p.startedAt, status: p.status, body: p.body });
    return (await sql.count(SQL.finish.text, values(SQL.finish, b))) === 1;
  },

  /** See `Store.idempotencyAbandon`: one statement. */
  async abandon(sql: Sql, p: IdempotencyAbandonParams): Promise<boolean> {
    return (await sql.count(SQL.abandon.text, values(SQL.abandon, idempotencyBinding(p, { startedAt: p.startedAt })))) === 1;
  },

  /** See `Store.idempotencyPrune`: one statement. */
  async prune(sql: Sql, before: number, limit: number): Promise<number> {
    return sql.count(PRUNE_SQL, [before, Math.max(1, Math.floor(limit))]);
  },
};

/** The store operations of idempotency records (store/sql-store.ts). */
export const idempotencyOperations = {
  idempotencyBegin: (c, p) => c.tx((sql) => idempotency.begin(sql, p)),
  idempotencyFinish: (c, p) => idempotency.finish(c.sql, p),
  idempotencyAbandon: (c, p) => idempotency.abandon(c.sql, p),
  idempotencyPrune: (c, p) => idempotency.prune(c.sql, p.before, p.limit),
} satisfies Partial<Operations<PgContext>>;
