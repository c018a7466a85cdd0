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

/** A Saturday. */
const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const clock = { t: T0, now() { return this.t; } };
const iso = (s: string) => new Date(s).toISOString();

let dir: string;
let store: Store;
let app: FastifyInstance;
let headers: Record<string, string>;
let woken: number[];

beforeEach(async () => {
  clock.t = T0;
  woken = [];
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-cron-'));
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

const hourly = { expression: '0 * * * *', endpoint: 'https://example.com/tick' };

async function create(body: object = hourly) {
  return app.inject({ method: 'POST', url: '/cron', headers, payload: body });
}
async function get(id: string) {
  return (await app.inject({ method: 'GET', url: `/cron/${id}`, headers })).json();
}
async function patch(id: string, body: object) {
  return app.inject({ method: 'PATCH', url: `/cron/${id}`, headers, payload: body });
}
function claim() {
  return store.claimDue({ now: clock.now(), limit: 10, nodeId: 'test', leaseMs: 60_000, misfireThresholdMs: 60_000 }).then((r) => r.claimed);
}

describe('POST /cron', () => {
  it('creates an Active job: invocations 0, nullable fields null, nextInvocation strictly after now in UTC', async () => {
    const res = await create({ expression: '*/15 * * * *', endpoint: 'http://example.com/x' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      [
        'createdAt', 'data', 'endpoint', 'expression', 'id', 'invocations', 'name', 'nextInvocation', 'status', 'timezone',
        'retry', 'timeoutMs', 'misfire', 'overlap', 'lastInvocation', 'lastStatus', 'skippedOccurrences',
        'method', 'headers', 'body', 'secretHeaderNames', 'auth', 'signingSecretSet',
        'successStatuses', 'pauseAfterFailures', 'pausedReason', 'consecutiveFailures', 'tags',
        'startAt', 'endAt', 'maxInvocations', 'jitterMs',
        'key', 'managedBy', 'flowControlKey',
      ].sort(),
    );
    expect(body).toMatchObject({ method: 'POST', headers: {}, body: null, tags: [] });
    expect(body).toMatchObject({
      expression: '*/15 * * * *',
      name: null,
      invocations: 0,
      timezone: null,
      status: 'Active',
      endpoint: 'http://example.com/x',
      data: null,
      createdAt: '2026-11-21T10:00:00.000Z',
      nextInvocation: '2026-11-21T10:15:00.000Z',
      retry: DEFAULT_RETRY_POLICY,
      timeoutMs: 30_000,
      misfire: 'once',
      overlap: 'allow',
      lastInvocation: null,
      lastStatus: null,
      skippedOccurrences: 0,
    });
    expect(woken).toEqual([Date.parse('2026-11-21T10:15:00Z')]);
  });

  it('evaluates the expression in the time zone given', async () => {
    const res = await create({
      expression: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
      name: 'standup',
      endpoint: 'https://example.com/x',
      data: { room: 1 },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      name: 'standup',
      timezone: 'Europe/Berlin',
      data: { room: 1 },
      nextInvocation: '2026-11-23T08:00:00.000Z',
    });
  });

  it('takes explicit nulls for name, timezone and data', async () => {
    const res = await create({ ...hourly, name: null, timezone: null, data: null });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: null, timezone: null, data: null, nextInvocation: '2026-11-21T11:00:00.000Z' });
  });

  it.each([
    ['expression', { expression: 'every monday' }],
    ['expression', { expression: '0 0 31 2 *' }],
    ['expression', { expression: '61 * * * *' }],
    ['expression', { expression: '' }],
    ['timezone', { timezone: 'Mars/Olympus_Mons' }],
    ['timezone', { timezone: '' }],
    ['endpoint', { endpoint: 'mailto:a@example.com' }],
    ['name', { name: '' }],
    ['data', { data: [] }],
  ])('rejects a bad %s (%j) naming the field and storing nothing', async (field, p) => {
    const res = await create({ ...hourly, ...p });
    expect(res.statusCode).toBe(400);
    const errors = res.json().errors as { path: string; message: string }[];
    expect(errors.map((e) => e.path)).toEqual([`/${field}`]);
    expect(errors[0]!.message.length).toBeGreaterThan(0);
    expect((await store.cronList()).length).toBe(0);
  });

  it('reports every problem at once', async () => {
    const res = await create({ expression: '* * *', timezone: 'Nowhere/City', endpoint: 'x', status: 'Paused' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { path: string }) => e.path).sort()).toEqual(['/endpoint', '/expression', '/status', '/timezone']);
  });
});

