import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, stopChild, until, type ChildServer } from '../support/child.js';
import { startCountingReceiver, type CountingReceiver } from '../support/counting-receiver.js';
import { flowHelpers, plan, type FlowExecution } from '../support/flow-control.js';

/**
 * Flow control end to end on SQLite: one `punctual serve` in its own process, keyed schedules
 * created over its API, and a receiver in this process (test/support/counting-receiver.ts) that
 * counts each key's calls in flight and timestamps their starts. Each test has its own key and
 * path group, and checks its limit where the calls land: at the receiver. Calls without a key
 * next to a large backlog: flow-control-backlog.test.ts.
 */
const TOKEN = 'flow-control-e2e-bootstrap-token-0123456789';

describe('flow control end to end (SQLite, a real server process, a real receiver)', () => {
  let dir: string;
  let server: ChildServer;
  let receiver: CountingReceiver;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-flow-'));
    receiver = await startCountingReceiver();
    server = await spawnServer({
      DATABASE_URL: `file:${join(dir, 'p.db')}`,
      PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
      PUNCTUAL_RATE_LIMIT_PER_SECOND: '0',
      PUNCTUAL_SHUTDOWN_GRACE_MS: '1000',
    });
  }, 30_000);
  afterAll(async () => {
    if (server) await stopChild(server, 3_000);
    await receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const { api, putKey, getKey, execution, create, expectEachOnce, allDone } = flowHelpers(
    () => server.url,
    TOKEN,
    () => receiver,
  );

  it('parallelism 5: 200 calls due at once never have more than 5 in flight, 5 at the peak, each delivered once; waitedMs recorded', async () => {
    await putKey('par', { parallelism: 5 });
    receiver.answer('par', () => ({ delayMs: 10 }));
    const due = Date.now() + 500;
    await create(plan('par', 'par', 200, () => due));
    await allDone('par', 200);
    const calls = expectEachOnce('par', 200);
    expect(receiver.peak('par')).toBe(5);
    for (const c of calls) expect(c.at, 'none early').toBeGreaterThanOrEqual(due);
    const took = Math.max(...calls.map((c) => c.at)) - due;
    console.log(`parallelism 5: 200 calls of 10 ms in ${took} ms (at best ${(200 / 5) * 10} ms), peak ${receiver.peak('par')}`);
    // The first calls started on time (no wait recorded to speak of), the last ones waited for a slot.
    const first = await execution(calls[0]!.id);
    expect(first.flowControlKey).toBe('par');
    expect(first.attempts[0]!.waitedMs).toBeLessThan(100);
    const last = calls[calls.length - 1]!;
    const waited = (await execution(last.id)).attempts[0]!.waitedMs!;
    // It waited while 39 rounds of 5 calls of 10 ms went before it.
    expect(waited).toBeGreaterThanOrEqual(39 * 10);
    expect(waited).toBeLessThanOrEqual(last.at - due);
  });

  it('rate 5 per 1000 ms: no window of 1000 ms, wherever it begins, holds more than 5 starts', async () => {
    await putKey('rate', { rate: 5, period: 1_000 });
    const due = Date.now() + 300;
    await create(plan('rate', 'rate', 15, () => due));
    await allDone('rate', 15);
    const starts = expectEachOnce('rate', 15)
      .map((c) => c.at)
      .sort((a, b) => a - b);
    // The fullest window [t, t + 1000) begins at a start: count from each one.
    const fullest = Math.max(...starts.map((t) => starts.filter((s) => s >= t && s < t + 1_000).length));
    const gaps = starts.slice(5).map((s, i) => s - starts[i]!);
    console.log(`rate 5/s: 15 starts over ${starts[14]! - starts[0]!} ms; fullest window ${fullest}; start n+5 after start n by ${Math.min(...gaps)}–${Math.max(...gaps)} ms`);
    expect(fullest).toBe(5);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1_000);
    // And the rate is used: 15 starts in three windows, not spread over more.
    expect(starts[14]! - starts[0]!).toBeLessThan(2 * 1_000 + 500);
    expect(starts[0]! - due).toBeLessThan(100);
  });

  it('parallelism 1: waiting calls are delivered in the order of their instants, each once', async () => {
    await putKey('order', { parallelism: 1 });
    receiver.answer('order', () => ({ delayMs: 10 }));
    const due = Date.now() + 300;
    // Created in another order than their instants' (ids grow with creation).
    const planned = plan('order', 'order', 30, (i) => due + i * 3);
    const shuffled = [...planned].sort((a, b) => ((a.i * 7) % 30) - ((b.i * 7) % 30));
    await create(shuffled);
    await allDone('order', 30);
    const calls = expectEachOnce('order', 30);
    expect(calls.map((c) => Number(c.path.split('/')[2]))).toEqual(planned.map((p) => p.i));
    expect(receiver.peak('order')).toBe(1);
  });

  it('fairness: 20 calls of one key finish while the 2,000 calls of another key, waiting longer, are still being served', async () => {
    // The big key's 2,000 calls wait (paused) from before the small key's are due; it is resumed
    // 100 ms before them. In order of waiting alone, the small key would wait for all of them
    // (about 6 s here, at some 300 calls a second).
    await putKey('big', { parallelism: 10, paused: true });
    await putKey('small', { parallelism: 10 });
    receiver.answer('big', () => ({ delayMs: 5 }));
    receiver.answer('small', () => ({ delayMs: 5 }));
    const bigDue = Date.now();
    await create(plan('big', 'big', 2_000, () => bigDue));
    await expect.poll(async () => (await getKey('big')).waiting, { timeout: 10_000, interval: 50 }).toBe(2_000);
    const due = Date.now() + 300;
    await create(plan('small', 'small', 20, () => due));
    await until(due - 100);
    expect((await api('POST', '/flow-control-keys/big/resume')).status).toBe(200);
    await receiver.waitFor(() => receiver.of('small').length >= 20, 15_000, '20 calls of small');
    const bigBefore = receiver.of('big').length;
    const smallDone = Math.max(...receiver.of('small').map((c) => c.at)) - due;
    console.log(`fairness: small's 20 done at +${smallDone} ms with ${bigBefore} of big's 2,000 delivered`);
    // Served in turn, the small key needs two rounds of 10; the big key meanwhile gets its own.
    expect(bigBefore).toBeGreaterThan(0);
    expect(bigBefore).toBeLessThan(200);
    await allDone('small', 20);
    expectEachOnce('small', 20);
    expect(receiver.peak('big')).toBeLessThanOrEqual(10);
    expect(receiver.peak('small')).toBeLessThanOrEqual(10);
    // The rest of the backlog waits, paused, while the other tests run (its delivery is the first test's subject).
    expect((await api('POST', '/flow-control-keys/big/pause')).status).toBe(200);
  });

  it('paused: nothing arrives and the calls wait as Pending, waitingFor flowControl; resumed: they arrive, waitedMs covering the pause', async () => {
    await putKey('pause', { parallelism: 5, paused: true });
    const due = Date.now() + 500;
    const ids = await create(plan('pause', 'pause', 10, () => due));
    await until(due + 1_000);
    expect(receiver.of('pause')).toHaveLength(0);
    const page = (await api('GET', `/schedules/${ids[0]}/executions`)).body as { executions: FlowExecution[] };
    expect(page.executions).toHaveLength(1);
    expect(page.executions[0]).toMatchObject({ status: 'Pending', waitingFor: 'flowControl', flowControlKey: 'pause', attempts: [] });
    expect(await getKey('pause')).toMatchObject({ paused: true, waiting: 10, inFlight: 0 });

    const resumedAt = Date.now();
    expect((await api('POST', '/flow-control-keys/pause/resume')).status).toBe(200);
    await allDone('pause', 10, 5_000);
    const calls = expectEachOnce('pause', 10);
    const firstAfter = Math.min(...calls.map((c) => c.at)) - resumedAt;
    console.log(`pause: first call ${firstAfter} ms after the resume`);
    expect(firstAfter).toBeGreaterThanOrEqual(0);
    expect(firstAfter).toBeLessThan(1_000);
    // The execution seen waiting is the one called, and its attempt records the wait.
    const done = await execution(page.executions[0]!.id);
    expect(done).toMatchObject({ status: 'Succeeded', waitingFor: null });
    const waited = done.attempts[0]!.waitedMs!;
    const arrived = calls.find((c) => c.id === page.executions[0]!.id)!.at;
    expect(waited).toBeGreaterThanOrEqual(resumedAt - due - 20);
    expect(waited).toBeLessThanOrEqual(arrived - due);
  });

  it('a parallelism raised from 1 to 10 while calls wait takes effect within a second', async () => {
    await putKey('raise', { parallelism: 1 });
    // Answers take 1.2 s: no call of the key finishes (and wakes it) between the PUT and the check.
    receiver.answer('raise', () => ({ delayMs: 1_200 }));
    const due = Date.now() + 300;
    await create(plan('raise', 'raise', 10, () => due));
    await receiver.waitFor(() => receiver.of('raise').length >= 1, 5_000, 'first call of raise');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.inFlight('raise')).toBe(1);
    const putAt = Date.now();
    await putKey('raise', { parallelism: 10 });
    await receiver.waitFor(() => receiver.inFlight('raise') >= 10, 1_500, '10 calls of raise in flight');
    const rose = receiver.timeline('raise').find((e) => e.at >= putAt && e.n >= 2)!.at - putAt;
    const full = receiver.timeline('raise').find((e) => e.n >= 10)!.at - putAt;
    console.log(`raise 1 → 10: a second call ${rose} ms after the PUT, 10 in flight ${full} ms after it`);
    expect(full).toBeLessThan(1_000);
    // The first call was still in flight: the raise, not a finish, let the others start.
    expect(receiver.of('raise')[0]!.answeredAt).toBeNull();
    await allDone('raise', 10, 10_000);
    expectEachOnce('raise', 10);
    expect(receiver.peak('raise')).toBe(10);
  });

  it('a 429 with Retry-After: 2 holds its key for 2 s (holdUntil shown) while another key goes on', async () => {
    await putKey('held', { parallelism: 1 });
    await putKey('free', { parallelism: 1 });
    receiver.answer('held', (_, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '2' } } : {}));
    const due = Date.now() + 300;
    await create([...plan('held', 'held', 5, () => due), ...plan('free', 'free', 22, (i) => due + i * 100)]);
    await receiver.waitFor(() => receiver.of('held')[0]?.answeredAt != null, 5_000, 'the 429');
    const answered = receiver.of('held')[0]!.answeredAt!;
    // The outcome is written a moment after the answer.
    await expect.poll(async () => (await getKey('held')).holdUntil, { timeout: 1_000, interval: 20 }).not.toBeNull();
    const holdUntil = Date.parse((await getKey('held')).holdUntil!);
    expect(holdUntil).toBeGreaterThanOrEqual(answered + 2_000 - 5);
    expect(holdUntil).toBeLessThan(answered + 2_200);
    // The first call again (its retry) and the four others: 6 calls of the key in all.
    await allDone('held', 6, 10_000);
    const held = receiver.of('held');
    const next = held[1]!.at - answered;
    const freeDuring = receiver.of('free').filter((c) => c.at > answered && c.at < answered + 2_000).length;
    console.log(`429: next call of the key ${next} ms after the 429 was answered (hold until +${holdUntil - answered} ms); ${freeDuring} calls of the other key meanwhile`);
    expect(next).toBeGreaterThanOrEqual(2_000 - 5);
    expect(next).toBeLessThan(2_000 + 1_000);
    expect(held[0]!.id).toBe(held.find((c) => c.attempt === 2)?.id);
    expect(new Set(held.map((c) => c.id)).size).toBe(5);
    // The other key's calls, one every 100 ms, went on during the hold.
    expect(freeDuring).toBeGreaterThanOrEqual(15);
    await allDone('free', 22, 5_000);
    expectEachOnce('free', 22);
  });

});
