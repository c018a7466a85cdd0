import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/dispatch/dispatcher.js';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETRY_DELAYS_MS, DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import type { Execution } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { testDispatcher } from '../support/dispatcher.js';
import { parseExposition, valueOf } from '../support/prometheus.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { STORES, type TestDatabase } from '../support/stores.js';

interface WireExecution {
  id: string;
  status: string;
  startedAt: string;
  nextAttemptAt: string | null;
  attempts: { number: number; startedAt: string; statusCode: number | null; error: string | null }[];
}

/** A free port of 127.0.0.1 that nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * The outage: the receiver listens this long after the first attempt. A minute with steps of
 * 5 s, 10 s, 20 s… would wait the same attempts five times longer; everything here is that
 * minute's plan at a fifth of its length.
 */
const OUTAGE_MS = 12_000;
/** Its steps: growing from 1 s, then steps that span the outage in a few attempts. */
const OUTAGE_STEPS = '1s,2s,4s,4s,4s,4s';

/**
 * Retries that outlast an outage (docs/calls.md, "Outcomes and retries"), against every store:
 * the default policy's steps, carried by the stored execution across a day (injected clock) and a
 * restart of the dispatcher and its store; and a receiver that refuses connections, then listens,
 * getting the call with the default policy's shape, its steps shortened by configuration.
 */
describe.each(STORES)('retries that outlast an outage ($name)', (storeUnderTest) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('the default schedule spans about a day (8 attempts, 5 s … 10 h with ±20 % jitter), across a restart between attempts', async () => {
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    receiver.respond('/day', { status: 503 });
    const db: TestDatabase = await storeUnderTest.create();
    cleanups.push(() => db.drop());
    // The injected clock: real time plus a skew the test moves forward to each next attempt. The
    // dispatcher looks at the store every 100 ms (its timer sleeps in real time, the skew jumps).
    let skewMs = 0;
    const clock = { now: () => Date.now() + skewMs };
    let store: Store = await openStore(db.url, { clock: 'caller' });
    await store.migrate();
    let dispatcher: Dispatcher = testDispatcher({ store, clock, maxSleepMs: 100 });
    cleanups.push(async () => {
      await dispatcher.stop(1_000);
      await store.close();
    });
    const jobId = newId();
    await store.scheduleCreate({
      id: jobId,
      name: 'day',
      scheduledAt: clock.now(),
      endpoint: `${receiver.url}/day`,
      data: {},
      tags: [],
      retry: DEFAULT_RETRY_POLICY,
      timeoutMs: 5_000,
      now: clock.now(),
    });
    dispatcher.start();

    const execution = async (): Promise<Execution | undefined> =>
      (await store.executionList({ jobType: 'schedule', jobId, limit: 1, cursor: null })).executions[0];
    for (let n = 1; n <= 8; n++) {
      await receiver.waitFor((a) => a.filter((x) => x.path === "/day").length >= n, 15_000);
      await expect.poll(async () => (await execution())?.attempts.length, { timeout: 10_000, interval: 20 }).toBe(n);
      const e = (await execution())!;
      if (n === 8) {
        expect(e.status).toBe('Failed');
        expect(e.nextAttemptAt).toBeNull();
        break;
      }
      expect(e).toMatchObject({ status: 'Retrying', finishedAt: null });
      expect(e.nextAttemptAt).not.toBeNull();
      if (n === 3) {
        // A restart between attempts: the retry is a row (next_attempt_at), not a timer in memory.
        await dispatcher.stop(1_000);
        await store.close();
        store = await openStore(db.url, { clock: 'caller' });
        await store.migrate();
        dispatcher = testDispatcher({ store, clock, maxSleepMs: 100 });
        dispatcher.start();
        expect(await execution()).toMatchObject({ status: 'Retrying', nextAttemptAt: e.nextAttemptAt });
      }
      // Nothing goes out before the next attempt is due.
      expect(receiver.arrivals.filter((x) => x.path === '/day')).toHaveLength(n);
      skewMs += e.nextAttemptAt! - clock.now();
    }

    const attempts = (await execution())!.attempts;
    expect(attempts.map((a) => a.statusCode)).toEqual(Array.from({ length: 8 }, () => 503));
    // Each gap: the attempt's duration plus its step × [0.8, 1.2), plus the moment the claim takes.
    for (let i = 1; i < 8; i++) {
      const step = DEFAULT_RETRY_DELAYS_MS[i - 1]!;
      const gap = attempts[i]!.startedAt - attempts[i - 1]!.startedAt;
      expect(gap, `gap before attempt ${i + 1}`).toBeGreaterThanOrEqual(Math.floor(0.8 * step));
      expect(gap, `gap before attempt ${i + 1}`).toBeLessThan(1.2 * step + 2_000);
    }
    const span = attempts[7]!.startedAt - attempts[0]!.startedAt;
    expect(span).toBeGreaterThanOrEqual(0.8 * 99_305_000); // ≥ 22 h
    expect(span).toBeLessThan(1.2 * 99_305_000 + 15_000); // < 33.1 h
    expect(attempts[1]!.startedAt - attempts[0]!.startedAt).toBeLessThan(10_000); // the first retry within 10 s
  });
});

