/**
 * The life of cron jobs over HTTP (docs/cron.md, "Start, end and limits" and "Jitter"):
 * `startAt`, `endAt`, `maxInvocations` and `jitterMs` on create, patch, get and list, the 400s
 * naming the field, `Completed` in the status filter and its `nextInvocation` null, and the
 * restart of a Completed job by a PATCH with `status` Active. Clock injected; the claims are the
 * store's own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

/** 2026-11-21T10:00:00Z, a whole hour. */
const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const HOUR = 3_600_000;
const clock = { t: T0, now() { return this.t; } };
const iso = (ms: number) => new Date(ms).toISOString();

let dir: string;
let store: Store;
let app: FastifyInstance;
let headers: Record<string, string>;

beforeEach(async () => {
  clock.t = T0;
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-cron-life-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
  app = await buildApp({ store, clock, wake: () => {} });
  headers = { authorization: `Bearer ${(await createApiKey(store, clock, { name: 't' })).token}` };
});

afterEach(async () => {
  await app.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const hourly = { expression: '0 * * * *', endpoint: 'https://example.com/tick' };
const create = (body: object) => app.inject({ method: 'POST', url: '/cron', headers, payload: { ...hourly, ...body } });
const patch = (id: string, body: object) => app.inject({ method: 'PATCH', url: `/cron/${id}`, headers, payload: body });
const paths = (res: { json(): { errors: { path: string }[] } }) => res.json().errors.map((e) => e.path).sort();
const claim = () =>
  store.claimDue({ now: clock.now(), limit: 10, nodeId: 'test', leaseMs: 30 * 86_400_000, misfireThresholdMs: 60_000 }).then((r) => r.claimed);

describe('startAt, endAt, maxInvocations, jitterMs', () => {
  it('are stored and shown; nextInvocation is the first occurrence at or after startAt', async () => {
    const res = await create({ startAt: iso(T0 + 5 * HOUR), endAt: iso(T0 + 9 * HOUR), maxInvocations: 3, jitterMs: 90_000 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      startAt: iso(T0 + 5 * HOUR),
      endAt: iso(T0 + 9 * HOUR),
      maxInvocations: 3,
      jitterMs: 90_000,
      nextInvocation: iso(T0 + 5 * HOUR),
      status: 'Active',
    });
    const plain = (await create({})).json();
    expect(plain).toMatchObject({ startAt: null, endAt: null, maxInvocations: null, jitterMs: 0, nextInvocation: iso(T0 + HOUR) });
  });

  it('bad values: 400 naming each field, nothing created', async () => {
    const bad = await create({ startAt: 'tomorrow', endAt: 12, maxInvocations: 0, jitterMs: 3_600_001 });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect(paths(bad)).toEqual(['/endAt', '/jitterMs', '/maxInvocations', '/startAt']);
    expect(paths(await create({ maxInvocations: 1_000_000_001, jitterMs: -1 }))).toEqual(['/jitterMs', '/maxInvocations']);
    expect(paths(await create({ maxInvocations: 1.5 }))).toEqual(['/maxInvocations']);
    // endAt not after startAt
    const order = await create({ startAt: iso(T0 + 2 * HOUR), endAt: iso(T0 + 2 * HOUR) });
    expect(order.statusCode).toBe(400);
    expect(paths(order)).toEqual(['/endAt']);
    // a window without any occurrence after now
    const empty = await create({ endAt: iso(T0 + 30 * 60_000) });
    expect(empty.statusCode).toBe(400);
    expect(paths(empty)).toEqual(['/endAt']);
    expect((await store.cronList()).length).toBe(0);
  });

  it('PATCH: endAt must follow the stored startAt; Completed cannot be given', async () => {
    const job = (await create({ startAt: iso(T0 + 5 * HOUR) })).json();
    const res = await patch(job.id, { endAt: iso(T0 + 4 * HOUR) });
    expect(res.statusCode).toBe(400);
    expect(paths(res)).toEqual(['/endAt']);
    const completed = await patch(job.id, { status: 'Completed' });
    expect(completed.statusCode).toBe(400);
    expect(paths(completed)).toEqual(['/status']);
    expect((await store.cronGet({ id: job.id }))?.endAt).toBeNull();
  });

  it('a job that ran its last occurrence is Completed (nextInvocation null), listed with status=Completed, and restarted by PATCH Active', async () => {
    const job = (await create({ maxInvocations: 1 })).json();
    const other = (await create({})).json();
    clock.t = T0 + HOUR;
    expect((await claim()).map((c) => c.jobId).sort()).toEqual([job.id, other.id].sort());
    const done = (await app.inject({ method: 'GET', url: `/cron/${job.id}`, headers })).json();
    expect(done).toMatchObject({ status: 'Completed', nextInvocation: null, invocations: 1 });
    const list = (await app.inject({ method: 'GET', url: '/cron?status=Completed', headers })).json();
    expect(list.cronJobs.map((j: { id: string }) => j.id)).toEqual([job.id]);
    // A PATCH without status Active leaves it Completed, even with room for more.
    expect((await patch(job.id, { maxInvocations: 5 })).json()).toMatchObject({ status: 'Completed', nextInvocation: null });
    // Pausing a Completed job is refused; Active restarts it.
    expect(paths(await patch(job.id, { status: 'Paused' }))).toEqual(['/status']);
    const restarted = await patch(job.id, { status: 'Active' });
    expect(restarted.json()).toMatchObject({ status: 'Active', nextInvocation: iso(T0 + 2 * HOUR) });
    // Active when the limit leaves nothing: 400 at /status, nothing changes.
    const lowered = await patch(job.id, { maxInvocations: 1 });
    expect(lowered.json()).toMatchObject({ status: 'Completed' });
    const refused = await patch(job.id, { status: 'Active' });
    expect(refused.statusCode).toBe(400);
    expect(paths(refused)).toEqual(['/status']);
  });
});
