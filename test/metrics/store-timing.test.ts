import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import { timedStore } from '../../src/metrics/store-timing.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';

/**
 * The store's timing decorator (docs/metrics.md) around a real SQLite store: it must not change what
 * the store does — results, errors, synchronous methods, the class — and must time every
 * asynchronous operation once, by name, with its result.
 */
describe('timedStore', () => {
  let dir: string;
  let inner: SqliteStore;
  let store: Store;
  let seen: { operation: string; seconds: number; ok: boolean }[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-timing-'));
    inner = SqliteStore.open(join(dir, 'db.sqlite'));
    seen = [];
    store = timedStore<Store>(inner, (operation, seconds, ok) => seen.push({ operation, seconds, ok }));
  });
  afterEach(async () => {
    await inner.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes results through and times each operation once, by method name', async () => {
    await store.migrate();
    const created = await store.scheduleCreate({
      id: newId(),
      name: 'n',
      scheduledAt: 1_000,
      endpoint: 'https://example.com/',
      data: { a: 1 },
      tags: [],
      retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1000 },
      timeoutMs: 1000,
      now: 0,
    });
    expect(await store.scheduleGet({ id: created.id })).toEqual(await inner.scheduleGet({ id: created.id }));
    expect(await store.dueCount({ now: 1_000, limit: 10 })).toEqual({ schedule: 1, cron: 0, waiting: 0, lease: 0 });
    expect(await store.now()).toBeNull();
    expect(seen.map((s) => [s.operation, s.ok])).toEqual([
      ['migrate', true],
      ['scheduleCreate', true],
      ['scheduleGet', true],
      ['dueCount', true],
      ['now', true],
    ]);
    for (const s of seen) expect(s.seconds).toBeGreaterThanOrEqual(0);
  });

  it('passes errors through unchanged and times them as failed', async () => {
    await store.migrate();
    await inner.close();
    const err = await store.ping().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(seen.at(-1)).toMatchObject({ operation: 'ping', ok: false });
  });

  it('leaves what is not an operation alone: onWork returns its unsubscribe function; the class and fields are the store’s', async () => {
    const unsubscribe = store.onWork(() => undefined);
    expect(typeof unsubscribe).toBe('function');
    unsubscribe();
    expect(store).toBeInstanceOf(SqliteStore);
    expect((store as SqliteStore).settings().journalMode).toBe(inner.settings().journalMode);
    expect(seen).toEqual([]);
    expect(store.scheduleGet).toBe(store.scheduleGet); // one wrapper per method, not one per access
  });
});
