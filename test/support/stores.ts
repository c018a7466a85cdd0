import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSchema, pgTestUrl } from './pg.js';

/** A fresh, empty database of one store, for one test server or one test file. */
export interface TestDatabase {
  /** `DATABASE_URL` of the database. */
  url: string;
  /** Removes it (the SQLite temp dir; the PostgreSQL schema). Idempotent. */
  drop(): Promise<void>;
}

/**
 * A kind of store the e2e suites run against (one suite for every kind): its name, and how to make a
 * fresh database of it. The store a test works on is another thing: `StoreUnderTest`
 * (test/store/conformance/index.ts), a store already open on such a database.
 */
export interface StoreKind {
  /** `sqlite` or `postgres`: appears in the names of the tests (CI checks PostgreSQL tests ran). */
  name: 'sqlite' | 'postgres';
  /** Makes a fresh database of this store. */
  create(): Promise<TestDatabase>;
}

/** The embedded store: a SQLite file in a fresh temp dir. */
export const SQLITE: StoreKind = {
  name: 'sqlite',
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'punctual-test-'));
    return { url: `file:${join(dir, 'punctual.db')}`, drop: () => rm(dir, { recursive: true, force: true }) };
  },
};

/**
 * PostgreSQL at `PUNCTUAL_TEST_DATABASE_URL` (a fresh schema per database, dropped at the end),
 * or null when the variable is not set (test/support/global-setup.ts says so once).
 */
export const POSTGRES: StoreKind | null = (() => {
  const base = pgTestUrl();
  if (!base) return null;
  return { name: 'postgres', create: () => createTestSchema(base) };
})();

/** Every store under test: SQLite always, PostgreSQL when configured. For `describe.each(STORES)`. */
export const STORES: readonly StoreKind[] = POSTGRES ? [SQLITE, POSTGRES] : [SQLITE];
