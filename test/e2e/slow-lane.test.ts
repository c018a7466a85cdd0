import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRequest, CallResult } from '../../src/dispatch/call/deliver.js';
import type { Dispatcher } from '../../src/dispatch/dispatcher.js';
import type { DeliveredEvent } from '../../src/dispatch/events.js';
import { SlowLane } from '../../src/dispatch/slow-lane.js';
import { parseAllowedNetworks, STRICT_POLICY, type EndpointPolicy } from '../../src/net/ssrf.js';
import { newId } from '../../src/domain/ids.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { spawnReceiver, type ChildReceiver } from '../support/child.js';
import { testDispatcher } from '../support/dispatcher.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

/**
 * The slow lane (src/dispatch/slow-lane.ts): calls sent from a worker thread with
 * its own undici Agent, SSRF lookup and deadlines, over real sockets to real receivers.
 */
const LOOPBACK: EndpointPolicy = { allowPrivate: false, ...parseAllowedNetworks('127.0.0.0/8') };

const request = (endpoint: string, timeoutMs = 5_000): CallRequest => ({
  method: 'POST',
  endpoint,
  headers: { 'content-type': 'application/json', 'webhook-id': 'msg_lane' },
  body: '{"n":1}',
  timeoutMs,
});

/** Fails the test if the lane ever falls back to the main thread. */
const noFallback = (): Promise<CallResult> => Promise.reject(new Error('sent from the main thread'));

describe('SlowLane', () => {
  let receiver: Receiver;
  let child: ChildReceiver;
  let lane: SlowLane;

  beforeAll(async () => {
    receiver = await startReceiver();
    child = await spawnReceiver();
    lane = new SlowLane({ policy: LOOPBACK, connectTimeoutMs: 5_000, fallback: noFallback });
  });
  afterAll(async () => {
    await lane?.close();
    await receiver?.close();
    await child?.close();
  });

  it('sends the request as given and returns status, body excerpt and Retry-After', async () => {
    receiver.respond('/busy', { status: 503, body: 'x'.repeat(3_000), headers: { 'retry-after': '7' } });
    const result = await lane.send(request(`${receiver.url}/busy`));
    expect(result).toEqual({ statusCode: 503, ok: false, error: 'HTTP 503', responseBody: 'x'.repeat(1024), retryAfter: '7', refused: false, timedOut: false });
    const [arrival] = receiver.arrivals.filter((a) => a.path === '/busy');
    expect(arrival?.method).toBe('POST');
    expect(arrival?.body).toBe('{"n":1}');
    expect(arrival?.headers['webhook-id']).toBe('msg_lane');
    expect(await lane.send(request(`${receiver.url}/ok`))).toMatchObject({ statusCode: 200, ok: true, error: null, retryAfter: null });
    expect(lane.size).toBe(0);
  });

  it('sends while the main thread is busy: the call is made on the lane thread', async () => {
    // A receiver in another process takes the arrival time. The main thread blocks for 600 ms
    // right after handing the call over; a call made on this thread could not even connect before.
    const sent = lane.send(request(`${child.url}/while-busy`));
    const busyFrom = Date.now();
    while (Date.now() - busyFrom < 600) {
      // busy: no turn of this thread's event loop
    }
    const busyUntil = Date.now();
    expect((await sent).statusCode).toBe(200);
    const arrivals = await child.waitFor((a) => a.some((x) => x.path === '/while-busy'));
    const at = arrivals.find((x) => x.path === '/while-busy')!.at;
    expect(at).toBeLessThan(busyUntil);
  });

  it('aborts a call at its timeout (the lane has deadlines of its own)', async () => {
    receiver.respond('/hang', { hang: true });
    const t0 = performance.now();
    const result = await lane.send(request(`${receiver.url}/hang`, 1_000));
    const took = performance.now() - t0;
    expect(result).toMatchObject({ statusCode: null, ok: false, error: 'timeout after 1000 ms', refused: false, timedOut: true });
    expect(took).toBeGreaterThanOrEqual(990);
    expect(took).toBeLessThan(2_000);
  });

  it('applies the SSRF policy it was given: a name resolving to loopback is refused under the strict policy', async () => {
    const strict = new SlowLane({ policy: STRICT_POLICY, connectTimeoutMs: 5_000, fallback: noFallback });
    try {
      const port = new URL(receiver.url).port;
      const before = receiver.arrivals.length;
      const refused = await strict.send(request(`http://localhost:${port}/refused`));
      expect(refused).toMatchObject({ statusCode: null, ok: false, refused: true, timedOut: false });
      expect(refused.error).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
      // The lane allowing 127.0.0.0/8 connects to the same name.
      expect(await lane.send(request(`http://localhost:${port}/allowed`))).toMatchObject({ statusCode: 200 });
      expect(receiver.arrivals.slice(before).map((a) => a.path)).toEqual(['/allowed']);
    } finally {
      await strict.close();
    }
  });

  it.runIf(process.platform === 'linux')('runs its thread at nice 19, the rest of the process at its own priority', () => {
    // Field 19 of /proc/<pid>/task/<tid>/stat is the nice value (proc(5)); the lane has sent calls above.
    const niceOf = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const nices = readdirSync('/proc/self/task').map(niceOf);
    expect(nices.filter((n) => n === 19)).toHaveLength(1);
    expect(niceOf(String(process.pid))).toBe(0);
  });

  it('after close, sends from the fallback', async () => {
    const sent: string[] = [];
    const closing = new SlowLane({
      connectTimeoutMs: 5_000,
      fallback: async (req) => {
        sent.push(req.endpoint);
        return { statusCode: 204, ok: true, error: null, responseBody: null, retryAfter: null, refused: false, timedOut: false };
      },
    });
    expect((await closing.send(request(`${receiver.url}/before-close`))).statusCode).toBe(200);
    await closing.close();
    expect((await closing.send(request(`${receiver.url}/after-close`))).statusCode).toBe(204);
    expect(sent).toEqual([`${receiver.url}/after-close`]);
  });
});

