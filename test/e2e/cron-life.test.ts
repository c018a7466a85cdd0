/**
 * The life of a cron job end to end, on every store, with the real dispatcher and a receiver on
 * 127.0.0.1: an every-second job with `jitterMs` and `maxInvocations` 1 calls once, at or after
 * its occurrence plus its fixed delay (never early) with `Punctual-Scheduled-For` the
 * occurrence itself, and is then `Completed`. Its executions show the delay and count lateness
 * from it. About 2 s of real time per store (one occurrence).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/dispatch/dispatcher.js';
import { newId } from '../../src/domain/ids.js';
import { occurrenceJitterMs } from '../../src/store/rules/cron-life.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { testDispatcher } from '../support/dispatcher.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { STORES, type TestDatabase } from '../support/stores.js';

const JITTER = 500;

describe.each(STORES)('cron start, end, limit and jitter ($name)', (kind) => {
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

  it('calls the occurrence at its instant plus its delay, never early, then completes after maxInvocations', async () => {
    const first = Math.ceil((Date.now() + 300) / 1000) * 1000;
    const job = await store.cronCreate({
      id: newId(),
      expression: '* * * * * *',
      name: 'jittered',
      timezone: null,
      endpoint: `${receiver.url}/life`,
      data: null,
      nextInvocation: first,
      retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1_000, delaysMs: null },
      timeoutMs: 5_000,
      misfire: 'once',
      overlap: 'allow',
      maxInvocations: 1,
      jitterMs: JITTER,
      now: Date.now(),
    });
    dispatcher = testDispatcher({ store });
    dispatcher.start();
    dispatcher.wake(first);
    const [arrival] = await receiver.waitFor((a) => a.some((x) => x.path === '/life'));
    expect(arrival!.headers['punctual-scheduled-for']).toBe(new Date(first).toISOString());
    expect(arrival!.at).toBeGreaterThanOrEqual(first + occurrenceJitterMs(job.id, first, JITTER)); // never early
    await expect.poll(async () => (await store.cronGet({ id: job.id }))?.status).toBe('Completed');
    await expect
      .poll(async () => (await store.executionList({ jobType: 'cron', jobId: job.id, limit: 10, cursor: null })).executions.map((e) => e.status))
      .toEqual(['Succeeded']);
    const { executions } = await store.executionList({ jobType: 'cron', jobId: job.id, limit: 10, cursor: null });
    expect(receiver.arrivals.filter((x) => x.path === '/life')).toHaveLength(1); // Completed: no second call
    for (const e of executions) {
      expect(e.jitterMs).toBe(occurrenceJitterMs(job.id, e.scheduledFor, JITTER));
      expect(e.lateMs).toBeGreaterThanOrEqual(0);
      expect(e.attempts[0]!.startedAt).toBeGreaterThanOrEqual(e.scheduledFor + e.jitterMs);
    }
  });
});
