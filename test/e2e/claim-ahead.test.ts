/**
 * Claiming ahead (held-calls.ts, CLAIM_AHEAD_MS) end to end, on every store: a call due shortly
 * is claimed before its instant, held, and reaches a real receiver on 127.0.0.1 at or after its
 * instant, never before; the execution records the call's real start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/dispatch/dispatcher.js';
import { CLAIM_AHEAD_MS } from '../../src/dispatch/held-calls.js';
import { newId } from '../../src/domain/ids.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { testDispatcher } from '../support/dispatcher.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { STORES, type TestDatabase } from '../support/stores.js';

describe.each(STORES)('claim ahead ($name)', (kind) => {
  let db: TestDatabase;
  let store: Store;
  let receiver: Receiver;
  let dispatcher: Dispatcher | undefined;

  beforeAll(async () => {
    db = await kind.create();
    store = await openStore(db.url);
    await store.migrate();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await dispatcher?.stop(1_000);
    await store?.close();
    await receiver?.close();
    await db?.drop();
  });

  it('claims calls due within the look ahead before their instants and delivers each at or after its own', async () => {
    dispatcher = testDispatcher({ store });
    const claims: { at: number; item: ClaimedExecution }[] = [];
    dispatcher.events.on('dispatch:claimed', (items: ClaimedExecution[]) => {
      const at = Date.now();
      for (const item of items) claims.push({ at, item });
    });
    dispatcher.start();
    // Due 300 ms from now and 50 ms later: the loop looks at the store CLAIM_AHEAD_MS / 2 before
    // the first, and one claim takes both.
    const base = Date.now() + 300;
    const due = new Map<string, number>();
    for (const [i, at] of [base, base + 50].entries()) {
      const s = await store.scheduleCreate({
        id: newId(),
        name: `ahead-${i}`,
        scheduledAt: at,
        endpoint: `${receiver.url}/ahead/${i}`,
        data: {},
        tags: [],
        retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1_000 },
        timeoutMs: 5_000,
        now: Date.now(),
      });
      due.set(s.id, at);
      dispatcher.wake(at);
    }
    const arrivals = await receiver.waitFor((a) => a.length >= 2);
    for (const [i, at] of [base, base + 50].entries()) {
      const arrival = arrivals.find((a) => a.path === `/ahead/${i}`)!;
      expect(arrival.at).toBeGreaterThanOrEqual(at); // never early
    }
    expect(claims).toHaveLength(2);
    for (const { at, item } of claims) {
      expect(item.notBefore).toBe(due.get(item.jobId)); // claimed before its instant…
      expect(at).toBeLessThan(item.notBefore!);
      expect(item.notBefore! - at).toBeLessThanOrEqual(CLAIM_AHEAD_MS);
    }
    // …and its execution records the call's start, never before the instant.
    for (const { item } of claims) {
      await expect.poll(async () => (await store.executionGet({ id: item.executionId }))?.status).toBe('Succeeded');
      const e = (await store.executionGet({ id: item.executionId }))!;
      expect(e.attempts[0]!.startedAt).toBeGreaterThanOrEqual(item.notBefore!);
      expect(e.lateMs).toBeGreaterThanOrEqual(0);
    }
  });
});