/**
 * The dispatcher with the slow lane on (as `punctual serve` runs it), a real SQLite file and a
 * real receiver: which calls take the lane, and that their outcomes are recorded like any other.
 */
describe('dispatcher with the slow lane', () => {
  let dir: string;
  let store: Store;
  let receiver: Receiver;
  let dispatcher: Dispatcher;
  const delivered: DeliveredEvent[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-lane-'));
    store = await openStore(`file:${join(dir, 'p.db')}`);
    await store.migrate();
    receiver = await startReceiver();
    dispatcher = testDispatcher({ store, policy: LOOPBACK, slowLane: true });
    dispatcher.events.on('dispatch:delivered', (e) => delivered.push(e));
    dispatcher.start();
  });
  afterAll(async () => {
    await dispatcher?.stop(1_000);
    await store?.close();
    await receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Creates a schedule due now to `path` on the receiver and waits for `attempts` outcomes of it. */
  async function run(path: string, attempts: number, retry = { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 100 }): Promise<DeliveredEvent[]> {
    const id = newId();
    const now = Date.now();
    await store.scheduleCreate({ id, name: path, scheduledAt: now, endpoint: `${receiver.url}${path}`, data: { path }, tags: [], retry, timeoutMs: 1_000, now });
    dispatcher.wake(now);
    const mine = () => delivered.filter((e) => e.claim.jobId === id);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${mine().length} of ${attempts} outcomes of ${path}`)), 10_000);
      const check = () => {
        if (mine().length < attempts) return;
        clearTimeout(timer);
        dispatcher.events.off('dispatch:delivered', check);
        resolve();
      };
      dispatcher.events.on('dispatch:delivered', check);
      check();
    });
    return mine();
  }

  it('sends the calls of an origin that timed out from the lane, until one of its calls answers at once', async () => {
    receiver.respond('/hang', { hang: true });
    // First attempt: the origin is not known to be slow, the call goes out from the main thread
    // and times out; the retry goes out from the lane (the origin is remembered as slow).
    const hang = await run('/hang', 2, { maxAttempts: 2, initialDelayMs: 100, maxDelayMs: 100 });
    expect(hang.map((e) => [e.outcome.status, e.outcome.error])).toEqual([
      ['Retrying', 'timeout after 1000 ms'],
      ['Failed', 'timeout after 1000 ms'],
    ]);
    expect(dispatcher.slowLaneCalls).toBe(1);
    // The next call to that origin also takes the lane; it answers at once, which ends the memory.
    const [quick] = await run('/ok', 1);
    expect(quick?.outcome).toMatchObject({ status: 'Succeeded', statusCode: 200, responseBody: 'ok' });
    expect(dispatcher.slowLaneCalls).toBe(2);
    await run('/ok-again', 1);
    expect(dispatcher.slowLaneCalls).toBe(2);
    // The lane's call was signed like any other.
    const headers = receiver.arrivals.filter((a) => a.path === '/ok').map((a) => a.headers);
    expect(headers[0]?.['webhook-id']).toBe(quick?.claim.executionId);
    expect(headers[0]?.['webhook-signature']).toMatch(/^v1,/);
  });
});
