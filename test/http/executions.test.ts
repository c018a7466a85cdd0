import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { buildApp } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const clock = { t: T0, now() { return this.t; } };
const iso = (ms: number) => new Date(ms).toISOString();

let dir: string;
let store: Store;
let app: FastifyInstance;
let headers: Record<string, string>;
let woken: number[];

beforeEach(async () => {
  clock.t = T0;
  woken = [];
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-executions-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
  app = await buildApp({ store, clock, wake: (at) => woken.push(at) });
  headers = { authorization: `Bearer ${(await createApiKey(store, clock, { name: 't' })).token}` };
});

afterEach(async () => {
  await app.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const EXECUTION_KEYS = [
  'attempts', 'backfill', 'createdAt', 'finishedAt', 'flowControlKey', 'id', 'jitterMs', 'jobId', 'jobType', 'lateMs', 'missedOccurrences', 'nextAttemptAt',
  'scheduledFor', 'startedAt', 'status', 'triggered', 'waitingFor',
].sort();

async function createSchedule(scheduledAt = '2026-11-22T09:00:00Z') {
  const res = await app.inject({
    method: 'POST',
    url: '/schedules',
    headers,
    payload: { name: 's', scheduledAt, endpoint: 'https://example.com/s' },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; status: string };
}
async function createCron(body: object = {}) {
  const res = await app.inject({
    method: 'POST',
    url: '/cron',
    headers,
    payload: { expression: '0 * * * *', endpoint: 'https://example.com/c', ...body },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; invocations: number; nextInvocation: string; status: string };
}
function trigger(path: string, payload?: string, contentType = 'application/json') {
  return app.inject({
    method: 'POST',
    url: `${path}/trigger`,
    headers: payload === undefined ? headers : { ...headers, 'content-type': contentType },
    ...(payload === undefined ? {} : { payload }),
  });
}
function page(path: string, query = '') {
  return app.inject({ method: 'GET', url: `${path}/executions${query}`, headers });
}

describe('POST /cron/{id}/trigger and /schedules/{id}/trigger', () => {
  it('runs a cron job now: 202 with a Pending triggered execution due now; wakes the dispatcher', async () => {
    const job = await createCron();
    clock.t = T0 + 1_234;
    woken = [];
    const res = await trigger(`/cron/${job.id}`);
    expect(res.statusCode).toBe(202);
    const e = res.json();
    expect(Object.keys(e).sort()).toEqual(EXECUTION_KEYS);
    expect(e).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      jobType: 'cron',
      jobId: job.id,
      scheduledFor: iso(T0 + 1_234),
      status: 'Pending',
      triggered: true,
      backfill: false,
      createdAt: iso(T0 + 1_234),
      startedAt: null,
      finishedAt: null,
      lateMs: null,
      jitterMs: 0,
      nextAttemptAt: null, // Pending (triggered): due now, but not a retry
      missedOccurrences: null,
      flowControlKey: null,
      waitingFor: null,
      attempts: [],
    });
    expect(woken).toEqual([T0 + 1_234]);
    const after = (await app.inject({ method: 'GET', url: `/cron/${job.id}`, headers })).json();
    expect(after).toMatchObject({ invocations: 1, nextInvocation: job.nextInvocation, lastInvocation: iso(T0 + 1_234), lastStatus: 'Pending' });
    // The dispatcher's claim takes it at once.
    const claimed = (await store.claimDue({
      now: clock.now(),
      limit: 10,
      nodeId: 'n',
      leaseMs: 60_000,
      misfireThresholdMs: 60_000,
    })).claimed;
    expect(claimed.map((c) => [c.executionId, c.attempt])).toEqual([[e.id, 1]]);
  });

  it('runs a Paused cron job too, without resuming it', async () => {
    const job = await createCron();
    expect((await app.inject({ method: 'PATCH', url: `/cron/${job.id}`, headers, payload: { status: 'Paused' } })).statusCode).toBe(200);
    const res = await trigger(`/cron/${job.id}`);
    expect(res.statusCode).toBe(202);
    expect((await app.inject({ method: 'GET', url: `/cron/${job.id}`, headers })).json()).toMatchObject({ status: 'Paused', invocations: 1 });
  });

  it('runs a Pending schedule now; it becomes Running; a second trigger is a 409', async () => {
    const s = await createSchedule();
    clock.t = T0 + 5;
    const res = await trigger(`/schedules/${s.id}`);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ jobType: 'schedule', jobId: s.id, scheduledFor: iso(T0 + 5), status: 'Pending', triggered: true });
    expect((await app.inject({ method: 'GET', url: `/schedules/${s.id}`, headers })).json()).toMatchObject({ status: 'Running' });
    woken = [];
    const again = await trigger(`/schedules/${s.id}`);
    expect(again.statusCode).toBe(409);
    expect(again.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(again.json()).toMatchObject({ status: 409, title: 'Conflict', type: 'urn:punctual:problem:conflict' });
    expect(woken).toEqual([]);
    expect((await page(`/schedules/${s.id}`)).json().size).toBe(1);
  });

  it('answers 404 for an unknown id or one that is not a UUID', async () => {
    for (const path of [`/schedules/${newId()}`, '/schedules/nope', `/cron/${newId()}`, '/cron/nope']) {
      const res = await trigger(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, title: 'Not found', type: 'urn:punctual:problem:not_found' });
    }
    expect(woken).toEqual([]);
  });

  it('takes no body, or an empty JSON object', async () => {
    const job = await createCron();
    expect((await trigger(`/cron/${job.id}`)).statusCode).toBe(202);
    expect((await trigger(`/cron/${job.id}`, '{}')).statusCode).toBe(202);
    expect((await trigger(`/cron/${job.id}`, ' { } ', 'application/json; charset=utf-8')).statusCode).toBe(202);
    const s = await createSchedule();
    expect((await trigger(`/schedules/${s.id}`, '{}')).statusCode).toBe(202);
  });

  it.each([
    ['{"force":true}', [{ path: '/force', message: 'is not an allowed field' }]],
    ['[]', [{ path: '', message: 'must be a JSON object' }]],
    ['null', [{ path: '', message: 'must be a JSON object' }]],
    ['"now"', [{ path: '', message: 'must be a JSON object' }]],
  ])('refuses the body %s with a 400 naming it, before looking at the id', async (payload, errors) => {
    const job = await createCron();
    for (const id of [job.id, newId()]) {
      const res = await trigger(`/cron/${id}`, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual(errors);
    }
    expect((await app.inject({ method: 'GET', url: `/cron/${job.id}`, headers })).json().invocations).toBe(0);
  });

  it('refuses an empty body sent as JSON (400), and other media types (415)', async () => {
    const job = await createCron();
    expect((await trigger(`/cron/${job.id}`, '')).statusCode).toBe(400);
    expect((await trigger(`/cron/${job.id}`, '{}', 'text/plain')).statusCode).toBe(415);
    expect((await trigger(`/cron/${job.id}`, 'a=1', 'application/x-www-form-urlencoded')).statusCode).toBe(415);
    expect((await app.inject({ method: 'GET', url: `/cron/${job.id}`, headers })).json().invocations).toBe(0);
  });

  it('refuses query parameters', async () => {
    const job = await createCron();
    const res = await app.inject({ method: 'POST', url: `/cron/${job.id}/trigger?now=1`, headers });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ path: '/query/now', message: 'is not an allowed field' }]);
  });
});

