import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseTarget, OpenStoreOptions, StoreDriver } from './driver.js';
export type { DatabaseTarget, OpenStoreOptions } from './driver.js';
import { postgresDriver } from './postgres/driver.js';
import { sqliteDriver } from './sqlite/driver.js';
import type { Store } from './store.js';

/** The forms of `DATABASE_URL` this version accepts, for error messages and docs. */
export const ACCEPTED_DATABASE_URLS =
  'file:./data/punctual.db, file:relative/path.db, file:/absolute/path.db, file:///absolute/path.db, ' +
  'or a plain file path (SQLite); postgres:// or postgresql:// (PostgreSQL, optionally with ?schema=<name>)';

/** A scheme of two or more characters: `C:\db` (a Windows drive) stays a plain path. */
const SCHEME = /^([a-z][a-z0-9+.-]+):/i;

/**
 * Reads a `DATABASE_URL` (the forms are listed in {@link ACCEPTED_DATABASE_URLS}). SQLite: `file:<path>` with the path taken
 * literally (relative to the working directory unless absolute), `file://<absolute path>`
 * (percent-decoded, as a URL), or a plain path. PostgreSQL: `postgres://` or `postgresql://`.
 * @throws Error naming the accepted forms for anything else (an empty string, another scheme,
 *   SQLite URI parameters such as `?mode=ro`, which this build does not interpret).
 */
export function parseDatabaseUrl(databaseUrl: string): DatabaseTarget {
  const url = databaseUrl.trim();
  const fail = (why: string): never => {
    throw new Error(`Invalid DATABASE_URL (${why}). Accepted: ${ACCEPTED_DATABASE_URLS}.`);
  };
  if (url === '') return fail('empty');
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return { kind: 'postgres', url };
  if (scheme === undefined) return { kind: 'sqlite', path: resolve(url) };
  if (scheme !== 'file') return fail(`unsupported scheme "${scheme}:"`);
  const rest = url.slice('file:'.length);
  if (/[?#]/.test(rest)) return fail('query or fragment in a file: URL');
  if (rest.startsWith('//')) {
    try {
      return { kind: 'sqlite', path: fileURLToPath(url) };
    } catch {
      return fail('a file:// URL must name an absolute local path, e.g. file:///var/lib/punctual.db');
    }
  }
  if (rest === '') return fail('no path after file:');
  return { kind: 'sqlite', path: isAbsolute(rest) ? rest : resolve(rest) };
}

/**
 * A description of the database safe to log: the SQLite file path, or the PostgreSQL URL with
 * its password and query parameters (which may carry credentials) removed. Never throws.
 */
export function describeDatabaseUrl(databaseUrl: string): string {
  let target: DatabaseTarget;
  try {
    target = parseDatabaseUrl(databaseUrl);
  } catch {
    const scheme = SCHEME.exec(databaseUrl.trim())?.[1];
    return scheme ? `unsupported database URL (${scheme}:…)` : 'invalid database URL';
  }
  return driverOf(target).describe(target);
}

/** The driver of each kind of {@link DatabaseTarget}. */
const DRIVERS: { [K in DatabaseTarget['kind']]: StoreDriver<Extract<DatabaseTarget, { kind: K }>> } = {
  sqlite: sqliteDriver,
  postgres: postgresDriver,
};

/** The driver of `target`'s database (sqlite/driver.ts, postgres/driver.ts). */
export function driverOf<T extends DatabaseTarget>(target: T): StoreDriver<T> {
  // DRIVERS maps each kind to the driver of that kind; TypeScript cannot follow the correlation.
  return DRIVERS[target.kind] as unknown as StoreDriver<T>;
}

/**
 * Opens the store `databaseUrl` selects (see {@link parseDatabaseUrl}) with its driver. SQLite:
 * creates the file's directory when missing. PostgreSQL: opens a pool (see `PostgresStore`; the
 * URL may carry `schema=<name>`) and checks the server answers. Does not migrate: call
 * `store.migrate()`.
 * @throws Error for an unsupported URL (or an invalid PostgreSQL `schema` parameter).
 * @throws StoreUnavailableError when the database cannot be opened or reached.
 */
export async function openStore(databaseUrl: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const target = parseDatabaseUrl(databaseUrl);
  return driverOf(target).open(target, opts);
}
