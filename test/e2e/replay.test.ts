/**
 * Replay as a receiver sees it (docs/interface.md, "Replay"): a Failed execution replayed through
 * the API is called again with a fresh attempt budget, its attempt numbers continuing and the same
 * `webhook-id`; the schedule goes back to Running, then Succeeded; a bulk replay reopens only what
 * its filter names; the replay counter counts them. Real server, real receiver on 127.0.0.1, every
 * store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

interface WireExecution {
  id: string;
  jobId: string;
  status: string;
  attempts: Array<{ number: number; statusCode: number | null }>;
}

describe.each(STORES)('replay (real HTTP, $name)', (store) => {
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

  const calls = (path: string) => receiver.arrivals.filter((a) => a.path === path);
  const waitCalls = (path: string, n: number) => receiver.waitFor((a) => a.filter((x) => x.path === path).length >= n).then(() => calls(path));

  /** A schedule due in 50 ms calling `path`, at most `maxAttempts` attempts, retried within 100 ms, 200 ms, …. */
  async function schedule(path: string, maxAttempts: number): Promise<string> {
    const res = await server.api('POST', '/schedules', {
      name: path,
      scheduledAt: new Date(Date.now() + 50).toISOString(),
      endpoint: receiver.url + path,
      retry: { maxAttempts, initialDelayMs: 100, maxDelayMs: 1_000 },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  /** The schedule's execution once its status is `status`. */
  async function execution(scheduleId: string, status: string): Promise<WireExecution> {
    let last: WireExecution | undefined;
    await expect
      .poll(async () => {
        last = ((await server.api('GET', `/schedules/${scheduleId}/executions`)).body as { executions: WireExecution[] }).executions[0];
        return last?.status;
      }, { timeout: 15_000, interval: 50 })
      .toBe(status);
    return last!;
  }

  const scheduleStatus = async (id: string) => ((await server.api('GET', `/schedules/${id}`)).body as { status: string }).status;

  it('calls a replayed execution again: a fresh budget, attempts N+1…, the same webhook-id; the schedule Running then Succeeded', async () => {
    receiver.respond('/one', [{ status: 503 }, { status: 503 }, { status: 503 }, { status: 200, body: 'at last' }]);
    const id = await schedule('/one', 2);
    const failed = await execution(id, 'Failed');
    expect(failed.attempts.map((a) => a.number)).toEqual([1, 2]);
    expect(await scheduleStatus(id)).toBe('Failed');

    const res = await server.api('POST', `/executions/${failed.id}/replay`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: failed.id, status: 'Retrying' });
    expect(await scheduleStatus(id)).toBe('Running');

    // Two attempts more (the policy's 2, counted afresh): 503, then 200.
    const succeeded = await execution(id, 'Succeeded');
    expect(succeeded.attempts.map((a) => [a.number, a.statusCode])).toEqual([[1, 503], [2, 503], [3, 503], [4, 200]]);
    const all = await waitCalls('/one', 4);
    expect(all.map((c) => c.headers['punctual-attempt'])).toEqual(['1', '2', '3', '4']);
    expect(new Set(all.map((c) => c.headers['webhook-id']))).toEqual(new Set([failed.id]));
    expect(await scheduleStatus(id)).toBe('Succeeded');

    // Not Failed any more: 409; unknown: 404.
    expect((await server.api('POST', `/executions/${failed.id}/replay`)).status).toBe(409);
    expect((await server.api('POST', '/executions/0190a0e0-0000-7000-8000-000000000000/replay')).status).toBe(404);
  });

  it('replays in bulk only the Failed executions its filter names, and counts every replay', async () => {
    receiver.respond('/bulk-a', [{ status: 404 }, { status: 200 }]);
    receiver.respond('/bulk-b', { status: 404 });
    const a = await schedule('/bulk-a', 1);
    const b = await schedule('/bulk-b', 1);
    const failedA = await execution(a, 'Failed');
    const failedB = await execution(b, 'Failed');

    const listed = (await server.api('GET', `/executions?status=Failed&jobType=schedule&limit=1000`)).body as { executions: WireExecution[] };
    expect(listed.executions.map((e) => e.id)).toEqual(expect.arrayContaining([failedA.id, failedB.id]));

    const res = await server.api('POST', '/executions/replay', { jobId: a });
    expect(res).toEqual({ status: 202, body: { count: 1 } });
    const done = await execution(a, 'Succeeded');
    expect(done.attempts.map((x) => x.number)).toEqual([1, 2]);
    expect(calls('/bulk-a').map((c) => c.headers['webhook-id'])).toEqual([failedA.id, failedA.id]);
    expect(await scheduleStatus(a)).toBe('Succeeded');
    // b was outside the filter: untouched, never called again.
    expect(((await server.api('GET', `/executions/${failedB.id}`)).body as WireExecution)).toEqual(failedB);
    expect(calls('/bulk-b')).toHaveLength(1);
    expect(await scheduleStatus(b)).toBe('Failed');

    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).text();
    // This server replayed 2: the first test's one and this one (the tests of a file run in order).
    expect(/^punctual_executions_replayed_total (\d+)$/m.exec(metrics)?.[1]).toBe('2');
  });
});
