import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { quantile, startTestServer, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

/**
 * The dispatcher end to end, over real sockets: jobs created through the HTTP API, calls
 * arriving at a real receiver on 127.0.0.1. Run against every store.
 */
describe.each(STORES)('dispatch over real HTTP ($name)', (store) => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({}, { store });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('delivers 50 schedules due within one second: each once, none early, p50 < 25 ms, p90 < 100 ms, max < 1 s', async () => {
    const base = Date.now() + 1_500;
    const due = new Map<string, number>();
    for (let i = 0; i < 50; i++) {
      const at = base + Math.floor((i * 1000) / 50);
      const res = await server.api('POST', '/schedules', {
        name: `burst-${i}`,
        scheduledAt: new Date(at).toISOString(),
        endpoint: `${receiver.url}/burst/${i}`,
        data: { i },
      });
      expect(res.status).toBe(201);
      due.set(`/burst/${i}`, at);
    }
    const arrivals = await receiver.waitFor((a) => a.filter((x) => x.path.startsWith('/burst/')).length >= 50);
    // Give a straggler duplicate the chance to show itself before counting.
    await server.api('GET', '/schedules');
    const burst = arrivals.filter((x) => x.path.startsWith('/burst/'));
    expect(new Set(burst.map((x) => x.path)).size).toBe(50);
    expect(burst).toHaveLength(50);
    const lateness = burst.map((x) => x.at - due.get(x.path)!);
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
    const [p50, p90, max] = [quantile(lateness, 0.5), quantile(lateness, 0.9), Math.max(...lateness)];
    const late = burst.filter((x) => x.at - due.get(x.path)! >= 25).map((x) => `${x.path} ${x.at - due.get(x.path)!} ms`);
    console.log(`${store.name}: 50 schedules: lateness p50 ${p50} ms, p90 ${p90} ms, max ${max} ms; 25 ms or later: ${late.join(', ') || 'none'}`);
    // What this test can tell on a shared 2-core CI VM is whether the dispatcher wakes for due work
    // by itself, not its p99: with 50 calls the p99 is the worst call, and a single stall of the
    // machine sets it. On the CI VM of 2026-11-21 the first three to five calls of the window came
    // 40-260 ms late in some runs (p99 218 and 261 ms), the rest within a few ms, while on a quiet
    // machine the same suite gives p99 7-14 ms. A dispatcher that polls, or that sleeps past due
    // work until its 5 s safety look, fails these bounds; the p99 itself is the bench's to measure
    // (steady: p50 2.15 ms, p99 9.3 ms over 30,000 calls, docs/benchmarks.md).
    expect(p50).toBeLessThan(25);
    expect(p90).toBeLessThan(100);
    expect(max).toBeLessThan(1_000);
    // Each call carries the job's data as its JSON body, with the documented headers.
    const first = burst.find((x) => x.path === '/burst/7')!;
    expect(JSON.parse(first.body)).toEqual({ i: 7 });
    expect(first.method).toBe('POST');
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['user-agent']).toMatch(/^Punctual\/\d+\.\d+\.\d+/);
    // Each schedule ends Succeeded.
    const list = (await server.api('GET', '/schedules')).body as { schedules: { name: string; status: string }[] };
    const burstStatuses = list.schedules.filter((s) => s.name.startsWith('burst-')).map((s) => s.status);
    await expect.poll(async () => {
      const l = (await server.api('GET', '/schedules')).body as { schedules: { name: string; status: string }[] };
      return l.schedules.filter((s) => s.name.startsWith('burst-') && s.status === 'Succeeded').length;
    }).toBe(50);
    expect(burstStatuses).toHaveLength(50);
  });

  it('fires an every-second cron job every second, never early, and a Paused job never', async () => {
    const active = await server.api('POST', '/cron', {
      expression: '* * * * * *',
      name: 'every-second',
      endpoint: `${receiver.url}/tick`,
    });
    expect(active.status).toBe(201);
    const paused = await server.api('POST', '/cron', {
      expression: '* * * * * *',
      name: 'paused',
      endpoint: `${receiver.url}/paused`,
    });
    const pausedId = (paused.body as { id: string }).id;
    const patched = await server.api('PATCH', `/cron/${pausedId}`, { status: 'Paused' });
    expect(patched.status).toBe(200);
    const pausedAt = Date.now();

    const arrivals = await receiver.waitFor((a) => a.filter((x) => x.path === '/tick').length >= 4, 10_000);
    const ticks = arrivals.filter((x) => x.path === '/tick').map((x) => x.at);
    // One call per second: each arrival in its own second, consecutive seconds, none early.
    const seconds = ticks.map((t) => Math.floor(t / 1000));
    expect(new Set(seconds).size).toBe(ticks.length);
    for (let i = 1; i < seconds.length; i++) expect(seconds[i]! - seconds[i - 1]!).toBe(1);
    for (const t of ticks) expect(t % 1000).toBeLessThan(200);
    // Nothing for the paused job after the PATCH answered (one call may have been in flight before).
    const pausedCalls = receiver.arrivals.filter((x) => x.path === '/paused' && x.at > pausedAt + 50);
    expect(pausedCalls).toHaveLength(0);
    const job = (await server.api('GET', `/cron/${(active.body as { id: string }).id}`)).body as { invocations: number };
    expect(job.invocations).toBeGreaterThanOrEqual(4);
  });
});
