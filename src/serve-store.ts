/**
 * The store stack of `punctual serve`, built in one place so that what the server runs and what
 * the conformance suite checks (test/store/production-sqlite.test.ts, production-postgres.test.ts) are the same objects.
 */
import { access } from 'node:fs/promises';
import { timedStore, type StoreOperationObserver } from './metrics/store-timing.js';
import { keyFilePath, loadKeyFile, loadOrCreateKeyFile, type KeyFileLogger } from './secrets/key-file.js';
import { KeyRing } from './secrets/key-ring.js';
import type { DispatchStore } from './store/contract/dispatch.js';
import { driverOf, parseDatabaseUrl, type OpenStoreOptions } from './store/open.js';
import type { JobSecretsEntry } from './store/contract/secrets.js';
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

/** Options of {@link buildServeKeyRing}. */
export interface ServeKeyRingOptions {
  /**
   * `punctual serve`: the store, migrated, whose newest sealed secrets (`Store.secretsNewest`) the
   * keys must open; when they cannot, start-up is refused ({@link SealingKeyMissingError}).
   */
  store?: Pick<Store, 'secretsNewest' | 'settingGet' | 'settingGetOrCreate'>;
  /**
   * `punctual serve --new-key`: start even when the keys at hand do not open the stored secrets
   * (they stay sealed with a key that is gone, recorded as given up), making a new key file on
   * SQLite when there is none. An existing key file is never replaced or changed.
   */
  newKey?: boolean;
  /**
   * The commands that work on what is stored (`punctual secrets rekey`): a missing key file is an
   * error instead of being made, and no key ring (null) is not logged (the caller says it).
   */
  existing?: boolean;
}

/**
 * The store holds job secrets sealed with keys that this node does not have (exit code 2 at
 * start). The message names the key ids, where the keys were looked for, how to put them back,
 * and `--new-key`; never a key or a sealed value.
 */
export class SealingKeyMissingError extends Error {
  constructor(
    /** The ids (8 hex characters) of the missing keys, as written in the sealed values. */
    readonly keyIds: readonly string[],
    message: string,
  ) {
    super(message);
    this.name = 'SealingKeyMissingError';
  }
}

/**
 * The ids of the keys that sealed `entries`' values and that `ring` (null: no keys) lacks, each
 * once, in the order met. A value that is not a sealed value names no key and is skipped (opening
 * it fails as tampered at call time).
 */
export function keysMissingFor(entries: readonly JobSecretsEntry[], ring: KeyRing | null): string[] {
  const missing = new Set<string>();
  for (const e of entries) {
    for (const sealed of Object.values(e.secrets)) {
      const id = KeyRing.keyIdIn(sealed);
      if (id !== null && !ring?.keyIds.includes(id)) missing.add(id);
    }
  }
  return [...missing];
}

/**
 * The key ring of `punctual serve` (docs/security.md, "Job secrets"): `configured`
 * (`PUNCTUAL_ENCRYPTION_KEYS`) when given; else, on SQLite, the key file beside the database
 * (`<database path>.key`, see src/secrets/key-file.ts); else (PostgreSQL: nodes share no file)
 * null, and jobs carrying secrets are refused, which is logged at start.
 *
 * With `opts.store` (serve), the rule that keeps secrets openable, the same for both stores: the
 * newest job with secrets of each table (`Store.secretsNewest`, an index read) names the keys that
 * sealed them; when the keys at hand lack one, start-up is refused instead of going on with calls
 * that would fail with `key <id> missing`. The key file is made only when it is missing and no
 * stored secret needs a key (an empty store, or one without secrets), or with `opts.newKey`.
 * `opts.newKey` also starts with keys that lack a sealing key: the key is recorded in the store as
 * given up (setting `secrets_key_given_up:<keyId>`), so later starts warn instead of refusing;
 * the secrets sealed with it stay unopenable until it is put back in the keys.
 * @throws Error for an unsupported URL; KeyFileError when the key file cannot be read or created
 *   (with `existing`: is missing); SealingKeyMissingError as above
 */
