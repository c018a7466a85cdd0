/**
 * The typed client (`punctual/client`, docs/client.md) against a live server over a real socket:
 * every method at least once, problems as typed errors, null for unknown ids, paging that follows
 * `nextCursor`, and the errors of a server that cannot be reached or answers something else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPunctualClient,
  PunctualConnectionError,
  PunctualProblem,
  type PunctualClient,
} from '../../src/client/index.js';
import { recordDeliveries, type Deliveries } from '../support/deliveries.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';

const UNKNOWN = '01900000-0000-7000-8000-000000000000';

let server: TestServer;
let receiver: Receiver;
let deliveries: Deliveries;
let punctual: PunctualClient;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  deliveries = recordDeliveries(server);
  punctual = createPunctualClient({ baseUrl: server.url, token: TEST_TOKEN });
});

afterAll(async () => {
  deliveries?.stop();
  await receiver?.close();
  await server?.stop();
});

/** The error `promise` rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('schedules', () => {
  it('create, get, update, list, trigger, executions, delete', async () => {
    const created = await punctual.schedules.create({
      name: 'invoice',
      scheduledAt: '2099-01-01T10:00:00+01:00',
      endpoint: `${receiver.url}/invoice`,
      data: { invoice: 42 },
      tags: ['billing', 'eu'],
      retry: { maxAttempts: 2 },
      timeoutMs: 5_000,
    });
    expect(created).toMatchObject({
      name: 'invoice',
      scheduledAt: '2099-01-01T09:00:00.000Z',
      status: 'Pending',
      data: { invoice: 42 },
      tags: ['billing', 'eu'],
      retry: { maxAttempts: 2, initialDelayMs: 1_000, maxDelayMs: 43_200_000, delaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] },
      timeoutMs: 5_000,
    });
    expect(await punctual.schedules.get(created.id)).toEqual(created);

    const updated = await punctual.schedules.update(created.id, { name: 'invoice 42', tags: ['billing'] });
    expect(updated).toMatchObject({ id: created.id, name: 'invoice 42', tags: ['billing'], data: { invoice: 42 } });

    const page = await punctual.schedules.list({ tag: ['billing'], status: 'Pending', name: 'voice 4' });
    expect(page.schedules.map((s) => s.id)).toEqual([created.id]);
    expect(page).toMatchObject({ size: 1, nextCursor: null });

    expect(await punctual.schedules.executions(created.id)).toEqual({ size: 0, executions: [], nextCursor: null });

    const execution = await punctual.schedules.trigger(created.id);
    expect(execution).toMatchObject({ jobType: 'schedule', jobId: created.id, triggered: true });
    await deliveries.of(execution.id);
    const done = await punctual.executions.get(execution.id);
    expect(done).toMatchObject({ id: execution.id, status: 'Succeeded', attempts: [{ number: 1, statusCode: 200, error: null }] });
    expect(receiver.arrivals.find((a) => a.path === '/invoice')?.body).toBe('{"invoice":42}');

    expect(await punctual.schedules.executions(created.id, { limit: 10 })).toMatchObject({
      size: 1,
      executions: [{ id: execution.id, status: 'Succeeded' }],
      nextCursor: null,
    });
    const all = [];
    for await (const e of punctual.schedules.allExecutions(created.id)) all.push(e.id);
    expect(all).toEqual([execution.id]);
    expect((await punctual.schedules.get(created.id))?.status).toBe('Succeeded');

    const conflict = await rejection(punctual.schedules.update(created.id, { name: 'too late' }));
    expect(conflict).toBeInstanceOf(PunctualProblem);
    expect((conflict as PunctualProblem).status).toBe(409);

    await expect(punctual.schedules.delete(created.id)).resolves.toBeUndefined();
    expect(await punctual.schedules.get(created.id)).toBeNull();
    const gone = (await rejection(punctual.schedules.delete(created.id))) as PunctualProblem;
    expect(gone).toBeInstanceOf(PunctualProblem);
    expect(gone).toMatchObject({ status: 404, type: 'urn:punctual:problem:not_found', errors: [] });
  });

  it('a 400 is a PunctualProblem with the RFC 9457 fields and every faulty field', async () => {
    const err = await rejection(punctual.schedules.create({ name: ' ', scheduledAt: 'tomorrow', endpoint: 'ftp://example.com/x' }));
    expect(err).toBeInstanceOf(PunctualProblem);
    expect(err).toBeInstanceOf(Error);
    const problem = err as PunctualProblem;
    expect(problem.status).toBe(400);
    expect(problem.type).toBe('urn:punctual:problem:invalid_input');
    expect(typeof problem.title).toBe('string');
    expect(typeof problem.detail).toBe('string');
    expect(problem.errors.map((e) => e.path).sort()).toEqual(['/endpoint', '/name', '/scheduledAt']);
    for (const e of problem.errors) expect(problem.message).toContain(`${e.path}: ${e.message}`);
    expect(problem.toJSON()).toEqual({
      type: problem.type,
      title: problem.title,
      status: 400,
      detail: problem.detail,
      errors: problem.errors,
    });
    // Query parameters are named too, as /query/<name>.
    const query = (await rejection(punctual.schedules.list({ limit: 0 }))) as PunctualProblem;
    expect(query.errors.map((e) => e.path)).toEqual(['/query/limit']);
  });

  it('listAll follows nextCursor page after page, and the fetch option is the one used', async () => {
    const urls: string[] = [];
    const counting = createPunctualClient({
      baseUrl: `${server.url}/`,
      token: TEST_TOKEN,
      fetch: (request) => {
        urls.push(request.url);
        return fetch(request);
      },
    });
    const names = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const name of names) {
      await counting.schedules.create({ name, scheduledAt: '2099-01-01T00:00:00Z', endpoint: `${receiver.url}/p`, tags: ['paging'] });
    }
    urls.length = 0;
    const seen = [];
    for await (const s of counting.schedules.listAll({ tag: ['paging'], limit: 2 })) seen.push(s.name);
    expect(seen).toEqual(names);
    expect(urls).toHaveLength(3);
    expect(urls.filter((u) => new URL(u).searchParams.has('cursor'))).toHaveLength(2);
    for (const u of urls) expect(new URL(u).searchParams.get('limit')).toBe('2');

    const first = await counting.schedules.list({ tag: ['paging'], limit: 2 });
    expect(first.size).toBe(2);
    const second = await counting.schedules.list({ tag: ['paging'], limit: 2, cursor: first.nextCursor! });
    expect(second.schedules.map((s) => s.name)).toEqual(['p3', 'p4']);
  });
});

describe('cron jobs', () => {
  it('create, get, list, update, pause, resume, trigger, executions, delete', async () => {
    const job = await punctual.cron.create({
      expression: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
      name: 'weekday report',
      endpoint: `${receiver.url}/report`,
      data: { report: 'daily' },
      misfire: 'skip',
      overlap: 'skip',
    });
    expect(job).toMatchObject({ status: 'Active', invocations: 0, misfire: 'skip', overlap: 'skip', lastStatus: null });
    expect(await punctual.cron.get(job.id)).toEqual(job);
    expect((await punctual.cron.list({ name: 'weekday' })).cronJobs.map((j) => j.id)).toContain(job.id);

    expect(await punctual.cron.update(job.id, { name: null, data: null })).toMatchObject({ name: null, data: null });
    expect((await punctual.cron.pause(job.id)).status).toBe('Paused');
    expect((await punctual.cron.list({ status: 'Paused' })).cronJobs.map((j) => j.id)).toEqual([job.id]);
    expect((await punctual.cron.resume(job.id)).status).toBe('Active');

    const first = await punctual.cron.trigger(job.id);
    await deliveries.of(first.id);
    const second = await punctual.cron.trigger(job.id);
    await deliveries.of(second.id);
    expect(first).toMatchObject({ jobType: 'cron', jobId: job.id, triggered: true });
    const page = await punctual.cron.executions(job.id, { limit: 1 });
    expect(page.size).toBe(1);
    expect(page.nextCursor).not.toBeNull();
    const all = [];
    for await (const e of punctual.cron.allExecutions(job.id, { limit: 1 })) all.push(e.id);
    expect(all.sort()).toEqual([first.id, second.id].sort());
    expect(await punctual.cron.get(job.id)).toMatchObject({ invocations: 2, lastStatus: 'Succeeded' });

    const listed = [];
    for await (const j of punctual.cron.listAll({ limit: 1 })) listed.push(j.id);
    expect(listed).toContain(job.id);

    await punctual.cron.delete(job.id);
    expect(await punctual.cron.get(job.id)).toBeNull();
    expect(((await rejection(punctual.cron.pause(job.id))) as PunctualProblem).status).toBe(404);
  });

  it('preview: the next occurrences in a zone', async () => {
    // 2026-11-21 is a Saturday; 09:00 in Berlin (CET, UTC+1) is 08:00Z.
    const preview = await punctual.cron.preview({
      expression: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
      from: '2026-11-21T10:00:00Z',
      count: 3,
    });
    expect(preview).toEqual({ occurrences: ['2026-11-23T08:00:00.000Z', '2026-11-24T08:00:00.000Z', '2026-11-25T08:00:00.000Z'] });
    const bad = (await rejection(punctual.cron.preview({ expression: '0 9 * * MON-FRI', timezone: 'Mars/Olympus' }))) as PunctualProblem;
    expect(bad.errors.map((e) => e.path)).toEqual(['/query/timezone']);
  });
});

describe('API keys', () => {
  it('create, list, get, update (disable), delete; the key works until then', async () => {
    const created = await punctual.apiKeys.create({ name: 'ci' });
    expect(created.token).toMatch(/^pk_/);
    expect(created).toMatchObject({ name: 'ci', status: 'Enabled', lastUsed: null });

    const ci = createPunctualClient({ baseUrl: server.url, token: created.token });
    const { token: _token, ...withoutToken } = created;
    const listed = await ci.apiKeys.list();
    expect(listed.size).toBe(listed.apiKeys.length);
    expect(listed.apiKeys.find((k) => k.id === created.id)).toMatchObject({ ...withoutToken, lastUsed: expect.any(String) });
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(await punctual.apiKeys.get(created.id)).toMatchObject({ id: created.id, name: 'ci' });

    expect(await punctual.apiKeys.update(created.id, { name: 'ci-2', status: 'Disabled' })).toMatchObject({ name: 'ci-2', status: 'Disabled' });
    expect(((await rejection(ci.apiKeys.list())) as PunctualProblem).status).toBe(403);

    await punctual.apiKeys.delete(created.id);
    expect(await punctual.apiKeys.get(created.id)).toBeNull();
    const unauthenticated = (await rejection(ci.schedules.get(UNKNOWN))) as PunctualProblem;
    expect(unauthenticated).toMatchObject({ status: 401, type: 'urn:punctual:problem:unauthenticated' });
  });
});

describe('flow-control keys', () => {
  it('put creates then replaces every limit, get, list, pause, resume, delete; 404 and 400 as problems', async () => {
    expect(await punctual.flowControlKeys.put('client:api', { rate: 5, period: 60_000 })).toMatchObject({
      key: 'client:api', configured: true, rate: 5, period: 60_000, parallelism: null, paused: false,
    });
    expect(await punctual.flowControlKeys.put('client:api', { parallelism: 2 })).toMatchObject({ parallelism: 2, rate: null, period: 1000 });
    expect(await punctual.flowControlKeys.get('client:api')).toMatchObject({ parallelism: 2, waiting: 0, inFlight: 0 });
    expect((await punctual.flowControlKeys.list()).flowControlKeys.map((k) => k.key)).toContain('client:api');
    expect(await punctual.flowControlKeys.pause('client:api')).toMatchObject({ paused: true, parallelism: 2 });
    expect(await punctual.flowControlKeys.resume('client:api')).toMatchObject({ paused: false });
    const none = (await rejection(punctual.flowControlKeys.put('client:api', {}))) as PunctualProblem;
    expect([none.status, none.errors.map((e) => e.path)]).toEqual([400, ['/parallelism']]);
    await punctual.flowControlKeys.delete('client:api');
    expect(await punctual.flowControlKeys.get('client:api')).toBeNull();
    for (const call of [punctual.flowControlKeys.delete('client:api'), punctual.flowControlKeys.pause('client:api')]) {
      expect(((await rejection(call)) as PunctualProblem).status).toBe(404);
    }
  });
});

describe('unknown ids and failures', () => {
  it('get of an unknown id resolves with null, as the API answers it, for every resource', async () => {
    for (const id of [UNKNOWN, 'not-a-uuid']) {
      expect(await punctual.schedules.get(id)).toBeNull();
      expect(await punctual.cron.get(id)).toBeNull();
      expect(await punctual.executions.get(id)).toBeNull();
      expect(await punctual.apiKeys.get(id)).toBeNull();
    }
    expect(((await rejection(punctual.schedules.trigger(UNKNOWN))) as PunctualProblem).status).toBe(404);
    expect(((await rejection(punctual.cron.trigger(UNKNOWN))) as PunctualProblem).status).toBe(404);
    expect(((await rejection(punctual.apiKeys.update(UNKNOWN, { name: 'x' }))) as PunctualProblem).status).toBe(404);
  });

  it('no answer at all is a PunctualConnectionError naming the origin, never the token', async () => {
    const closed = await startReceiver();
    await closed.close(); // nothing listens on its port any more
    const client = createPunctualClient({ baseUrl: closed.url, token: TEST_TOKEN });
    const err = (await rejection(client.schedules.list())) as PunctualConnectionError;
    expect(err).toBeInstanceOf(PunctualConnectionError);
    expect(err.code).toBe('ECONNREFUSED');
    expect(err.message).toBe(`cannot reach ${closed.url} (ECONNREFUSED)`);
    expect(err.url).toBe(`${closed.url}/schedules`);
    expect(`${err.message} ${String(err.cause)}`).not.toContain(TEST_TOKEN);
  });

  it('an answer that is not a problem document still throws a PunctualProblem, with Retry-After', async () => {
    const proxy = await startReceiver({ answer: { status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } } });
    const busy = await startReceiver({
      answer: {
        status: 503,
        body: JSON.stringify({ type: 'urn:punctual:problem:store_unavailable', title: 'Service unavailable', status: 503, detail: 'down' }),
        headers: { 'content-type': 'application/problem+json', 'retry-after': '7' },
      },
    });
    try {
      const gateway = (await rejection(createPunctualClient({ baseUrl: proxy.url, token: 't' }).cron.list())) as PunctualProblem;
      expect(gateway).toBeInstanceOf(PunctualProblem);
      expect(gateway).toMatchObject({ status: 502, type: 'about:blank', title: 'Bad Gateway', detail: '<html>Bad gateway</html>', errors: [] });
      const unavailable = (await rejection(createPunctualClient({ baseUrl: busy.url, token: 't' }).cron.list())) as PunctualProblem;
      expect(unavailable).toMatchObject({ status: 503, title: 'Service unavailable', detail: 'down', retryAfterSeconds: 7 });
    } finally {
      await proxy.close();
      await busy.close();
    }
  });

  it('a wrong token is a 401 problem; a bad base URL or an empty token is refused at once', async () => {
    const wrong = createPunctualClient({ baseUrl: server.url, token: 'pk_wrong' });
    expect(((await rejection(wrong.schedules.list())) as PunctualProblem).status).toBe(401);
    expect(() => createPunctualClient({ baseUrl: 'localhost:8080', token: TEST_TOKEN })).toThrow(TypeError);
    expect(() => createPunctualClient({ baseUrl: 'ftp://example.com', token: TEST_TOKEN })).toThrow(TypeError);
    expect(() => createPunctualClient({ baseUrl: server.url, token: '' })).toThrow(TypeError);
  });

  it('liveness, readiness and metrics (Prometheus text)', async () => {
    expect(await punctual.liveness()).toEqual({ status: 'ok' });
    expect(await punctual.readiness()).toMatchObject({ status: expect.any(String) });
    const metrics = await punctual.metrics();
    expect(typeof metrics).toBe('string');
    expect(metrics).toMatch(/^# (HELP|TYPE) /m);
  });

  it('raw is the authenticated openapi-fetch client', async () => {
    const { data, response } = await punctual.raw.GET('/cron/{id}', { params: { path: { id: UNKNOWN } } });
    expect(response.status).toBe(200);
    expect(data).toBeNull();
  });
});
