import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { buildApp } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const clock = { t: T0, now() { return this.t; } };

let dir: string;
let store: Store;
let app: FastifyInstance;
let headers: Record<string, string>;
let woken: number[];

beforeEach(async () => {
  clock.t = T0;
  woken = [];
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-schedules-'));
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

const valid = { name: 'invoice', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/hook' };

async function create(body: object = valid) {
  return app.inject({ method: 'POST', url: '/schedules', headers, payload: body });
}

describe('POST /schedules', () => {
  it('creates a Pending schedule (201) with defaults data {} and tags [] and wakes the dispatcher', async () => {
    clock.t = T0 + 7;
    const res = await create();
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      [
        'auth', 'body', 'createdAt', 'data', 'endpoint', 'flowControlKey', 'headers', 'id', 'key', 'managedBy', 'method', 'name', 'retry', 'runsImmediately',
        'scheduledAt', 'secretHeaderNames', 'signingSecretSet', 'status', 'successStatuses', 'tags', 'timeoutMs',
      ],
    );
    expect(body).toMatchObject({ method: 'POST', headers: {}, body: null, secretHeaderNames: [], auth: null, signingSecretSet: false });
    expect(body).toMatchObject({
      name: 'invoice',
      scheduledAt: '2026-11-22T09:00:00.000Z',
      runsImmediately: false,
      status: 'Pending',
      endpoint: 'https://example.com/hook',
      data: {},
      tags: [],
      createdAt: '2026-11-21T10:00:00.007Z',
      retry: DEFAULT_RETRY_POLICY,
      timeoutMs: 30_000,
    });
    expect(woken).toEqual([Date.parse('2026-11-22T09:00:00Z')]);
  });

  it('stores a scheduledAt given with an offset as the same instant', async () => {
    const res = await create({ ...valid, scheduledAt: '2026-11-22T10:30:00.5+01:30', data: { a: [1, { b: null }] }, tags: ['x', 'y'] });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ scheduledAt: '2026-11-22T09:00:00.500Z', data: { a: [1, { b: null }] }, tags: ['x', 'y'] });
    const got = await app.inject({ method: 'GET', url: `/schedules/${res.json().id}`, headers });
    expect(got.json()).toEqual(res.json());
  });

  it.each([
    ['scheduledAt', { scheduledAt: '2026-11-22T09:00:00' }, 'must be an ISO 8601 date-time with Z or an offset, e.g. 2026-11-21T10:00:00Z'],
    ['scheduledAt', { scheduledAt: '2026-02-30T09:00:00Z' }, 'must be an ISO 8601 date-time with Z or an offset, e.g. 2026-11-21T10:00:00Z'],
    ['scheduledAt', { scheduledAt: 1767000000000 }, 'must be a string'],
    ['endpoint', { endpoint: 'ftp://example.com/x' }, 'must be an absolute http or https URL'],
    ['endpoint', { endpoint: '/relative/path' }, 'must be an absolute http or https URL'],
    ['endpoint', { endpoint: 'http://' }, 'must be an absolute http or https URL'],
    ['name', { name: '' }, 'must not be empty'],
    ['data', { data: [1, 2] }, 'must be a JSON object'],
    ['data', { data: null }, 'must be a JSON object'],
    ['data', { data: 'x' }, 'must be a JSON object'],
    ['tags', { tags: 'x' }, 'must be an array'],
  ])('rejects a bad %s (%j) naming the field', async (field, patch, message) => {
    const res = await create({ ...valid, ...patch });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().errors).toEqual([{ path: `/${field}`, message }]);
    expect((await store.scheduleList()).length).toBe(0);
  });

  it('names the element of tags that is not a string', async () => {
    const res = await create({ ...valid, tags: ['ok', 3] });
    expect(res.json().errors).toEqual([{ path: '/tags/1', message: 'must be a string' }]);
  });

  it('reports every problem at once, missing fields included', async () => {
    const res = await create({ name: '', scheduledAt: 'tomorrow', colour: 'red' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ type: expect.any(String), title: 'Invalid input', status: 400, detail: expect.any(String) });
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { path: '/endpoint', message: 'is required' },
        { path: '/colour', message: 'is not an allowed field' },
        { path: '/name', message: 'must not be empty' },
        { path: '/scheduledAt', message: expect.stringContaining('ISO 8601') },
      ]),
    );
    expect(body.errors).toHaveLength(4);
    expect((await store.scheduleList()).length).toBe(0);
    expect(woken).toEqual([]);
  });
});