/**
 * A receiver down for 12 s, then up, gets the call: a real server and a real receiver on
 * 127.0.0.1, the default policy's shape (growing steps, each ±20 %) with steps shortened by
 * PUNCTUAL_RETRY_DELAYS so that the outage is spanned by a few attempts rather than by the
 * default's 30-minute step. Both stores at once (the outage is waited once).
 */
describe('a receiver down for 12 s, then up', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function outage(storeUnderTest: (typeof STORES)[number]): Promise<void> {
    const server: TestServer = await startTestServer({ PUNCTUAL_RETRY_DELAYS: OUTAGE_STEPS }, { store: storeUnderTest });
    cleanups.push(() => server.stop());
    const port = await closedPort();
    const created = await server.api('POST', '/schedules', {
      name: 'outage',
      scheduledAt: new Date(Date.now() + 50).toISOString(),
      endpoint: `http://127.0.0.1:${port}/hook`,
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string; retry: unknown }).id;
    expect((created.body as { retry: unknown }).retry).toEqual({
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: 7,
      delaysMs: [1_000, 2_000, 4_000, 4_000, 4_000, 4_000],
    });

    const latest = async () => ((await server.api('GET', `/schedules/${id}/executions`)).body as { executions: WireExecution[] }).executions[0];
    await expect.poll(async () => (await latest())?.attempts.length ?? 0, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(2);
    const firstAt = Date.parse((await latest())!.attempts[0]!.startedAt);
    const waiting = (await latest())!;
    // While the receiver is down the execution is Retrying, and GET says when the next attempt is due.
    expect(waiting.status).toBe('Retrying');
    expect(waiting.attempts.every((a) => a.statusCode === null && a.error !== null)).toBe(true);
    expect(Date.parse(waiting.nextAttemptAt!)).toBeGreaterThan(Date.now());
    const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(valueOf(parseExposition(await metrics.text()), 'punctual_executions_retrying', { job_type: 'schedule' })).toBe(1);

    // Down for OUTAGE_MS from the first attempt, then the receiver listens on the same port.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstAt + OUTAGE_MS - Date.now())));
    const arrivals: string[] = [];
    const receiver: Server = createServer((req, res) => {
      arrivals.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    const upAt = Date.now();
    cleanups.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    // The next attempt is at most one step (4 s + 20 %) away.
    await expect.poll(async () => (await latest())?.status, { timeout: 30_000, interval: 100 }).toBe('Succeeded');
    const done = (await latest())!;
    const codes = done.attempts.map((a) => a.statusCode);
    expect(codes.at(-1)).toBe(200);
    expect(codes.slice(0, -1).every((c) => c === null)).toBe(true);
    expect(codes.length).toBeGreaterThanOrEqual(4); // 0, 1, 3, 7 s (±20 %) all fell within the 12 s
    expect(Date.parse(done.attempts.at(-1)!.startedAt)).toBeGreaterThanOrEqual(upAt - 5);
    expect(done.nextAttemptAt).toBeNull();
    expect(arrivals).toEqual(['/hook']);
    const after = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(valueOf(parseExposition(await after.text()), 'punctual_executions_retrying', { job_type: 'schedule' })).toBe(0);
  }

  it('gets the call with the default policy shape, steps shortened by PUNCTUAL_RETRY_DELAYS (both stores at once)', async () => {
    await Promise.all(STORES.map((s) => outage(s)));
  }, 150_000);
});
