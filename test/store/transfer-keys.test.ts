import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { transferStore } from '../../src/store/transfer/copy.js';
import { SQLITE, STORES, type TestDatabase } from '../support/stores.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

/**
 * `migrate-store` copies each job's `key` and `managedBy` (docs/apply.md), and the copy keeps
 * keys unique (the target's index holds), from SQLite to every store.
 */
describe.each(STORES)('migrate-store keeps job keys (SQLite → $name)', (to) => {
  const dbs: TestDatabase[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dbs.splice(0)) await d.drop();
  });

  it('keys and managedBy of schedules and cron jobs arrive unchanged, and stay unique', async () => {
    const from = await SQLITE.create();
    const target = await to.create();
    dbs.push(from, target);
    const source = await openStore(from.url);
    stores.push(source);
    await source.migrate();
    const ids = { keyed: newId(), plain: newId(), cron: newId() };
    const schedule = (id: string, key: string | null) =>
      source.scheduleCreate({
        id, name: 'r', scheduledAt: T0, endpoint: 'https://e.example/', data: {}, tags: [], retry: DEFAULT_RETRY_POLICY, timeoutMs: 30_000,
        key, managedBy: key === null ? null : 'apply', now: T0,
      });
    await schedule(ids.keyed, 'launch:1');
    await schedule(ids.plain, null);
    await source.cronCreate({
      id: ids.cron, expression: '0 * * * *', name: null, timezone: null, endpoint: 'https://e.example/c', data: null,
      nextInvocation: T0 + 3_600_000, retry: DEFAULT_RETRY_POLICY, timeoutMs: 30_000, misfire: 'once', overlap: 'allow',
      key: 'launch:1', managedBy: 'apply', now: T0,
    });
    await transferStore({ from: from.url, to: target.url });
    const copy = await openStore(target.url);
    stores.push(copy);
    expect(await copy.scheduleGet({ id: ids.keyed })).toMatchObject({ key: 'launch:1', managedBy: 'apply' });
    expect(await copy.scheduleGet({ id: ids.plain })).toMatchObject({ key: null, managedBy: null });
    expect(await copy.cronGet({ id: ids.cron })).toMatchObject({ key: 'launch:1', managedBy: 'apply' });
    await expect(
      copy.scheduleCreate({
        id: newId(), name: 'dup', scheduledAt: T0, endpoint: 'https://e.example/', data: {}, tags: [], retry: DEFAULT_RETRY_POLICY,
        timeoutMs: 30_000, key: 'launch:1', now: T0,
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('flow-control keys (limits, pause, hold) and the flowControlKey of jobs and executions arrive unchanged', async () => {
    const from = await SQLITE.create();
    const target = await to.create();
    dbs.push(from, target);
    const source = await openStore(from.url);
    stores.push(source);
    await source.migrate();
    await source.flowControlKeyPut({ key: 'slack:T1.B2', parallelism: null, rate: 1, periodMs: 1_000, paused: false, now: T0 });
    await source.flowControlKeyPut({ key: 'api', parallelism: 20, rate: 10, periodMs: 2_000, paused: true, now: T0 + 1 });
    const id = newId();
    await source.scheduleCreate({
      id, name: 'r', scheduledAt: T0, endpoint: 'https://e.example/', data: {}, tags: [], retry: DEFAULT_RETRY_POLICY, timeoutMs: 30_000,
      flowControlKey: 'api', now: T0,
    });
    await source.claimDue({ now: T0 + 10, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
    await transferStore({ from: from.url, to: target.url });
    const copy = await openStore(target.url);
    stores.push(copy);
    expect(await copy.flowControlKeyList()).toEqual(await source.flowControlKeyList());
    expect(await copy.scheduleGet({ id })).toMatchObject({ flowControlKey: 'api' });
    const page = await copy.executionList({ jobType: 'schedule', jobId: id, limit: 10, cursor: null });
    expect(page.executions[0]).toMatchObject({ status: 'Pending', flowControlKey: 'api', waitingFor: 'flowControl' });
  });
});
