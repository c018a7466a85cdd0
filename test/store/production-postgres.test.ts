/**
 * The conformance suite against the PostgreSQL store stack `punctual serve` runs, built by the
 * function main.ts uses (`buildServeStore`, src/serve-store.ts): every operation timed
 * (timedStore); the dispatcher gets the store itself. Only the clock differs from production:
 * `caller`, so that time is the suite's. The SQLite stack is in production-sqlite.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildServeStore } from '../../src/serve-store.js';
import { MigratedSchemaPool } from '../support/migrated.js';
import { createTestSchema, pgTestUrl } from '../support/pg.js';
import { exerciseStore } from './conformance/index.js';
import { asServed, observe } from './production-stack.js';

const BASE = pgTestUrl();

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
