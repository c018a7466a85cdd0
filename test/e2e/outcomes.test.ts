/**
 * What counts as success and the auto-pause of cron jobs, end to end (docs/calls.md, "What counts
 * as success"; docs/cron.md, "Auto-pause"): jobs created through the HTTP API, calls answered by
 * a real receiver on 127.0.0.1, outcomes written by the real dispatcher. Run against every store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

interface ExecutionWire {
  status: string;
  attempts: { statusCode: number | null }[];
}

describe.each(STORES)('outcomes over real HTTP ($name)', (store) => {
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

  const retry = { maxAttempts: 2, initialDelayMs: 100, maxDelayMs: 1_000 };
  const statusOf = async (kind: 'schedules' | 'cron', id: string) =>
    ((await server.api('GET', `/${kind}/${id}`)).body as { status: string }).status;
  const executions = async (kind: 'schedules' | 'cron', id: string) =>
    ((await server.api('GET', `/${kind}/${id}/executions`)).body as { executions: ExecutionWire[] }).executions;

  /** A schedule due now calling `path`, answered `answers` in turn. */
  async function schedule(path: string, status: number, extra: object = {}): Promise<string> {
    receiver.respond(path, { status });
    const res = await server.api('POST', '/schedules', {
      name: path,
      scheduledAt: new Date().toISOString(),
      endpoint: `${receiver.url}${path}`,
      retry,
      ...extra,
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }
  const settled = (id: string) =>
    expect.poll(() => statusOf('schedules', id), { timeout: 10_000, interval: 50 }).not.toMatch(/^(Pending|Running)$/);

  it('a listed 302 and a listed 404 succeed at once; an unlisted 302 and 500 are retried; 410 fails at once', async () => {
    const listed302 = await schedule('/s/302-listed', 302, { successStatuses: ['2xx', 302] });
    const listed404 = await schedule('/s/404-listed', 404, { successStatuses: [404] });
    const default302 = await schedule('/s/302', 302);
    const default500 = await schedule('/s/500', 500);
    const gone = await schedule('/s/410', 410);
    for (const id of [listed302, listed404, default302, default500, gone]) await settled(id);

    expect(await statusOf('schedules', listed302)).toBe('Succeeded');
    expect(await statusOf('schedules', listed404)).toBe('Succeeded');
    expect((await executions('schedules', listed302))[0]!.attempts.map((a) => a.statusCode)).toEqual([302]);
    expect((await executions('schedules', listed404))[0]!.attempts.map((a) => a.statusCode)).toEqual([404]);
    // Redirects are never followed: the receiver saw one call, no request to a Location.
    expect(receiver.arrivals.filter((a) => a.path === '/s/302-listed')).toHaveLength(1);
    for (const id of [default302, default500]) {
      expect(await statusOf('schedules', id)).toBe('Failed');
      expect((await executions('schedules', id))[0]!.attempts).toHaveLength(2);
    }
    expect(await statusOf('schedules', gone)).toBe('Failed');
    expect((await executions('schedules', gone))[0]!.attempts.map((a) => a.statusCode)).toEqual([410]);
  });

  it('a cron job answered 410 Gone fails without retries and pauses itself with the reason', async () => {
    receiver.respond('/c/gone', { status: 410 });
    const res = await server.api('POST', '/cron', { expression: '* * * * * *', endpoint: `${receiver.url}/c/gone`, retry });
    const id = (res.body as { id: string }).id;
    await receiver.waitFor((a) => a.some((x) => x.path === '/c/gone'));
    await expect.poll(() => statusOf('cron', id), { timeout: 10_000, interval: 50 }).toBe('Paused');
    const job = (await server.api('GET', `/cron/${id}`)).body as Record<string, unknown>;
    expect(job).toMatchObject({ status: 'Paused', pausedReason: 'endpoint answered 410 Gone', consecutiveFailures: 1 });
    const runs = await executions('cron', id);
    expect(runs.map((e) => [e.status, e.attempts.length])).toEqual([['Failed', 1]]);
    // Counted once, by reason, in the metrics of the node that wrote the outcome.
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).text();
    expect(metrics).toMatch(/^punctual_cron_auto_paused_total\{reason="gone"\} 1$/m);
    expect(metrics).toMatch(/^punctual_cron_auto_paused_total\{reason="failures"\} 0$/m);
  });

  it('pauseAfterFailures 2: a success resets the count; two failures in a row pause the job', async () => {
    receiver.respond('/c/flaky', [{ status: 404 }, { status: 200 }, { status: 404 }, { status: 404 }, { status: 200 }]);
    const res = await server.api('POST', '/cron', {
      expression: '* * * * * *',
      endpoint: `${receiver.url}/c/flaky`,
      pauseAfterFailures: 2,
    });
    const id = (res.body as { id: string }).id;
    // After the first failure and the success, the job is Active with no failure counted.
    await receiver.waitFor((a) => a.filter((x) => x.path === '/c/flaky').length >= 2, 10_000);
    await expect.poll(async () => (await executions('cron', id)).filter((e) => e.status === 'Succeeded').length, { timeout: 5_000 }).toBe(1);
    expect((await server.api('GET', `/cron/${id}`)).body).toMatchObject({ status: 'Active', consecutiveFailures: 0 });
    await expect.poll(() => statusOf('cron', id), { timeout: 10_000, interval: 50 }).toBe('Paused');
    expect((await server.api('GET', `/cron/${id}`)).body).toMatchObject({
      pausedReason: 'paused after 2 consecutive failed executions',
      consecutiveFailures: 2,
    });
    // Four calls made the pause: none after it (one claimed before the pause committed could
    // still go out on a stalled machine, hence at most five).
    const calls = receiver.arrivals.filter((x) => x.path === '/c/flaky').length;
    expect(calls).toBeGreaterThanOrEqual(4);
    expect(calls).toBeLessThanOrEqual(5);
    // Resumed, it runs again with its reason cleared and the count at 0.
    const resumed = await server.api('PATCH', `/cron/${id}`, { status: 'Active' });
    expect(resumed.body).toMatchObject({ status: 'Active', pausedReason: null, consecutiveFailures: 0 });
    await receiver.waitFor((a) => a.filter((x) => x.path === '/c/flaky').length > calls, 10_000);
    await server.api('PATCH', `/cron/${id}`, { status: 'Paused' });
  });
});
