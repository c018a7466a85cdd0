import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { transferStore } from '../../src/store/transfer/copy.js';
import { SQLITE, STORES, type TestDatabase } from '../support/stores.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const HOUR = 3_600_000;

/**
 * `migrate-store` copies whether an execution was made by a backfill (`backfill`), from SQLite to
 * every store: backfilled ones arrive `true`, a triggered one `false`.
 */
describe.each(STORES)('migrate-store keeps backfill (SQLite → $name)', (to) => {
  const dbs: TestDatabase[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dbs.splice(0)) await d.drop();
  });

  it('backfilled and triggered executions arrive with their flag', async () => {
    const from = await SQLITE.create();
    const target = await to.create();
    dbs.push(from, target);
    const source = await openStore(from.url);
    stores.push(source);
    await source.migrate();
    const id = newId();
    await source.cronCreate({
      id, expression: '0 * * * *', name: null, timezone: null, endpoint: 'https://e.example/c', data: null,
      nextInvocation: T0 + HOUR, retry: DEFAULT_RETRY_POLICY, timeoutMs: 30_000, misfire: 'once', overlap: 'allow', now: T0,
    });
    expect(await source.cronBackfill({ jobId: id, occurrences: [T0 - 2 * HOUR, T0 - HOUR], now: T0 })).toHaveLength(2);
    await source.jobTrigger({ jobType: 'cron', jobId: id, id: newId(), now: T0 + 1 });
    await transferStore({ from: from.url, to: target.url });
    const copy = await openStore(target.url);
    stores.push(copy);
    const list = await copy.executionList({ jobType: 'cron', jobId: id, limit: 10, cursor: null });
    expect(list.executions.map((e) => [e.scheduledFor, e.backfill, e.triggered])).toEqual([
      [T0 + 1, false, true],
      [T0 - HOUR, true, false],
      [T0 - 2 * HOUR, true, false],
    ]);
  });
});
