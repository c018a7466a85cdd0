/**
 * What each database offers the rest of the program, in one object per database
 * (`sqlite/driver.ts`, `postgres/driver.ts`), so that nothing outside those modules asks which
 * database it is talking to: `open.ts` picks the driver once, from the `DATABASE_URL`.
 */
import type { DispatchStore } from './contract/dispatch.js';
import type { Store } from './store.js';
import type { TransferSource, TransferTarget } from './transfer/records.js';

/** What a `DATABASE_URL` selects. */
export type DatabaseTarget =
  | { kind: 'sqlite'; /** Absolute path of the database file. */ path: string }
  | { kind: 'postgres'; url: string };

/** Options of `openStore` (open.ts) and of each driver's `open`. */
export interface OpenStoreOptions {
  /**
   * Receives warnings (e.g. a database that cannot use WAL, a cron job paused by a claim, a lost
   * PostgreSQL LISTEN connection); pino's logger fits.
   */
  logger?: { warn(obj: object, msg?: string): void };
  /**
   * PostgreSQL only: which clock decides what is due — `database` (the default: the database's
   * clock, so a node's skewed clock never fires early) or `caller` (the `now` given to
   * `claimDue`, as SQLite does; for deterministic tests). Ignored by SQLite, which serves one
   * node and always uses the caller's clock.
   */
  clock?: 'database' | 'caller';
}

/** A dispatch store with a life of its own (e.g. a thread), ended by `close()`. */
export interface ClosableDispatchStore extends DispatchStore {
  /** Releases what the dispatch store holds of its own. Idempotent; the store under it stays open. */
  close(): Promise<void>;
}

/** One database's entry points, for targets `T` of a `DATABASE_URL` (see `parseDatabaseUrl`). */
export interface StoreDriver<T extends DatabaseTarget> {
  /**
   * Opens the store at `target`, not migrated.
   * @throws StoreUnavailableError when the database cannot be opened or reached
   */
  open(target: T, opts: OpenStoreOptions): Promise<Store>;
  /** The reading end of `punctual migrate-store` on a migrated store (see `TransferSource`). */
  openTransferSource(target: T): Promise<TransferSource>;
  /** The writing end of `punctual migrate-store` on a migrated, empty store (see `TransferTarget`). */
  openTransferTarget(target: T): Promise<TransferTarget>;
  /**
   * The store `punctual serve` gives its dispatcher and pruner, over `store` (what {@link open}
   * returned for `target`), or null when they use `store` itself.
   */
  serveDispatchStore(store: Store, target: T, opts: Pick<OpenStoreOptions, 'logger'>): ClosableDispatchStore | null;
  /**
   * A description of `target` safe to log (no password, no query parameters but a schema name).
   * Never throws.
   */
  describe(target: T): string;
}
