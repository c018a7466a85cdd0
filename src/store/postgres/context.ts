/**
 * The context of PostgreSQL's store operations (../sql-store.ts; its type is connection.ts
 * `PgContext`): the SQL runner of the pool, or of the transaction of an audited change; and the
 * executor that runs the operations on the pool.
 */
import type { AuditRecord } from '../../domain/audit.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { Schedule } from '../../domain/types.js';
import type { AuditTarget } from '../rules/audit.js';
import type { SqlExecutor } from '../sql-store.js';
import type { ScheduleCreateParams } from '../store.js';
import { toStoreError, type Database, type PgContext, type PostgresStoreOptions, type Sql } from './connection.js';
import type { SchemaScope } from './notify.js';
import { audit } from './queries/audit.js';
import { CREATE_FLUSHES } from './queries/schedules.js';

/** `c` with `sql` for its runner: itself when `sql` is its own, else the context of the transaction `sql` runs in. */
function contextOf(c: PgContext, sql: Sql): PgContext {
  return sql === c.sql ? c : { ...c, sql, tx: (fn) => fn(sql) };
}

/**
 * Runs the store's operations on a `pg` pool: a closed store refuses, and `pg`'s errors become
 * the contract's (connection.ts `toStoreError`). Audited changes and groups of creates with
 * audited rows run in one transaction with their events (queries/audit.ts); at most
 * {@link CREATE_FLUSHES} groups of creates are written at once.
 */
export class PgExecutor implements SqlExecutor<PgContext> {
  readonly createsInFlight = CREATE_FLUSHES;
  private readonly pool: PgContext;
  private closed = false;

  constructor(
    private readonly db: Database,
    schema: SchemaScope,
    /** Which clock decides what is due (connection.ts `PostgresStoreOptions.clock`). */
    readonly clock: 'database' | 'caller',
    readonly logger: PostgresStoreOptions['logger'],
  ) {
    this.pool = {
      sql: db.sql,
      tx: (fn) => db.tx(fn),
      notifyContext: () => schema.notifyContext(),
      scope: () => schema.scope(),
      clock,
    };
  }

  /** Marks the store closed: {@link run} refuses from now on. */
  close(): void {
    this.closed = true;
  }

  /** Whether {@link close} was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  async run<T>(fn: (c: PgContext) => T | Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError('The store is closed.');
    try {
      return await fn(this.pool);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  audited<T>(c: PgContext, record: AuditRecord | undefined, target: AuditTarget<T>, apply: (c: PgContext) => T | Promise<T>): Promise<T> {
    return audit.audited(this.db, record, target, async (sql) => apply(contextOf(c, sql)));
  }

  createsAudited(c: PgContext, rows: readonly ScheduleCreateParams[], write: (c: PgContext) => Schedule[] | Promise<Schedule[]>): Promise<Schedule[]> {
    return audit.createsAudited(this.db, rows, async (sql) => write(contextOf(c, sql)));
  }
}
