/**
 * The conformance suite against the store stack `punctual serve` runs, built by the function
 * main.ts uses (`buildServeStore`, src/serve-store.ts): every operation timed (timedStore), and
 * the dispatch operations on the dispatch store the server gives its dispatcher (SQLite: the
 * dispatcher's transactions on a thread of their own, src/store/sqlite/dispatch-thread.ts; PostgreSQL:
 * the store itself). Only the PostgreSQL clock differs from production: `caller`, so that time is
 * the suite's.
 *
 * The SQLite dispatch thread runs the build of its worker (`dist/`, kept fresh by
 * test/support/global-setup.ts), as under `punctual serve`: started from the sources, every test's
 * thread would register tsx and load the store's sources again (over a second a test on a loaded
 * 2-core machine). The thread's other side, and everything else, runs from the sources.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SqliteDispatchThread } from '../../src/store/sqlite/dispatch-thread.js';
import { DISPATCH_STORE_OPERATIONS } from '../../src/store/dispatch-store.js';
import { buildServeStore, type ServeStore } from '../../src/serve-store.js';
import type { Store } from '../../src/store/store.js';
import { MigratedSchemaPool, migratedSqlite } from '../support/migrated.js';
import { createTestSchema, pgTestUrl } from '../support/pg.js';
import { exerciseStore } from './conformance.js';

const BASE = pgTestUrl();

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

/**
 * The server's two stores seen as one `Store`, as the server's parts use them: the operations of
 * `DispatchStore` on `dispatchStore` (what the dispatcher, the pruner and the signing secret get),
 * the rest on `store` (what the API gets); `close` closes the stack.
 */
function asServed(serve: ServeStore): Store {
  const view = Object.create(serve.store) as Record<string, unknown>;
  const dispatch = serve.dispatchStore as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const op of DISPATCH_STORE_OPERATIONS) view[op] = (...args: unknown[]) => dispatch[op]!(...args);
  view.close = () => serve.close();
  return view as unknown as Store;
}

/** Every operation the stack ran, by name (the timer's observer). */
const observed: string[] = [];
const observe = (operation: string) => {
  observed.push(operation);
};

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

describe.skipIf(!BASE)('production stack, postgres', () => {
  const pool = new MigratedSchemaPool(BASE ?? '');
  afterAll(() => pool.close());
  exerciseStore('production stack, postgres', async () => {
    const schema = await pool.take();
    const serve = await buildServeStore(schema.url, { dispatches: true, observe, clock: 'caller' });
    return {
      store: asServed(serve),
      cleanup: async () => {
        await serve.close();
        await schema.drop();
      },
    };
  });
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

  it.skipIf(!BASE)('on postgres, gives the dispatcher the store itself', async () => {
    const schema = await createTestSchema(BASE!);
    try {
      const serve = await buildServeStore(schema.url, { dispatches: true, observe });
      expect(serve.dispatchStore).toBe(serve.store);
      await serve.close();
    } finally {
      await schema.drop();
    }
  });
});
