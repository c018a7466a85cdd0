import type * as S from '../store.js';
import { operationsOf, SqlStore, type Operations } from '../sql-store.js';
import * as queries from './queries/index.js';
import { connectionConfig, Database, DB_NOW_MS, DEFAULTS, type ConnectionTarget, type PgContext, type PostgresStoreOptions, type Sql } from './connection.js';
import { PgExecutor } from './context.js';
import { migrate } from './migrations/index.js';
import { channelOf, SchemaScope, WorkListener } from './notify.js';

export type { PostgresStoreOptions } from './connection.js';

/** Every store operation of PostgreSQL (../sql-store.ts), each in its query file. */
const OPERATIONS: Operations<PgContext> = operationsOf(queries);

/**
 * The store for several nodes: a `pg` pool on one PostgreSQL database. See
 * connection.ts for the URL, the session limits and the error mapping, store/postgres/migrations/index.ts for the
 * schema, claim.ts for how concurrent claimers share the work, notify.ts for LISTEN/NOTIFY.
 *
 * Opening creates the pool without connecting; `openStore` then pings, so a wrong URL fails at
 * start. Every method runs on the pool (one statement, or one transaction on one connection) and
 * throws `StoreUnavailableError` when the database cannot be reached, as the contract says.
 */
export class PostgresStore extends SqlStore<PgContext> implements S.Store {
  /** Which clock decides what is due (see {@link PostgresStoreOptions.clock}). */
  readonly clock: 'database' | 'caller';
  private readonly listener: WorkListener;

  private constructor(
    private readonly target: ConnectionTarget,
    private readonly db: Database,
    private readonly schema: SchemaScope,
    private readonly exec: PgExecutor,
  ) {
    super(exec, OPERATIONS);
    this.clock = exec.clock;
    this.listener = new WorkListener({
      config: target.config,
      channel: async () => channelOf(await this.schema.scope()),
      nextDueAt: () => this.nextDueAt(),
      ...(exec.logger && { logger: exec.logger }),
    });
  }

  /**
   * A store on the database at `url` (`postgres://` or `postgresql://`; see `connectionConfig` for
   * the `schema` parameter). Connects lazily; does not migrate.
   * @throws Error for an unparseable URL or an invalid `schema`
   */
  static open(url: string, opts: PostgresStoreOptions = {}): PostgresStore {
    const target = connectionConfig(url, opts);
    const clock = opts.clock ?? 'database';
    const logger = opts.logger;
    const db = new Database(target.config, opts.poolSize ?? DEFAULTS.poolSize, (err) =>
      logger?.warn({ err: { message: err.message, code: (err as { code?: unknown }).code } }, 'idle PostgreSQL connection failed'),
    );
    const schema = new SchemaScope(target.schema, db.sql, clock);
    return new PostgresStore(target, db, schema, new PgExecutor(db, schema, clock, logger));
  }

  async migrate(): Promise<void> {
    await this.exec.run(async () => {
      const scope = this.target.schema ?? (await this.schema.scope());
      await this.db.withClient((client) => migrate(client, scope, this.target.schema));
    });
  }

  /** Ends the pool and the LISTEN connection. Idempotent. */
  async close(): Promise<void> {
    if (this.exec.isClosed) return;
    this.exec.close();
    await this.listener.close();
    await this.db.pool.end().catch(() => undefined);
  }

  async ping(): Promise<void> {
    await this.exec.run(() => this.db.sql.rows('SELECT 1'));
  }

  /** The database's clock (epoch ms, rounded down) with clock 'database'; null with clock 'caller'. */
  async now(): Promise<number | null> {
    if (this.clock === 'caller') return null;
    return this.exec.run(async () => (await this.db.sql.rows<{ now: number }>(`SELECT ${DB_NOW_MS} AS now`, [], 'punctual_now'))[0]!.now);
  }

  /**
   * LISTEN/NOTIFY hints from every node on this database and schema (notify.ts): the listener
   * gets the due instant (epoch ms) of work created or moved earlier, when due within a minute.
   * The dedicated connection opens on the first subscription and reconnects by itself; errors go
   * to the logger, never to the caller.
   */
  onWork(listener: (dueAtMs: number) => void): () => void {
    if (this.exec.isClosed) return () => undefined;
    return this.listener.subscribe(listener);
  }

  /** Resolves once the LISTEN of {@link onWork} is active (tests, start-up ordering). */
  listening(): Promise<void> {
    return this.listener.ready();
  }

  /** The pool's SQL runner, for tests and tools of this folder. */
  get sql(): Sql {
    return this.db.sql;
  }
}
