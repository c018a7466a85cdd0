import { beginDecision, IDEMPOTENCY_TABLE, idempotencyBinding, idempotencySql, type IdempotencyBinding, type IdempotencyRow } from '../../rules/idempotency.js';
import type {
  IdempotencyAbandonParams,
  IdempotencyBegin,
  IdempotencyBeginParams,
  IdempotencyFinishParams,
} from '../../contract/idempotency.js';
import type { Db } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** Records started before `@before`, oldest first, at most `@limit`, deleted by rowid. */
export const IDEMPOTENCY_PRUNE_SQL =
  `DELETE FROM ${IDEMPOTENCY_TABLE} WHERE rowid IN ` +
  `(SELECT rowid FROM ${IDEMPOTENCY_TABLE} WHERE started_at < @before ORDER BY started_at LIMIT @limit)`;

/** The `idempotency_keys` table (store/contract/idempotency.ts): statements prepared once. */
export class IdempotencyQueries {
  private readonly insert;
  private readonly select;
  private readonly replace;
  private readonly finishStatement;
  private readonly abandonStatement;
  private readonly pruneStatement;
  private readonly beginTx;

  constructor(db: Db) {
    const sql = idempotencySql((name) => `@${name}`);
    this.insert = db.prepare<[IdempotencyBinding]>(sql.insert.text);
    this.select = db.prepare<[IdempotencyBinding], IdempotencyRow>(sql.select.text);
    this.replace = db.prepare<[IdempotencyBinding]>(sql.replace.text);
    this.finishStatement = db.prepare<[IdempotencyBinding]>(sql.finish.text);
    this.abandonStatement = db.prepare<[IdempotencyBinding]>(sql.abandon.text);
    this.pruneStatement = db.prepare<[{ before: number; limit: number }]>(IDEMPOTENCY_PRUNE_SQL);
    this.beginTx = db.transaction((p: IdempotencyBeginParams): IdempotencyBegin => {
      const b = idempotencyBinding(p, { fingerprint: p.fingerprint, startedAt: p.now });
      if (this.insert.run(b).changes === 1) return { state: 'new', startedAt: p.now };
      const decision = beginDecision(this.select.get(b)!, p);
      if (decision !== 'replace') return decision;
      this.replace.run(b);
      return { state: 'new', startedAt: p.now };
    });
  }

  /** See `Store.idempotencyBegin`: an IMMEDIATE transaction, so two begins of one record serialise. */
  begin(p: IdempotencyBeginParams): IdempotencyBegin {
    return this.beginTx.immediate(p);
  }

  /** See `Store.idempotencyFinish`. */
  finish(p: IdempotencyFinishParams): boolean {
    return this.finishStatement.run(idempotencyBinding(p, { startedAt: p.startedAt, status: p.status, body: p.body })).changes === 1;
  }

  /** See `Store.idempotencyAbandon`. */
  abandon(p: IdempotencyAbandonParams): boolean {
    return this.abandonStatement.run(idempotencyBinding(p, { startedAt: p.startedAt })).changes === 1;
  }

  /** See `Store.idempotencyPrune`. */
  prune(before: number, limit: number): number {
    return this.pruneStatement.run({ before, limit: Math.max(1, Math.floor(limit)) }).changes;
  }
}

/** The store operations of idempotency records (../../sql-store.ts), on the statements of IdempotencyQueries. */
export const idempotencyOperations = {
  idempotencyBegin: (q, p) => q.idempotency.begin(p),
  idempotencyFinish: (q, p) => q.idempotency.finish(p),
  idempotencyAbandon: (q, p) => q.idempotency.abandon(p),
  idempotencyPrune: (q, p) => q.idempotency.prune(p.before, p.limit),
} satisfies Partial<Operations<{ idempotency: IdempotencyQueries }>>;
