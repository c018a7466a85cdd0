import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher as HttpDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/dispatch/dispatcher.js';
import { newId } from '../../src/domain/ids.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { testDispatcher } from '../support/dispatcher.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

/**
 * How the dispatcher claims a burst: a small first claim, whose calls start before
 * the next claim, then full batches; every call once.
 */
describe('dispatcher claims of a burst', () => {
  let dir: string;
  let store: Store;
  let receiver: Receiver;
  let dispatcher: Dispatcher | undefined;
  const agent = new Agent();
  /** Requests handed to undici so far: calls really started, not waiting in the launch queue. */
  let started = 0;
  const http: HttpDispatcher = agent.compose((dispatch) => (opts, handler) => {
    started++;
    return dispatch(opts, handler);
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-claims-'));
    store = await openStore(`file:${join(dir, 'p.db')}`);
    await store.migrate();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await dispatcher?.stop(1_000);
    await agent.close();
    await store?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('claims 32 items first, starts their calls, then claims the rest in batches of batchSize', async () => {
    const due = Date.now() - 1_000;
    for (let i = 0; i < 150; i++) {
      await store.scheduleCreate({
        id: newId(),
        name: `b${i}`,
        scheduledAt: due,
        endpoint: `${receiver.url}/b/${i}`,
        data: {},
        tags: [],
        retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1_000 },
        timeoutMs: 5_000,
        now: Date.now(),
      });
    }
    dispatcher = testDispatcher({ store, batchSize: 100, http });
    // For each claim: its size, and how many calls undici had been handed when it was made.
    const claims: { size: number; startedBefore: number }[] = [];
    dispatcher.events.on('dispatch:claimed', (items: ClaimedExecution[]) => {
      claims.push({ size: items.length, startedBefore: started });
    });
    dispatcher.start();
    await receiver.waitFor((a) => a.length >= 150);
    expect(claims.map((c) => c.size)).toEqual([32, 100, 18]);
    // Calls of the first claim went out before the second claim was made.
    expect(claims[0]!.startedBefore).toBe(0);
    expect(claims[1]!.startedBefore).toBeGreaterThan(0);
    expect(new Set(receiver.arrivals.map((a) => a.path)).size).toBe(150);
  });
});
