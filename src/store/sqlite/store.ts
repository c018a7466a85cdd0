import type * as S from '../store.js';
import { operationsOf, SqlStore, type Operations } from '../sql-store.js';
import * as queries from './queries/index.js';
import { openConnection, readSettings, toStoreError, type ConnectionOptions, type ConnectionSettings, type Db } from './connection.js';
import { SqliteExecutor, type Queries } from './context.js';
import { migrate } from './migrations/index.js';

export type { ConnectionSettings } from './connection.js';

/** Options of {@link SqliteStore.open}. */
export type SqliteStoreOptions = ConnectionOptions;

/** Every store operation of SQLite (../sql-store.ts), each on the statements of its query file. */
const OPERATIONS: Operations<Queries> = operationsOf(queries);

/**
 * The embedded store: one better-sqlite3 connection to one database file (see connection.ts for
 * the durability settings and claim.ts for the dispatcher's queries).
 *
 * better-sqlite3 is synchronous; every method still returns a promise, as the `Store` contract
 * demands, so nothing above the store depends on a synchronous API. A statement runs to its end
 * before the event loop continues, so the methods of one instance never interleave. Schedule
 * creates, single and batch, are written in groups (../group-commit.ts) by one writer, each group
 * one IMMEDIATE transaction, so one fsync (`synchronous = FULL`, connection.ts) for every create
 * queued in the same turn of the event loop.
 */
export class SqliteStore extends SqlStore<Queries> implements S.Store {
  private readonly pingStatement;

  private constructor(
    private readonly db: Db,
    private readonly exec: SqliteExecutor,
  ) {
    super(exec, OPERATIONS);
    // Reads the schema page: touches the file, not only the connection object.
    this.pingStatement = db.prepare('SELECT count(*) FROM sqlite_schema');
  }

  /**
   * Opens (creating when missing) the database file at `path`. Does not migrate.
   * @throws StoreUnavailableError when the file cannot be opened as a database.
   */
  static open(path: string, opts: SqliteStoreOptions = {}): SqliteStore {
    const db = openConnection(path, opts);
    try {
      return new SqliteStore(db, new SqliteExecutor(db, opts.logger));
    } catch (err) {
      db.close();
      throw toStoreError(err);
    }
  }

  /** The connection's durability and locking settings, as SQLite reports them (for logs and tests). */
  settings(): ConnectionSettings {
    return this.exec.guard(() => readSettings(this.db));
  }

  async migrate(): Promise<void> {
    this.exec.guard(() => migrate(this.db));
    this.exec.reset(); // prepare again against the migrated schema
  }

  /** Idempotent. */
  async close(): Promise<void> {
    if (this.db.open) this.db.close();
    this.exec.reset();
  }

  async ping(): Promise<void> {
    this.exec.guard(() => this.pingStatement.get());
  }

  /** One node per SQLite file: the caller's clock decides (see Store.now). */
  async now(): Promise<number | null> {
    return null;
  }

  /** No other node can create work in this file, so there is nothing to hear: the listener is never called. */
  onWork(_listener: (dueAtMs: number) => void): () => void {
    return () => undefined;
  }
}
