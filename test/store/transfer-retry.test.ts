import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETRY_POLICY, EXPONENTIAL_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { transferStore } from '../../src/store/transfer/copy.js';
import { SQLITE, STORES, type TestDatabase } from '../support/stores.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

/**
 * `migrate-store` copies each job's retry policy as it is, its steps (`delaysMs`) or the
 * exponential rule (null), from SQLite to every store (the transfer takes the column lists).
 */
describe.each(STORES)('migrate-store keeps retry policies (SQLite → $name)', (to) => {
  const dbs: TestDatabase[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dbs.splice(0)) await d.drop();
  });

  it('steps and exponential policies of schedules and cron jobs arrive unchanged', async () => {
    const from = await SQLITE.create();
    const target = await to.create();
    dbs.push(from, target);
    const source = await openStore(from.url);
    stores.push(source);
    await source.migrate();
    const ids = { steps: newId(), exponential: newId(), cron: newId() };
    const schedule = (id: string, retry: typeof DEFAULT_RETRY_POLICY) =>
      source.scheduleCreate({ id, name: 'r', scheduledAt: T0, endpoint: 'https://e.example/', data: {}, tags: [], retry, timeoutMs: 30_000, now: T0 });
    await schedule(ids.steps, { ...DEFAULT_RETRY_POLICY, delaysMs: [1_000, 86_400_000] });
    await schedule(ids.exponential, EXPONENTIAL_RETRY_POLICY);
    await source.cronCreate({
      id: ids.cron, expression: '0 * * * *', name: null, timezone: null, endpoint: 'https://e.example/c', data: null,
      nextInvocation: T0 + 3_600_000, retry: DEFAULT_RETRY_POLICY, timeoutMs: 30_000, misfire: 'once', overlap: 'allow', now: T0,
    });
    await transferStore({ from: from.url, to: target.url });
    const copy = await openStore(target.url);
    stores.push(copy);
    expect((await copy.scheduleGet({ id: ids.steps }))?.retry).toEqual({ ...DEFAULT_RETRY_POLICY, delaysMs: [1_000, 86_400_000] });
    expect((await copy.scheduleGet({ id: ids.exponential }))?.retry).toEqual(EXPONENTIAL_RETRY_POLICY);
    expect((await copy.cronGet({ id: ids.cron }))?.retry).toEqual(DEFAULT_RETRY_POLICY);
  });
});