export async function buildServeKeyRing(
  configured: KeyRing | null,
  databaseUrl: string,
  logger: KeyFileLogger,
  opts: ServeKeyRingOptions = {},
): Promise<KeyRing | null> {
  const target = parseDatabaseUrl(databaseUrl);
  const keyFile = target.kind === 'sqlite' ? keyFilePath(target.path) : null;
  if (opts.existing) {
    if (configured !== null) return configured;
    return keyFile === null ? null : loadKeyFile(keyFile, logger);
  }
  const store = opts.store;
  const sealedBy = store ? await store.secretsNewest() : [];
  const keyFileMissing = configured === null && keyFile !== null && !(await exists(keyFile));
  const found = configured ?? (keyFile === null || keyFileMissing ? null : await loadKeyFile(keyFile, logger));
  const missing = keysMissingFor(sealedBy, found);
  const givenUp = store ? await givenUpKeys(store, missing) : [];
  const unopened = missing.filter((id) => !givenUp.includes(id));
  if (unopened.length > 0) {
    if (!opts.newKey) {
      const holder = configured !== null ? 'PUNCTUAL_ENCRYPTION_KEYS' : keyFile !== null ? `the key file ${keyFile}` : null;
      throw new SealingKeyMissingError(
        unopened,
        keyFileMissing ? keyFileMissingMessage(unopened, keyFile!) : keysLackMessage(unopened, holder, found),
      );
    }
    // Given up for good: later starts do not refuse for these keys again (they warn).
    for (const id of unopened) await store!.settingGetOrCreate({ key: `${GIVEN_UP}${id}`, create: () => new Date().toISOString() });
  }
  const ring = keyFileMissing ? await loadOrCreateKeyFile(keyFile!, logger) : found;
  if (missing.length > 0) {
    logger.warn(
      { missingKeyIds: missing },
      `job secrets sealed with ${keysText(missing)} cannot be opened (given up with --new-key): their calls fail with ` +
        `"key ${missing[0]} missing" until that key is put back in the keys, after the newest (docs/security.md, "Job secrets")`,
    );
  } else if (opts.newKey && !keyFileMissing) {
    logger.warn({}, '--new-key: the keys at hand open the stored secrets, nothing was changed (remove the flag)');
  }
  if (ring === null) {
    logger.warn({}, 'PUNCTUAL_ENCRYPTION_KEYS is not set: jobs carrying secrets are refused (see docs/security.md, "Job secrets")');
  }
  return ring;
}

/**
 * The settings that record a key given up with `--new-key` (`secrets_key_given_up:<keyId>`, the
 * instant in ISO 8601): a later start does not refuse for that key again. Kept in the store, so
 * they travel with it (backups, `migrate-store`).
 */
const GIVEN_UP = 'secrets_key_given_up:';

/** Those of `ids` given up with `--new-key` before. */
async function givenUpKeys(store: Pick<Store, 'settingGet'>, ids: readonly string[]): Promise<string[]> {
  const marks = await Promise.all(ids.map((id) => store.settingGet({ key: `${GIVEN_UP}${id}` })));
  return ids.filter((_, i) => marks[i] !== null);
}

/** "key a1b2c3d4" or "keys a1b2c3d4, 5e6f7a8b". */
function keysText(ids: readonly string[]): string {
  return `${ids.length === 1 ? 'key' : 'keys'} ${ids.join(', ')}`;
}

/** What a start without the key file, on a store with secrets, says. */
function keyFileMissingMessage(missing: readonly string[], keyFile: string): string {
  const keys = keysText(missing);
  return (
    `the store holds job secrets sealed with ${keys}, but its key file ${keyFile} is missing, so no new key was made. ` +
    `Restore the key file: copy the .key file of the database's backup (\`punctual backup <file>\` writes it as <file>.key) ` +
    `to ${keyFile} with mode 0600, then start again; or set PUNCTUAL_ENCRYPTION_KEYS to keys that include ${missing.join(', ')}. ` +
    `To start with a new key instead, start once with --new-key: the secrets sealed with ${keys} then stay unopenable ` +
    `(their calls fail with "key ${missing[0]} missing") until that key is put back (see docs/security.md, "Job secrets").`
  );
}

/** What a start with keys that lack a sealing key says; `holder` null: no keys configured (PostgreSQL). */
function keysLackMessage(missing: readonly string[], holder: string | null, ring: KeyRing | null): string {
  const keys = keysText(missing);
  const have = ring === null ? '' : ` (it holds ${keysText(ring.keyIds)})`;
  const where =
    holder === null
      ? `the store holds job secrets sealed with ${keys}, and PUNCTUAL_ENCRYPTION_KEYS is not set. Set it to the nodes' keys, including ${missing.join(', ')}`
      : `the store holds job secrets sealed with ${keys}, which ${holder} does not hold${have}. Add ${missing.length === 1 ? 'it' : 'them'} back to ${holder}, ` +
        (holder === 'PUNCTUAL_ENCRYPTION_KEYS'
          ? 'after the newest key (as on the other nodes, or from where the keys are kept)'
          : 'after the newest key (from the .key file of the database\'s backup, which `punctual backup <file>` writes as <file>.key)');
  return (
    `${where}, then start again. To start anyway, start with --new-key: the secrets sealed with ${keys} then stay unopenable ` +
    `(their calls fail with "key ${missing[0]} missing") until that key is put back (see docs/security.md, "Job secrets").`
  );
}

/** Whether something is at `path` (a file that exists but cannot be read is reported when it is read). */
async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