describe('GET /schedules and /schedules/{id}', () => {
  it('lists as {size, schedules} (and nextCursor, null on the last page), oldest first', async () => {
    expect((await app.inject({ method: 'GET', url: '/schedules', headers })).json()).toEqual({ size: 0, schedules: [], nextCursor: null });
    const a = (await create({ ...valid, name: 'a' })).json();
    clock.t += 1;
    const b = (await create({ ...valid, name: 'b' })).json();
    const res = await app.inject({ method: 'GET', url: '/schedules', headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ size: 2, schedules: [a, b], nextCursor: null });
  });

  it('answers 200 null for an unknown id (UUID or not)', async () => {
    for (const id of [newId(), 'not-a-uuid', '%20']) {
      const res = await app.inject({ method: 'GET', url: `/schedules/${id}`, headers });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('null');
    }
  });
});

describe('PATCH /schedules/{id}', () => {
  it('changes only the fields given', async () => {
    const s = (await create({ ...valid, data: { k: 1 }, tags: ['a'] })).json();
    woken = [];
    const res = await app.inject({
      method: 'PATCH',
      url: `/schedules/${s.id}`,
      headers,
      payload: { scheduledAt: '2026-11-21T12:00:00-05:00', tags: [] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...s, scheduledAt: '2026-11-21T17:00:00.000Z', tags: [] });
    expect(woken).toEqual([Date.parse('2026-11-21T17:00:00Z')]);

    const res2 = await app.inject({ method: 'PATCH', url: `/schedules/${s.id}`, headers, payload: { name: 'n2', data: {} } });
    expect(res2.json()).toEqual({ ...s, name: 'n2', data: {}, scheduledAt: '2026-11-21T17:00:00.000Z', tags: [] });

    const empty = await app.inject({ method: 'PATCH', url: `/schedules/${s.id}`, headers, payload: {} });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual(res2.json());
  });

  it('answers 404 for an unknown id and 400 (not 404) for a bad body', async () => {
    const unknown = await app.inject({ method: 'PATCH', url: `/schedules/${newId()}`, headers, payload: { name: 'x' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, title: 'Not found' });
    const bad = await app.inject({ method: 'PATCH', url: `/schedules/${newId()}`, headers, payload: { data: null, id: 'x' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { path: string }) => e.path).sort()).toEqual(['/data', '/id']);
  });

  it('leaves the schedule as it was when the patch is rejected', async () => {
    const s = (await create()).json();
    const bad = await app.inject({ method: 'PATCH', url: `/schedules/${s.id}`, headers, payload: { name: 'new', endpoint: 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: `/schedules/${s.id}`, headers })).json()).toEqual(s);
  });

  it('answers 409 for a schedule that is no longer Pending', async () => {
    const s = (await create({ ...valid, scheduledAt: '2026-11-21T09:00:00Z' })).json();
    const claimed = (await store.claimDue({
      now: clock.now(),
      limit: 10,
      nodeId: 'test',
      leaseMs: 60_000,
      misfireThresholdMs: 60_000,
    })).claimed;
    expect(claimed.map((c) => c.jobId)).toEqual([s.id]);
    const res = await app.inject({ method: 'PATCH', url: `/schedules/${s.id}`, headers, payload: { name: 'late' } });
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 409, title: 'Conflict' });
    const got = (await app.inject({ method: 'GET', url: `/schedules/${s.id}`, headers })).json();
    expect(got).toMatchObject({ name: 'invoice', status: 'Running' });
  });
});

