import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { occurrenceJitterMs } from '../../src/store/rules/cron-life.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { transferStore } from '../../src/store/transfer/copy.js';
import { SQLITE, STORES, type TestDatabase } from '../support/stores.js';

const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

/**
 * `migrate-store` copies the life of cron jobs (docs/cron.md, "Start, end and limits", "Jitter"):
 * `startAt`, `endAt`, `maxInvocations`, `jitterMs`, the `Completed` state, and the jitter of an
 * execution (its due instant), from SQLite to every store.
 */
describe.each(STORES)('migrate-store keeps the life of cron jobs (SQLite → $name)', (to) => {
  const dbs: TestDatabase[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dbs.splice(0)) await d.drop();
  });

  it('window, limit, jitter, Completed and an execution’s jitter arrive unchanged', async () => {
    const from = await SQLITE.create();
    const target = await to.create();
    dbs.push(from, target);
    const source = await openStore(from.url);
    stores.push(source);
    await source.migrate();
    const job = (o: object) =>
      source.cronCreate({
        id: newId(), expression: '* * * * *', name: null, timezone: null, endpoint: 'https://e.example/c', data: null,
        nextInvocation: T0, retry: DEFAULT_RETRY_POLICY, timeoutMs: 30_000, misfire: 'once', overlap: 'allow', now: T0 - MINUTE, ...o,
      });
    const windowed = await job({ startAt: T0 - MINUTE, endAt: T0 + 90 * MINUTE, jitterMs: 40_000 });
    const limited = await job({ maxInvocations: 1 });
    await source.claimDue({ now: T0, limit: 10, nodeId: 'n', leaseMs: 86_400_000, misfireThresholdMs: MINUTE });
    expect((await source.cronGet({ id: limited.id }))?.status).toBe('Completed');

    await transferStore({ from: from.url, to: target.url });
    const copy = await openStore(target.url);
    stores.push(copy);
    expect(await copy.cronGet({ id: windowed.id })).toMatchObject({
      startAt: T0 - MINUTE,
      endAt: T0 + 90 * MINUTE,
      maxInvocations: null,
      jitterMs: 40_000,
      status: 'Active',
    });
    expect(await copy.cronGet({ id: limited.id })).toMatchObject({ maxInvocations: 1, status: 'Completed', invocations: 1 });
    const [e] = (await copy.executionList({ jobType: 'cron', jobId: windowed.id, limit: 10, cursor: null })).executions;
    expect(e).toMatchObject({ scheduledFor: T0, status: 'Pending', jitterMs: occurrenceJitterMs(windowed.id, T0, 40_000) });
  });
});