describe('GET /executions/{id}', () => {
  it('answers the execution, with its attempts once it ran', async () => {
    const job = await createCron();
    const e = (await trigger(`/cron/${job.id}`)).json();
    const got = await app.inject({ method: 'GET', url: `/executions/${e.id}`, headers });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(e);

    clock.t = T0 + 40;
    const [claimed] = (await store.claimDue({
      now: clock.now(),
      limit: 10,
      nodeId: 'n',
      leaseMs: 60_000,
      misfireThresholdMs: 60_000,
    })).claimed;
    expect(claimed?.executionId).toBe(e.id);
    await store.executionsFinish({
      nodeId: 'n',
      outcomes: [
        {
          executionId: e.id,
          attempt: 1,
          status: 'Retrying',
          nextAttemptAt: T0 + 2_000,
          startedAt: T0 + 40,
          durationMs: 15,
          statusCode: 503,
          error: 'HTTP 503',
          responseBody: 'busy',
          traceId: e.id.replaceAll('-', ''),
          spanId: '00f067aa0ba902b7',
        },
      ],
    });
    const ran = (await app.inject({ method: 'GET', url: `/executions/${e.id}`, headers })).json();
    expect(ran).toMatchObject({
      id: e.id,
      status: 'Retrying',
      startedAt: iso(T0 + 40),
      finishedAt: null,
      lateMs: 40,
      nextAttemptAt: iso(T0 + 2_000),
      missedOccurrences: null,
      attempts: [
        {
          number: 1,
          startedAt: iso(T0 + 40),
          durationMs: 15,
          statusCode: 503,
          error: 'HTTP 503',
          responseBody: 'busy',
          traceId: e.id.replaceAll('-', ''),
          spanId: '00f067aa0ba902b7',
          waitedMs: null,
        },
      ],
    });
    // The list shows it too; once the next attempt is claimed (Running), nextAttemptAt is null again.
    const listed = (await app.inject({ method: 'GET', url: `/cron/${job.id}/executions`, headers })).json();
    expect(listed.executions[0]).toMatchObject({ id: e.id, status: 'Retrying', nextAttemptAt: iso(T0 + 2_000) });
    await store.claimDue({ now: T0 + 2_000, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
    expect((await app.inject({ method: 'GET', url: `/executions/${e.id}`, headers })).json()).toMatchObject({
      status: 'Running',
      nextAttemptAt: null,
    });
    expect(Object.keys(ran.attempts[0]).sort()).toEqual([
      'durationMs',
      'error',
      'method',
      'number',
      'responseBody',
      'spanId',
      'startedAt',
      'statusCode',
      'traceId',
      'url',
      'waitedMs',
    ]);
  });

  it('answers 200 null for an unknown id, UUID or not', async () => {
    for (const id of [newId(), 'nope']) {
      const res = await app.inject({ method: 'GET', url: `/executions/${id}`, headers });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('null');
    }
  });
});

describe('GET /cron/{id}/executions and /schedules/{id}/executions', () => {
  /** Triggers the job `n` times, a second apart; returns the executions, oldest first. */
  async function triggerMany(path: string, n: number) {
    const made: { id: string; scheduledFor: string }[] = [];
    for (let i = 0; i < n; i++) {
      clock.t += 1_000;
      const res = await trigger(path);
      expect(res.statusCode).toBe(202);
      made.push(res.json());
    }
    return made;
  }

  it('answers an empty page for a job without executions, an unknown job, and an id that is not a UUID', async () => {
    const job = await createCron();
    const s = await createSchedule();
    for (const path of [`/cron/${job.id}`, `/schedules/${s.id}`, `/cron/${newId()}`, `/schedules/${newId()}`, '/cron/x', '/schedules/x']) {
      const res = await page(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.json()).toEqual({ size: 0, executions: [], nextCursor: null });
    }
  });

  it('pages newest first with limit and cursor; nextCursor is null on the last page', async () => {
    const job = await createCron();
    const other = await createCron();
    const made = await triggerMany(`/cron/${job.id}`, 7);
    await triggerMany(`/cron/${other.id}`, 2);
    const newestFirst = [...made].reverse();

    const all = (await page(`/cron/${job.id}`)).json();
    expect(all.size).toBe(7);
    expect(all.nextCursor).toBeNull();
    expect(all.executions).toEqual(newestFirst);

    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const query: string = `?limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const res = await page(`/cron/${job.id}`, query);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.size).toBe(body.executions.length);
      sizes.push(body.size);
      seen.push(...body.executions.map((e: { id: string }) => e.id));
      cursor = body.nextCursor;
    } while (cursor !== null && sizes.length < 10);
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(newestFirst.map((e) => e.id));
    const times = newestFirst.map((e) => Date.parse(e.scheduledFor));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('answers nextCursor null when a page ends exactly at the last execution', async () => {
    const job = await createCron();
    await triggerMany(`/cron/${job.id}`, 4);
    const full = (await page(`/cron/${job.id}`, '?limit=4')).json();
    expect(full).toMatchObject({ size: 4, nextCursor: null });
    const first = (await page(`/cron/${job.id}`, '?limit=2')).json();
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await page(`/cron/${job.id}`, `?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`)).json();
    expect(second.size).toBe(2);
    expect(second.nextCursor).toBeNull();
  });

  it('takes limit from 1 to 100 (default 20)', async () => {
    const job = await createCron();
    await triggerMany(`/cron/${job.id}`, 22);
    expect((await page(`/cron/${job.id}`)).json()).toMatchObject({ size: 20, nextCursor: expect.any(String) });
    expect((await page(`/cron/${job.id}`, '?limit=1')).json().size).toBe(1);
    expect((await page(`/cron/${job.id}`, '?limit=100')).json()).toMatchObject({ size: 22, nextCursor: null });
  });

  it('lists the execution of a triggered schedule', async () => {
    const s = await createSchedule();
    const e = (await trigger(`/schedules/${s.id}`)).json();
    expect((await page(`/schedules/${s.id}`)).json()).toEqual({ size: 1, executions: [e], nextCursor: null });
  });

  it.each([
    ['limit=0', '/query/limit'],
    ['limit=101', '/query/limit'],
    ['limit=abc', '/query/limit'],
    ['limit=5.0', '/query/limit'],
    ['limit=-1', '/query/limit'],
    ['limit=', '/query/limit'],
    ['limit=1&limit=2', '/query/limit'],
    ['cursor=', '/query/cursor'],
    ['cursor=a&cursor=b', '/query/cursor'],
    ['page=2', '/query/page'],
  ])('rejects %s (400 naming %s)', async (q, path) => {
    const job = await createCron();
    const res = await page(`/cron/${job.id}`, `?${q}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it('rejects a cursor it did not make (400 naming /query/cursor)', async () => {
    const job = await createCron();
    await triggerMany(`/cron/${job.id}`, 3);
    for (const cursor of ['garbage', 'eyJ4IjoxfQ', '%00', 'x'.repeat(300)]) {
      const res = await page(`/cron/${job.id}`, `?cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode, cursor).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, type: 'urn:punctual:problem:invalid_input' });
      expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual(['/query/cursor']);
    }
  });
});

describe('authentication of the execution routes', () => {
  it.each([
    ['GET', '/schedules/{id}/executions'],
    ['GET', '/cron/{id}/executions'],
    ['POST', '/schedules/{id}/trigger'],
    ['POST', '/cron/{id}/trigger'],
    ['GET', '/executions/{id}'],
  ])('%s %s answers 401 without a key, and does nothing', async (method, route) => {
    const job = await createCron();
    const s = await createSchedule();
    const id = route.startsWith('/schedules') ? s.id : job.id;
    const res = await app.inject({ method: method as 'GET' | 'POST', url: route.replace('{id}', id) });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    const bad = await app.inject({
      method: method as 'GET' | 'POST',
      url: route.replace('{id}', id),
      headers: { authorization: 'Bearer pk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(bad.statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: `/cron/${job.id}`, headers })).json().invocations).toBe(0);
    expect((await app.inject({ method: 'GET', url: `/schedules/${s.id}`, headers })).json().status).toBe('Pending');
  });
});