describe('GET /cron and /cron/{id}', () => {
  it('lists as {size, cronJobs} (and nextCursor, null on the last page), oldest first', async () => {
    const a = (await create()).json();
    clock.t += 1;
    const b = (await create({ ...hourly, name: 'b' })).json();
    expect((await app.inject({ method: 'GET', url: '/cron', headers })).json()).toEqual({ size: 2, cronJobs: [a, b], nextCursor: null });
  });

  it('answers 200 null for an unknown id (UUID or not)', async () => {
    for (const id of [newId(), 'x']) {
      const res = await app.inject({ method: 'GET', url: `/cron/${id}`, headers });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('null');
    }
  });
});

describe('PATCH /cron/{id}', () => {
  it('is a partial update; null sets a nullable field to null', async () => {
    const job = (await create({ ...hourly, name: 'n', data: { a: 1 }, timezone: 'UTC' })).json();
    const res = await patch(job.id, { name: null, data: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...job, name: null, data: null });
    const res2 = await patch(job.id, { endpoint: 'https://example.org/', data: { b: [] } });
    expect(res2.json()).toEqual({ ...job, name: null, endpoint: 'https://example.org/', data: { b: [] } });
  });

  it('recomputes nextInvocation from now when the expression or the time zone changes', async () => {
    const job = (await create()).json();
    clock.t = T0 + 90 * 60_000; // 11:30 — the 11:00 occurrence is due and unclaimed
    const res = await patch(job.id, { expression: '45 * * * *' });
    expect(res.json().nextInvocation).toBe('2026-11-21T11:45:00.000Z');
    expect((await store.cronGet({ id: job.id }))?.nextInvocation).toBe(Date.parse('2026-11-21T11:45:00Z'));

    const res2 = await patch(job.id, { timezone: 'Asia/Kolkata' }); // +05:30: :45 local is :15 UTC
    expect(res2.json()).toMatchObject({ timezone: 'Asia/Kolkata', nextInvocation: '2026-11-21T12:15:00.000Z' });

    const res3 = await patch(job.id, { timezone: null });
    expect(res3.json()).toMatchObject({ timezone: null, nextInvocation: '2026-11-21T11:45:00.000Z' });
  });

  it('does not recompute when nothing of the timing changes, so a due occurrence still runs', async () => {
    const job = (await create()).json();
    clock.t = Date.parse('2026-11-21T11:00:00.500Z'); // due, not yet claimed
    const res = await patch(job.id, { name: 'renamed', expression: '0 * * * *', status: 'Active' });
    expect(res.json()).toMatchObject({ name: 'renamed', nextInvocation: '2026-11-21T11:00:00.000Z' });
    const claimed = await claim();
    expect(claimed.map((c) => [c.jobId, c.scheduledFor])).toEqual([[job.id, Date.parse('2026-11-21T11:00:00Z')]]);
  });

  it('pausing stops the job; a Paused job shows the occurrence it would run next; resuming skips missed ones', async () => {
    const job = (await create()).json();
    const paused = await patch(job.id, { status: 'Paused' });
    expect(paused.json()).toMatchObject({ status: 'Paused', nextInvocation: '2026-11-21T11:00:00.000Z' });

    clock.t = Date.parse('2026-11-21T13:30:00Z');
    expect(await claim()).toEqual([]); // a Paused job never fires
    expect(await get(job.id)).toMatchObject({ status: 'Paused', nextInvocation: '2026-11-21T14:00:00.000Z' });
    const listed = (await app.inject({ method: 'GET', url: '/cron', headers })).json();
    expect(listed.cronJobs[0].nextInvocation).toBe('2026-11-21T14:00:00.000Z');

    woken = [];
    const resumed = await patch(job.id, { status: 'Active' });
    expect(resumed.json()).toMatchObject({ status: 'Active', invocations: 0, nextInvocation: '2026-11-21T14:00:00.000Z' });
    expect(woken).toEqual([Date.parse('2026-11-21T14:00:00Z')]);
    expect(await claim()).toEqual([]); // 11:00, 12:00, 13:00 were missed while paused: not run

    clock.t = Date.parse('2026-11-21T14:00:00Z');
    expect((await claim()).map((c) => c.scheduledFor)).toEqual([Date.parse('2026-11-21T14:00:00Z')]);
    expect(await get(job.id)).toMatchObject({ invocations: 1, nextInvocation: '2026-11-21T15:00:00.000Z' });
  });

  it('answers 404 for an unknown id; 400 naming fields for a bad body; nothing changes', async () => {
    expect((await patch(newId(), { name: 'x' })).statusCode).toBe(404);
    expect((await patch('nope', { name: 'x' })).statusCode).toBe(404);
    const job = (await create()).json();
    const bad = await patch(job.id, { status: 'Stopped', expression: '0 0 30 2 *', invocations: 5, name: 'ok' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { path: string }) => e.path).sort()).toEqual(['/expression', '/invocations', '/status']);
    expect(await get(job.id)).toEqual(job);
  });
});

