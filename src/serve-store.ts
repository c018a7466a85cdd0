/**
 * The store stack of `punctual serve`, built in one place so that what the server runs and what
 * the conformance suite checks (test/store/production.test.ts) are the same objects.
 */
import { timedStore, type StoreOperationObserver } from './metrics/store-timing.js';
import { keyFilePath, loadKeyFile, loadOrCreateKeyFile, type KeyFileLogger } from './secrets/key-file.js';
import type { KeyRing } from './secrets/key-ring.js';
import type { DispatchStore } from './store/dispatch-store.js';
import { driverOf, parseDatabaseUrl, type OpenStoreOptions } from './store/open.js';
import type { Store } from './store/store.js';

/** Options of {@link buildServeStore}. */
export interface ServeStoreOptions extends OpenStoreOptions {
  /** Whether this node dispatches (roles `all` and `dispatcher`); else no dispatch store is built. */
  dispatches: boolean;
  /** Receives every store operation's duration (s), e.g. `ServerMetrics.observeStoreOperation`. */
  observe: StoreOperationObserver;
}

/** The stores of one `punctual serve`. */
export interface ServeStore {
  /** The store of the API, the metrics and start-up, every operation timed by `observe`. */
  store: Store;
  /**
   * The store of the dispatcher, the pruner and the signing secret, every operation timed by
   * `observe`: the driver's dispatch store when this node dispatches and the driver has one
   * (SQLite: its transactions on a thread of their own), otherwise {@link store} itself.
   */
  dispatchStore: DispatchStore;
  /** Ends the dispatch store's own resources (the thread), then closes {@link store}. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens the store `databaseUrl` selects (not migrated), and the dispatch store its driver gives
 * `punctual serve`, each wrapped in the operation timer (`timedStore`, src/metrics/store-timing.ts).
 * @throws Error for an unsupported URL; StoreUnavailableError when the database cannot be opened
 */
export async function buildServeStore(databaseUrl: string, opts: ServeStoreOptions): Promise<ServeStore> {
  const target = parseDatabaseUrl(databaseUrl);
  const driver = driverOf(target);
  const opened = await driver.open(target, opts);
  const own = opts.dispatches ? driver.serveDispatchStore(opened, target, opts) : null;
  const store = timedStore(opened, opts.observe);
  const dispatchStore = own === null ? store : timedStore<DispatchStore>(own, opts.observe);
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await own?.close();
      await store.close();
    })();
    return closing;
  };
  return { store, dispatchStore, close };
}

/**
 * The key ring of `punctual serve` (docs/security.md, "Job secrets"): `configured`
 * (`PUNCTUAL_ENCRYPTION_KEYS`) when given; else, on SQLite, the key file beside the database
 * (`<database path>.key`, created at the first start, see src/secrets/key-file.ts); else
 * (PostgreSQL: nodes share no file) null, and jobs carrying secrets are refused, which is logged
 * at start. With `existing` (the commands that work on what is stored, `punctual secrets rekey`),
 * a missing key file is an error instead of being made, and null is not logged (the caller says it).
 * @throws Error for an unsupported URL; KeyFileError when the key file cannot be read or created
 *   (with `existing`: is missing)
 */
export async function buildServeKeyRing(
  configured: KeyRing | null,
  databaseUrl: string,
  logger: KeyFileLogger,
  opts: { existing?: boolean } = {},
): Promise<KeyRing | null> {
  if (configured !== null) return configured;
  const target = parseDatabaseUrl(databaseUrl);
  if (target.kind === 'sqlite') return (opts.existing ? loadKeyFile : loadOrCreateKeyFile)(keyFilePath(target.path), logger);
  if (opts.existing) return null;
  logger.warn({}, 'PUNCTUAL_ENCRYPTION_KEYS is not set: jobs carrying secrets are refused (see docs/security.md, "Job secrets")');
  return null;
}
