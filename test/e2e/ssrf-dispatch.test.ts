import type { LookupAddress } from 'node:dns';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/dispatch/dispatcher.js';
import type { DeliveredEvent } from '../../src/dispatch/events.js';
import { createHttpAgent } from '../../src/dispatch/call/http-agent.js';
import { STRICT_POLICY } from '../../src/net/ssrf.js';
import { newId } from '../../src/domain/ids.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { testDispatcher } from '../support/dispatcher.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

/**
 * The real dispatcher with the guard on: a host name that resolves to loopback (the resolver is
 * injected, as a rebinding DNS server would answer) fails its attempt with a clear error, once,
 * and is not retried although attempts are left.
 */
describe('dispatcher with the SSRF guard on', () => {
  let dir: string;
  let store: Store;
  let receiver: Receiver;
  let dispatcher: Dispatcher;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-ssrf-'));
    store = await openStore(`file:${join(dir, 'p.db')}`);
    await store.migrate();
    receiver = await startReceiver();
    const resolve = ((_h: string, _o: unknown, cb: (e: null, a: LookupAddress[]) => void) =>
      cb(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as Parameters<typeof createHttpAgent>[0]['resolve'];
    dispatcher = testDispatcher({
      store,
      policy: STRICT_POLICY,
      http: createHttpAgent({ policy: STRICT_POLICY, resolve }),
    });
    dispatcher.start();
  });
  afterAll(async () => {
    await dispatcher?.stop(1_000);
    await store?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fails a call to a name resolving to loopback at once, with the reason, without retrying', async () => {
    const id = newId();
    const delivered = once(dispatcher.events, 'dispatch:delivered') as Promise<[DeliveredEvent]>;
    await store.scheduleCreate({
      id,
      name: 'rebinding',
      scheduledAt: Date.now(),
      endpoint: `http://hook.example:${new URL(receiver.url).port}/internal`,
      data: {},
      tags: [],
      retry: { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 1_000 },
      timeoutMs: 2_000,
      now: Date.now(),
    });
    dispatcher.wake(Date.now());
    const [{ outcome }] = await delivered;
    expect(outcome.status).toBe('Failed');
    expect(outcome.nextAttemptAt).toBeNull();
    expect(outcome.error).toMatch(/^refused: hook\.example resolves to 127\.0\.0\.1, a loopback address/);
    expect((await store.scheduleGet({ id }))?.status).toBe('Failed');
    const page = await store.executionList({ jobType: 'schedule', jobId: id, limit: 10, cursor: null });
    expect(page.executions[0]?.attempts).toHaveLength(1);
    expect(receiver.arrivals).toHaveLength(0);
  });
});