describe('DELETE /cron/{id}', () => {
  it('deletes (204); GET is then null; the job never fires', async () => {
    const job = (await create()).json();
    expect((await app.inject({ method: 'DELETE', url: `/cron/${job.id}`, headers })).statusCode).toBe(204);
    expect((await app.inject({ method: 'GET', url: `/cron/${job.id}`, headers })).body).toBe('null');
    expect((await app.inject({ method: 'DELETE', url: `/cron/${job.id}`, headers })).statusCode).toBe(404);
    clock.t = T0 + 3 * 3_600_000;
    expect(await claim()).toEqual([]);
  });
});

describe('GET /cron/preview', () => {
  const preview = (query: string) => app.inject({ method: 'GET', url: `/cron/preview?${query}`, headers });

  it('answers the next occurrences after now (default 5) in the zone', async () => {
    const res = await preview(`expression=${encodeURIComponent('0 9 * * MON-FRI')}&timezone=Europe/Berlin`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      occurrences: [
        iso('2026-11-23T08:00:00Z'),
        iso('2026-11-24T08:00:00Z'),
        iso('2026-11-25T08:00:00Z'),
        iso('2026-11-26T08:00:00Z'),
        iso('2026-11-27T08:00:00Z'),
      ],
    });
  });

  it('follows DST and starts strictly after `from`', async () => {
    const res = await preview(
      `expression=${encodeURIComponent('0 9 * * MON-FRI')}&timezone=Europe/Berlin&from=${encodeURIComponent('2027-03-25T09:00:00+01:00')}&count=3`,
    );
    // Berlin moves to CEST on Sunday 2027-03-28: 09:00 is 08:00Z before, 07:00Z after.
    expect(res.json().occurrences).toEqual([iso('2027-03-26T08:00:00Z'), iso('2027-03-29T07:00:00Z'), iso('2027-03-30T07:00:00Z')]);
  });

  it('evaluates in UTC without a time zone and takes count up to 100', async () => {
    const res = await preview(`expression=${encodeURIComponent('@hourly')}&count=100`);
    expect(res.statusCode).toBe(200);
    const occ = res.json().occurrences as string[];
    expect(occ).toHaveLength(100);
    expect(occ[0]).toBe('2026-11-21T11:00:00.000Z');
    expect(occ[99]).toBe(iso('2026-11-25T14:00:00Z'));
  });

  it.each([
    ['count=0', '/query/count'],
    ['count=101', '/query/count'],
    ['count=abc', '/query/count'],
    ['count=5.0', '/query/count'],
    ['count=1&count=2', '/query/count'],
    ['timezone=Not/AZone', '/query/timezone'],
    ['from=2026-11-21', '/query/from'],
    ['expression=x', '/query/expression'],
    ['unknown=1', '/query/unknown'],
  ])('rejects %s (400 naming %s)', async (q, path) => {
    const query = q.startsWith('expression=') ? q : `expression=${encodeURIComponent('* * * * *')}&${q}`;
    const res = await preview(query);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it('requires an expression and is not taken for /cron/{id}', async () => {
    const res = await app.inject({ method: 'GET', url: '/cron/preview', headers });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ path: '/query/expression', message: 'is required' }]);
  });

  it('needs authentication like the rest', async () => {
    expect((await app.inject({ method: 'GET', url: '/cron/preview?expression=*%20*%20*%20*%20*' })).statusCode).toBe(401);
  });
});