describe('DELETE /schedules/{id}', () => {
  it('deletes (204); GET is then null, DELETE again 404; the schedule is no longer due', async () => {
    const s = (await create({ ...valid, scheduledAt: '2026-11-21T09:00:00Z' })).json();
    const res = await app.inject({ method: 'DELETE', url: `/schedules/${s.id}`, headers });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await app.inject({ method: 'GET', url: `/schedules/${s.id}`, headers })).body).toBe('null');
    expect((await app.inject({ method: 'DELETE', url: `/schedules/${s.id}`, headers })).statusCode).toBe(404);
    expect((await store.claimDue({ now: clock.now(), limit: 10, nodeId: 'n', leaseMs: 1000, misfireThresholdMs: 60_000 })).claimed).toEqual([]);
  });
});

describe('delivery settings (retry, timeoutMs)', () => {
  const DEFAULT_RETRY = DEFAULT_RETRY_POLICY;

  it('fills the fields not given from the defaults, and GET shows them', async () => {
    const res = await create({ ...valid, retry: { maxAttempts: 3 }, timeoutMs: 1_000 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ retry: { ...DEFAULT_RETRY, maxAttempts: 3 }, timeoutMs: 1_000 });
    const got = (await app.inject({ method: 'GET', url: `/schedules/${res.json().id}`, headers })).json();
    expect(got.retry).toEqual({ ...DEFAULT_RETRY, maxAttempts: 3 });
    expect(got.timeoutMs).toBe(1_000);
    const stored = await store.scheduleGet({ id: res.json().id });
    expect(stored).toMatchObject({ retry: { ...DEFAULT_RETRY, maxAttempts: 3 }, timeoutMs: 1_000 });
  });

  it('takes the bounds of every field', async () => {
    const low = await create({ ...valid, retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1_000 }, timeoutMs: 1_000 });
    expect(low.statusCode).toBe(201);
    const high = await create({ ...valid, retry: { maxAttempts: 20, initialDelayMs: 3_600_000, maxDelayMs: 86_400_000 }, timeoutMs: 900_000 });
    expect(high.statusCode).toBe(201);
    expect(high.json()).toMatchObject({ retry: { maxAttempts: 20, initialDelayMs: 3_600_000, maxDelayMs: 86_400_000 }, timeoutMs: 900_000 });
    const equal = await create({ ...valid, retry: { initialDelayMs: 5_000, maxDelayMs: 5_000 } });
    expect(equal.statusCode).toBe(201);
  });

  it('uses the defaults the app is built with (PUNCTUAL_REQUEST_TIMEOUT_MS)', async () => {
    const other = await buildApp({
      store,
      clock,
      defaults: { retry: { maxAttempts: 2, initialDelayMs: 500, maxDelayMs: 60_000 }, timeoutMs: 7_000 },
    });
    try {
      const res = await other.inject({ method: 'POST', url: '/schedules', headers, payload: { ...valid, retry: { maxDelayMs: 90_000 } } });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ retry: { maxAttempts: 2, initialDelayMs: 500, maxDelayMs: 90_000 }, timeoutMs: 7_000 });
    } finally {
      await other.close();
    }
  });

  it.each([
    ['/retry/maxAttempts', { retry: { maxAttempts: 0 } }, 'must be at least 1'],
    ['/retry/maxAttempts', { retry: { maxAttempts: 21 } }, 'must be at most 20'],
    ['/retry/maxAttempts', { retry: { maxAttempts: 2.5 } }, 'must be an integer'],
    ['/retry/maxAttempts', { retry: { maxAttempts: '5' } }, 'must be an integer'],
    ['/retry/maxAttempts', { retry: { maxAttempts: null } }, 'must be an integer'],
    ['/retry/initialDelayMs', { retry: { initialDelayMs: 99 } }, 'must be at least 100'],
    ['/retry/initialDelayMs', { retry: { initialDelayMs: 3_600_001 } }, 'must be at most 3600000'],
    ['/retry/maxDelayMs', { retry: { maxDelayMs: 999 } }, 'must be at least 1000'],
    ['/retry/maxDelayMs', { retry: { maxDelayMs: 86_400_001 } }, 'must be at most 86400000'],
    ['/retry/maxDelayMs', { retry: { initialDelayMs: 5_000, maxDelayMs: 4_999 } }, 'must be at least initialDelayMs (5000)'],
    ['/retry/jitter', { retry: { jitter: true } }, 'is not an allowed field'],
    ['/retry', { retry: null }, 'must be a JSON object'],
    ['/retry', { retry: [] }, 'must be a JSON object'],
    ['/retry', { retry: 5 }, 'must be a JSON object'],
    ['/retry/delaysMs', { retry: { delaysMs: [] } }, 'must NOT have fewer than 1 items'],
    ['/retry/delaysMs', { retry: { delaysMs: Array.from({ length: 20 }, () => 1_000) } }, 'must NOT have more than 19 items'],
    ['/retry/delaysMs', { retry: { delaysMs: '5s,5m' } }, 'must be an array or null'],
    ['/retry/delaysMs/1', { retry: { delaysMs: [5_000, 99] } }, 'must be at least 100'],
    ['/retry/delaysMs/0', { retry: { delaysMs: [86_400_001] } }, 'must be at most 86400000'],
    ['/retry/delaysMs/2', { retry: { delaysMs: [1_000, 2_000, 2.5] } }, 'must be an integer'],
    ['/retry/delaysMs/0', { retry: { delaysMs: ['5000'] } }, 'must be an integer'],
    ['/timeoutMs', { timeoutMs: 999 }, 'must be at least 1000'],
    ['/timeoutMs', { timeoutMs: 900_001 }, 'must be at most 900000'],
    ['/timeoutMs', { timeoutMs: '30000' }, 'must be an integer'],
    ['/timeoutMs', { timeoutMs: 1_500.5 }, 'must be an integer'],
  ])('rejects %s in %j, storing nothing', async (path, p, message) => {
    const res = await create({ ...valid, ...p });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ path, message }]);
    expect(await store.scheduleList()).toEqual([]);
  });

  it('retry.delaysMs: steps given are stored and shown; null or a lone initialDelayMs/maxDelayMs is the exponential rule', async () => {
    const steps = await create({ ...valid, retry: { delaysMs: [1_000, 60_000], maxAttempts: 4 } });
    expect(steps.statusCode).toBe(201);
    expect(steps.json().retry).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 4, delaysMs: [1_000, 60_000] });
    const got = (await app.inject({ method: 'GET', url: `/schedules/${steps.json().id}`, headers })).json();
    expect(got.retry.delaysMs).toEqual([1_000, 60_000]);
    // Bounds: 1 step of 100 ms, 19 steps of a day.
    expect((await create({ ...valid, retry: { delaysMs: [100] } })).statusCode).toBe(201);
    expect((await create({ ...valid, retry: { delaysMs: Array.from({ length: 19 }, () => 86_400_000) } })).statusCode).toBe(201);
    const exponential = { maxAttempts: 8, initialDelayMs: 1_000, maxDelayMs: 3_600_000, delaysMs: null };
    expect((await create({ ...valid, retry: { delaysMs: null } })).json().retry).toEqual(exponential);
    expect((await create({ ...valid, retry: { maxDelayMs: 60_000 } })).json().retry).toEqual({ ...exponential, maxDelayMs: 60_000 });
    // PATCH: delaysMs replaces the steps (or clears them); maxAttempts alone keeps the rule.
    const id = steps.json().id as string;
    const patch = async (retry: object) =>
      (await app.inject({ method: 'PATCH', url: `/schedules/${id}`, headers, payload: { retry } })).json().retry;
    expect(await patch({ maxAttempts: 6 })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 6, delaysMs: [1_000, 60_000] });
    expect(await patch({ delaysMs: [2_000] })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 6, delaysMs: [2_000] });
    expect(await patch({ delaysMs: null })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 6, delaysMs: null });
    expect((await store.scheduleGet({ id }))?.retry.delaysMs).toBeNull();
    const bad = await app.inject({ method: 'PATCH', url: `/schedules/${id}`, headers, payload: { retry: { delaysMs: [50] } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.json().errors).toEqual([{ path: '/retry/delaysMs/0', message: 'must be at least 100' }]);
  });

  it('reports the order of the delays together with the other problems', async () => {
    const res = await create({ ...valid, name: '', retry: { initialDelayMs: 10_000, maxDelayMs: 2_000, extra: 1 }, timeoutMs: 0 });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        { path: '/name', message: 'must not be empty' },
        { path: '/retry/extra', message: 'is not an allowed field' },
        { path: '/retry/maxDelayMs', message: 'must be at least initialDelayMs (10000)' },
        { path: '/timeoutMs', message: 'must be at least 1000' },
      ]),
    );
    expect(res.json().errors).toHaveLength(4);
  });

  it('PATCH merges a partial retry into the stored one and changes timeoutMs alone', async () => {
    const s = (await create({ ...valid, retry: { maxAttempts: 3, initialDelayMs: 2_000 } })).json();
    expect(s.retry).toEqual({ maxAttempts: 3, initialDelayMs: 2_000, maxDelayMs: 3_600_000, delaysMs: null });

    const r1 = await app.inject({ method: 'PATCH', url: `/schedules/${s.id}`, headers, payload: { retry: { maxDelayMs: 10_000 } } });
    expect(r1.statusCode).toBe(200);
    expect(r1.json()).toEqual({ ...s, retry: { maxAttempts: 3, initialDelayMs: 2_000, maxDelayMs: 10_000, delaysMs: null } });

    const r2 = await app.inject({ method: 'PATCH', url: `/schedules/${s.id}`, headers, payload: { timeoutMs: 60_000 } });
    expect(r2.json()).toEqual({ ...s, retry: { maxAttempts: 3, initialDelayMs: 2_000, maxDelayMs: 10_000, delaysMs: null }, timeoutMs: 60_000 });

    const r3 = await app.inject({ method: 'PATCH', url: `/schedules/${s.id}`, headers, payload: { retry: {} } });
    expect(r3.json()).toEqual(r2.json());
    expect(await store.scheduleGet({ id: s.id })).toMatchObject({
      retry: { maxAttempts: 3, initialDelayMs: 2_000, maxDelayMs: 10_000, delaysMs: null },
      timeoutMs: 60_000,
    });
  });

  it('PATCH refuses an initialDelayMs above the stored maxDelayMs, naming /retry/maxDelayMs, and changes nothing', async () => {
    const s = (await create({ ...valid, retry: { maxDelayMs: 10_000 } })).json();
    const res = await app.inject({
      method: 'PATCH',
      url: `/schedules/${s.id}`,
      headers,
      payload: { name: 'renamed', retry: { initialDelayMs: 20_000 } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { path: '/retry/maxDelayMs', message: expect.stringContaining('less than initialDelayMs (20000)') },
    ]);
    expect((await app.inject({ method: 'GET', url: `/schedules/${s.id}`, headers })).json()).toEqual(s);

    const both = await app.inject({
      method: 'PATCH',
      url: `/schedules/${s.id}`,
      headers,
      payload: { retry: { initialDelayMs: 20_000, maxDelayMs: 30_000 } },
    });
    expect(both.statusCode).toBe(200);
    expect(both.json().retry).toEqual({ maxAttempts: 8, initialDelayMs: 20_000, maxDelayMs: 30_000, delaysMs: null });
  });

  it('PATCH with retry: 404 for an unknown id, 409 for a schedule no longer Pending', async () => {
    expect((await app.inject({ method: 'PATCH', url: `/schedules/${newId()}`, headers, payload: { retry: { maxAttempts: 2 } } })).statusCode).toBe(404);
    const s = (await create({ ...valid, scheduledAt: '2026-11-21T09:00:00Z' })).json();
    await store.claimDue({ now: clock.now(), limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
    const res = await app.inject({ method: 'PATCH', url: `/schedules/${s.id}`, headers, payload: { retry: { initialDelayMs: 3_000_000 } } });
    expect(res.statusCode).toBe(409);
  });
});
