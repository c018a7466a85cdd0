/**
 * The conformance suite against the SQLite store stack `punctual serve` runs, built by the
 * function main.ts uses (`buildServeStore`, src/serve-store.ts): every operation timed
 * (timedStore), and the dispatch operations on the dispatcher's transactions on a thread of their
 * own (src/store/sqlite/dispatch-thread.ts). The PostgreSQL stack is in production-postgres.test.ts.
 *
 * The SQLite dispatch thread runs the build of its worker (`dist/`, kept fresh by
 * test/support/global-setup.ts), as under `punctual serve`: started from the sources, every test's
 * thread would register tsx and load the store's sources again (over a second a test on a loaded
 * 2-core machine). The thread's other side, and everything else, runs from the sources.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SqliteDispatchThread } from '../../src/store/sqlite/dispatch-thread.js';
import { buildServeStore } from '../../src/serve-store.js';
import { migratedSqlite } from '../support/migrated.js';
import { exerciseStore } from './conformance/index.js';
import { asServed, observe, observed } from './production-stack.js';

vi.mock('../../src/runtime/worker-start.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/runtime/worker-start.js')>();
  return {
    ...real,
    /** The worker beside `base` in dist/ (`src/x/y.ts` → `dist/x/y.js`): the compiled one. */
    startWorker: (name: string, base: string, workerData: unknown) => {
      const at = base.lastIndexOf('/src/');
      const built = base.endsWith('.ts') && at >= 0 ? `${base.slice(0, at)}/dist/${base.slice(at + 5, -3)}.js` : base;
      return real.startWorker(name, built, workerData);
    },
  };
});

exerciseStore('production stack, sqlite', async () => {
  const db = await migratedSqlite();
  const serve = await buildServeStore(db.url, { dispatches: true, observe });
  return {
    store: asServed(serve),
    cleanup: async () => {
      await serve.close();
      await db.drop();
    },
  };
});

describe('the production stack itself', () => {
  it('on SQLite, gives the dispatcher the threaded dispatch store (timed), and the API the store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'punctual-serve-store-'));
    try {
      const serve = await buildServeStore(`file:${join(dir, 'punctual.db')}`, { dispatches: true, observe });
      await serve.store.migrate();
      expect(serve.dispatchStore).not.toBe(serve.store);
      expect(serve.dispatchStore).toBeInstanceOf(SqliteDispatchThread); // through the timer, a Proxy
      observed.length = 0;
      expect(await serve.dispatchStore.nextDueAt()).toBeNull();
      expect(observed).toEqual(['nextDueAt']);
      await serve.close();
      await expect(serve.close()).resolves.toBeUndefined();
      await expect(serve.dispatchStore.nextDueAt()).rejects.toThrow(/store thread/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('on SQLite without dispatching (no dispatcher), builds no thread: the dispatch store is the store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'punctual-serve-store-'));
    try {
      const serve = await buildServeStore(`file:${join(dir, 'punctual.db')}`, { dispatches: false, observe });
      expect(serve.dispatchStore).toBe(serve.store);
      await serve.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
