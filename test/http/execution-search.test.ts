/**
 * GET /executions (the list across jobs with its filters), POST /executions/{id}/replay and
 * POST /executions/replay at the HTTP layer: shapes, paging, the 400 problems naming the query
 * parameter or body field, 404 and 409. The calls themselves (attempt numbers, webhook-id, the
 * schedule's status) are test/e2e/replay.test.ts; the store's rules test/store/conformance/execution-search.ts.
 */
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
let replayed: number[];

beforeEach(async () => {
  clock.t = T0;
  woken = [];
  replayed = [];
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-execution-search-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
  const metrics = { contentType: 'text/plain', render: async () => '', observeRequest() {}, countReplayed: (n: number) => replayed.push(n) };
  app = await buildApp({ store, clock, wake: (at) => woken.push(at), metrics });
  headers = { authorization: `Bearer ${(await createApiKey(store, clock, { name: 't' })).token}` };
});

afterEach(async () => {
  await app.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const get = (query = '') => app.inject({ method: 'GET', url: `/executions${query}`, headers });
const post = (url: string, payload?: object) =>
  app.inject({ method: 'POST', url, headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' }, ...(payload ? { payload } : {}) });

/** A cron job with `n` triggered executions, one a second from T0 (Pending). */
async function cronWith(n: number): Promise<{ id: string; executions: Array<{ id: string; scheduledFor: string }> }> {
  const res = await post('/cron', { expression: '0 * * * *', endpoint: 'https://example.com/c' });
  expect(res.statusCode).toBe(201);
  const id = res.json().id as string;
  const executions = [];
  for (let i = 0; i < n; i++) {
    clock.t = T0 + i * 1_000;
    executions.push((await post(`/cron/${id}/trigger`)).json());
  }
  return { id, executions };
}

/** Makes every waiting execution Failed after one attempt (claimed and finished through the store). */
async function failAll(): Promise<void> {
  const { claimed } = await store.claimDue({ now: clock.t + 10_000, limit: 1000, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
  await store.executionsFinish({
    nodeId: 'n',
    outcomes: claimed.map((c) => ({
      executionId: c.executionId, attempt: c.attempt, status: 'Failed' as const, nextAttemptAt: null,
      startedAt: c.scheduledFor, durationMs: 5, statusCode: 404, error: 'HTTP 404', responseBody: null,
    })),
  });
}

describe('GET /executions', () => {
  it('pages every execution newest first, in the shape of the per-job list, filtered by job, kind, time and status', async () => {
    const a = await cronWith(3);
    const b = await cronWith(2);
    const all = await get();
    expect(all.statusCode).toBe(200);
    const body = all.json();
    expect(body.size).toBe(5);
    expect(body.nextCursor).toBeNull();
    const newestFirst = [...a.executions, ...b.executions].sort((x, y) => (x.scheduledFor < y.scheduledFor ? 1 : x.scheduledFor > y.scheduledFor ? -1 : x.id < y.id ? 1 : -1));
    expect(body.executions.map((e: { id: string }) => e.id)).toEqual(newestFirst.map((e) => e.id));
    expect(body.executions[0]).toEqual((await app.inject({ method: 'GET', url: `/executions/${body.executions[0].id}`, headers })).json());

    // Pages of 2: the same order, each once.
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { executions: Array<{ id: string }>; nextCursor: string | null } = (await get(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json();
      ids.push(...page.executions.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids).toEqual(newestFirst.map((e) => e.id));

    expect((await get(`?jobId=${a.id}`)).json().size).toBe(3);
    expect((await get(`?jobId=${a.id}&jobType=schedule`)).json().size).toBe(0);
    expect((await get(`?jobType=cron`)).json().size).toBe(5);
    expect((await get(`?jobId=not-a-uuid`)).json()).toEqual({ size: 0, executions: [], nextCursor: null });
    expect((await get(`?from=${iso(T0 + 1_000)}&to=${iso(T0 + 2_000)}`)).json().size).toBe(2); // a's and b's second
    expect((await get(`?from=${iso(T0 + 2_000)}&to=${iso(T0 + 1_000)}`)).json().size).toBe(0);
    expect((await get('?status=Pending')).json().size).toBe(5);
    expect((await get('?status=Failed')).json().size).toBe(0);
    await failAll();
    expect((await get('?status=Failed&status=Retrying')).json().size).toBe(5);
    expect((await get(`?status=Failed&from=${encodeURIComponent('2026-11-21T11:00:01+01:00')}`)).json().size).toBe(3);
  });

  it.each([
    ['limit=0', '/query/limit'],
    ['limit=1001', '/query/limit'],
    ['limit=abc', '/query/limit'],
    ['status=Lost', '/query/status/0'],
    ['status=Failed&status=failed', '/query/status/1'],
    ['jobType=job', '/query/jobType'],
    ['from=yesterday', '/query/from'],
    ['to=2026-11-21', '/query/to'],
    ['cursor=garbage', '/query/cursor'],
    ['jobId=a&jobId=b', '/query/jobId'],
    ['page=2', '/query/page'],
  ])('rejects %s (400 naming %s)', async (q, path) => {
    const res = await get(`?${q}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it('answers 401 without a key', async () => {
    expect((await app.inject({ method: 'GET', url: '/executions' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/executions/replay', payload: { jobType: 'cron' } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: `/executions/${newId()}/replay` })).statusCode).toBe(401);
  });
});

describe('POST /executions/{id}/replay', () => {
  it('reopens a Failed execution: 202, Retrying due now, the dispatcher woken, the counter told; 409 when not Failed', async () => {
    const { executions } = await cronWith(1);
    const id = executions[0]!.id;
    const pending = await post(`/executions/${id}/replay`);
    expect(pending.statusCode).toBe(409);
    expect(pending.json()).toMatchObject({ status: 409, type: 'urn:punctual:problem:conflict' });
    await failAll();
    clock.t = T0 + 7_200_000;
    woken = [];
    const res = await post(`/executions/${id}/replay`);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ id, status: 'Retrying', finishedAt: null });
    expect(res.json().attempts).toHaveLength(1);
    expect(woken).toEqual([clock.t]);
    expect(replayed).toEqual([1]);
    expect((await app.inject({ method: 'GET', url: `/executions/${id}`, headers })).json()).toEqual(res.json());
    expect((await post(`/executions/${id}/replay`)).statusCode).toBe(409);
  });

  it('answers 404 for an unknown id and for one that is not a UUID; 409 when the job was deleted', async () => {
    expect((await post(`/executions/${newId()}/replay`)).statusCode).toBe(404);
    expect((await post('/executions/nope/replay')).statusCode).toBe(404);
    const { id: jobId, executions } = await cronWith(1);
    await failAll();
    expect((await app.inject({ method: 'DELETE', url: `/cron/${jobId}`, headers })).statusCode).toBe(204);
    const res = await post(`/executions/${executions[0]!.id}/replay`);
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/deleted/);
    expect(replayed).toEqual([]);
  });
});

describe('POST /executions/replay', () => {
  it('replays the Failed executions within the filter and answers their count (202); nothing else changes', async () => {
    const a = await cronWith(3);
    const b = await cronWith(2);
    await failAll();
    clock.t = T0 + 7_200_000;
    const before = (await get()).json();
    const res = await post('/executions/replay', { jobId: a.id, from: iso(T0 + 1_000) });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ count: 2 });
    expect(woken.at(-1)).toBe(clock.t);
    expect(replayed).toEqual([2]);
    const after = (await get()).json();
    for (const e of after.executions) {
      const was = before.executions.find((x: { id: string }) => x.id === e.id);
      if (e.jobId === a.id && e.scheduledFor >= iso(T0 + 1_000)) expect(e.status).toBe('Retrying');
      else expect(e).toEqual(was);
    }
    expect((await post('/executions/replay', { jobId: a.id })).json()).toEqual({ count: 1 });
    expect((await post('/executions/replay', { jobType: 'schedule' })).json()).toEqual({ count: 0 });
    expect((await post('/executions/replay', { jobId: b.id, to: iso(T0) })).json()).toEqual({ count: 0 });
    expect(replayed).toEqual([2, 1]);
  });

  it('takes an Idempotency-Key: a retried request answers the same count, and replays nothing more', async () => {
    const { id, executions } = await cronWith(2);
    await failAll();
    const withKey = { ...headers, 'content-type': 'application/json', 'idempotency-key': 'replay-1' };
    const first = await app.inject({ method: 'POST', url: '/executions/replay', headers: withKey, payload: { jobId: id } });
    expect(first.json()).toEqual({ count: 2 });
    // Failed again meanwhile: a retry of the same request still answers what the first one did.
    clock.t = T0 + 60_000;
    await failAll();
    const again = await app.inject({ method: 'POST', url: '/executions/replay', headers: withKey, payload: { jobId: id } });
    expect([again.statusCode, again.headers['idempotent-replayed'], again.json()]).toEqual([202, 'true', { count: 2 }]);
    expect((await get('?status=Failed')).json().size).toBe(2);
    const one = { ...headers, 'idempotency-key': 'replay-one' };
    const single = await app.inject({ method: 'POST', url: `/executions/${executions[0]!.id}/replay`, headers: one });
    expect(single.statusCode).toBe(202);
    const retried = await app.inject({ method: 'POST', url: `/executions/${executions[0]!.id}/replay`, headers: one });
    expect([retried.statusCode, retried.headers['idempotent-replayed'], retried.body]).toEqual([202, 'true', single.body]);
    expect(replayed).toEqual([2, 1]);
  });

  it.each([
    [{}, ''],
    [{ jobType: 'job' }, '/jobType'],
    [{ from: 'soon' }, '/from'],
    [{ status: 'Failed' }, '/status'],
    [{ jobId: 5 }, '/jobId'],
  ])('refuses %j (400 naming "%s"), replaying nothing', async (payload, path) => {
    await cronWith(1);
    await failAll();
    const res = await post('/executions/replay', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual([path]);
    expect((await get('?status=Failed')).json().size).toBe(1);
  });
});