describe('delivery settings and policies of cron jobs', () => {
  it('takes retry, timeoutMs, misfire and overlap at create', async () => {
    const res = await create({ ...hourly, retry: { maxAttempts: 1 }, timeoutMs: 900_000, misfire: 'all', overlap: 'skip' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 },
      timeoutMs: 900_000,
      misfire: 'all',
      overlap: 'skip',
    });
    expect(await get(res.json().id)).toEqual(res.json());
    expect(await store.cronGet({ id: res.json().id })).toMatchObject({ misfire: 'all', overlap: 'skip', timeoutMs: 900_000 });
  });

  it('patches misfire and overlap, each alone, keeping the rest', async () => {
    const job = (await create()).json();
    const r1 = await patch(job.id, { misfire: 'skip' });
    expect(r1.statusCode).toBe(200);
    expect(r1.json()).toEqual({ ...job, misfire: 'skip' });
    const r2 = await patch(job.id, { overlap: 'skip' });
    expect(r2.json()).toEqual({ ...job, misfire: 'skip', overlap: 'skip' });
    const r3 = await patch(job.id, { misfire: 'all', overlap: 'allow' });
    expect(r3.json()).toEqual({ ...job, misfire: 'all', overlap: 'allow' });
    expect(await get(job.id)).toEqual(r3.json());
  });

  it('merges a partial retry on PATCH and checks it against the stored delays', async () => {
    const job = (await create({ ...hourly, retry: { initialDelayMs: 500, maxDelayMs: 60_000 }, timeoutMs: 5_000 })).json();
    const r1 = await patch(job.id, { retry: { maxAttempts: 12 } });
    expect(r1.json()).toEqual({ ...job, retry: { maxAttempts: 12, initialDelayMs: 500, maxDelayMs: 60_000, delaysMs: null } });
    const bad = await patch(job.id, { retry: { initialDelayMs: 120_000 }, name: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { path: string }) => e.path)).toEqual(['/retry/maxDelayMs']);
    expect(await get(job.id)).toEqual(r1.json());
    const r2 = await patch(job.id, { retry: { maxDelayMs: 1_000 }, timeoutMs: 1_000 });
    expect(r2.json()).toEqual({ ...job, retry: { maxAttempts: 12, initialDelayMs: 500, maxDelayMs: 1_000, delaysMs: null }, timeoutMs: 1_000 });
    // Steps replace the exponential rule; a bad step is named by its index and changes nothing.
    const r3 = await patch(job.id, { retry: { delaysMs: [5_000, 60_000] } });
    expect(r3.json().retry).toEqual({ maxAttempts: 12, initialDelayMs: 500, maxDelayMs: 1_000, delaysMs: [5_000, 60_000] });
    const r4 = await patch(job.id, { retry: { delaysMs: [5_000, 0] }, name: 'y' });
    expect(r4.statusCode).toBe(400);
    expect(r4.json().errors).toEqual([{ path: '/retry/delaysMs/1', message: 'must be at least 100' }]);
    expect((await store.cronGet({ id: job.id }))?.retry.delaysMs).toEqual([5_000, 60_000]);
  });

  it.each([
    ['/misfire', { misfire: 'never' }, 'must be one of skip, once, all'],
    ['/misfire', { misfire: null }, 'must be a string'],
    ['/misfire', { misfire: 'ONCE' }, 'must be one of skip, once, all'],
    ['/overlap', { overlap: 'deny' }, 'must be one of allow, skip'],
    ['/overlap', { overlap: true }, 'must be a string'],
    ['/retry/maxAttempts', { retry: { maxAttempts: 0 } }, 'must be at least 1'],
    ['/retry/maxDelayMs', { retry: { initialDelayMs: 2_000, maxDelayMs: 1_000 } }, 'must be at least initialDelayMs (2000)'],
    ['/retry/backoff', { retry: { backoff: 'linear' } }, 'is not an allowed field'],
    ['/timeoutMs', { timeoutMs: 1_000_000 }, 'must be at most 900000'],
  ])('rejects %s in %j at create and on PATCH', async (path, p, message) => {
    const res = await create({ ...hourly, ...p });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ path, message }]);
    expect(await store.cronList()).toEqual([]);
    const job = (await create()).json();
    const patched = await patch(job.id, p);
    expect(patched.statusCode).toBe(400);
    expect(patched.json().errors).toEqual([{ path, message }]);
    expect(await get(job.id)).toEqual(job);
  });

  it('refuses the read-only lastInvocation and lastStatus (and invocations, nextInvocation) in bodies', async () => {
    const res = await create({ ...hourly, lastInvocation: null, lastStatus: 'Succeeded' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        { path: '/lastInvocation', message: 'is not an allowed field' },
        { path: '/lastStatus', message: 'is not an allowed field' },
      ]),
    );
    const job = (await create()).json();
    for (const field of ['lastInvocation', 'lastStatus', 'invocations', 'nextInvocation']) {
      const bad = await patch(job.id, { [field]: null });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([{ path: `/${field}`, message: 'is not an allowed field' }]);
    }
    expect(await get(job.id)).toEqual(job);
  });

  it('shows lastInvocation and lastStatus of the newest execution', async () => {
    const job = (await create()).json();
    expect(job).toMatchObject({ lastInvocation: null, lastStatus: null });
    clock.t = Date.parse('2026-11-21T11:00:00.250Z');
    const [claimed] = await claim();
    expect(claimed?.jobId).toBe(job.id);
    expect(await get(job.id)).toMatchObject({ invocations: 1, lastInvocation: '2026-11-21T11:00:00.000Z', lastStatus: 'Running' });
    await store.executionsFinish({
      nodeId: 'test',
      outcomes: [
        {
          executionId: claimed!.executionId,
          attempt: claimed!.attempt,
          status: 'Succeeded',
          nextAttemptAt: null,
          startedAt: clock.t,
          durationMs: 12,
          statusCode: 204,
          error: null,
          responseBody: '',
        },
      ],
    });
    const listed = (await app.inject({ method: 'GET', url: '/cron', headers })).json();
    expect(listed.cronJobs[0]).toMatchObject({ lastInvocation: '2026-11-21T11:00:00.000Z', lastStatus: 'Succeeded' });
  });
});
