/**
 * The outcome fields over HTTP (docs/calls.md, "What counts as success"; docs/cron.md,
 * "Auto-pause"): `successStatuses` on schedules and cron jobs, `pauseAfterFailures`,
 * `pausedReason` and `consecutiveFailures` on cron jobs; every refusal a 400 problem naming the
 * field that changes nothing.
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

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const clock = { t: T0, now() { return this.t; } };

let dir: string;
let store: Store;
let app: FastifyInstance;
let auth: Record<string, string>;

beforeEach(async () => {
  clock.t = T0;
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-outcome-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
  app = await buildApp({ store, clock, wake: () => undefined });
  auth = { authorization: `Bearer ${(await createApiKey(store, clock, { name: 't' })).token}` };
});

afterEach(async () => {
  await app.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const KINDS = [
  { kind: 'schedules', url: '/schedules', valid: { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/h' } },
  { kind: 'cron jobs', url: '/cron', valid: { expression: '0 * * * *', endpoint: 'https://example.com/h' } },
] as const;

const problems = (res: { json(): unknown }) => (res.json() as { errors?: { path: string; message: string }[] }).errors ?? [];
const paths = (res: { json(): unknown }) => problems(res).map((e) => e.path);

describe.each(KINDS)('successStatuses of $kind', ({ url, valid }) => {
  const post = (body: object) => app.inject({ method: 'POST', url, headers: auth, payload: { ...valid, ...body } });
  const patch = (id: string, body: object) => app.inject({ method: 'PATCH', url: `${url}/${id}`, headers: auth, payload: body });
  const get = async (id: string) => (await app.inject({ method: 'GET', url: `${url}/${id}`, headers: auth })).json() as Record<string, unknown>;
  const count = async () => (url === '/cron' ? (await store.cronList()).length : (await store.scheduleList()).length);

  it('is ["2xx"] by default; a given list is stored, shown, listed and replaced by a PATCH', async () => {
    const plain = await post({});
    expect(plain.statusCode).toBe(201);
    expect(plain.json()).toMatchObject({ successStatuses: ['2xx'] });
    const res = await post({ successStatuses: ['2xx', 302, 404] });
    expect(res.statusCode).toBe(201);
    const job = res.json() as { id: string };
    expect(job).toMatchObject({ successStatuses: ['2xx', 302, 404] });
    expect(await get(job.id)).toEqual(job);
    const list = (await app.inject({ method: 'GET', url, headers: auth })).json() as Record<string, { id: string }[]>;
    const listed = Object.values(list).find(Array.isArray)!.find((j) => j.id === job.id);
    expect(listed).toMatchObject({ successStatuses: ['2xx', 302, 404] });
    const patched = await patch(job.id, { successStatuses: ['3xx'] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ successStatuses: ['3xx'] });
  });

  it('refuses a bad list with a 400 naming the list or the item, and stores nothing', async () => {
    const cases: [unknown, string][] = [
      [[], '/successStatuses'],
      ['2xx', '/successStatuses'],
      [Array.from({ length: 51 }, (_, i) => 200 + i), '/successStatuses'],
      [['2xx', 99], '/successStatuses/1'],
      [['2xx', 600], '/successStatuses/1'],
      [[200.5], '/successStatuses/0'],
      [['2XX'], '/successStatuses/0'],
      [['6xx'], '/successStatuses/0'],
      [[null], '/successStatuses/0'],
      [[302, '2xx', 302], '/successStatuses/2'],
    ];
    for (const [successStatuses, path] of cases) {
      const res = await post({ successStatuses });
      expect(res.statusCode, JSON.stringify(successStatuses)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(paths(res), JSON.stringify(successStatuses)).toEqual([path]);
    }
    expect(await count()).toBe(0);
    const job = (await post({})).json() as { id: string };
    const res = await patch(job.id, { successStatuses: [200, 200] });
    expect(res.statusCode).toBe(400);
    expect(paths(res)).toEqual(['/successStatuses/1']);
    expect(await get(job.id)).toMatchObject({ successStatuses: ['2xx'] });
  });
});

describe('pauseAfterFailures, pausedReason and consecutiveFailures of cron jobs', () => {
  const post = (body: object) => app.inject({ method: 'POST', url: '/cron', headers: auth, payload: { ...KINDS[1].valid, ...body } });
  const patch = (id: string, body: object) => app.inject({ method: 'PATCH', url: `/cron/${id}`, headers: auth, payload: body });
  const get = async (id: string) => (await app.inject({ method: 'GET', url: `/cron/${id}`, headers: auth })).json() as Record<string, unknown>;

  it('a new job: pauseAfterFailures null unless given, pausedReason null, consecutiveFailures 0', async () => {
    expect((await post({})).json()).toMatchObject({ pauseAfterFailures: null, pausedReason: null, consecutiveFailures: 0 });
    const job = (await post({ pauseAfterFailures: 3 })).json() as { id: string };
    expect(job).toMatchObject({ pauseAfterFailures: 3 });
    expect((await patch(job.id, { pauseAfterFailures: null })).json()).toMatchObject({ pauseAfterFailures: null });
    expect((await patch(job.id, { pauseAfterFailures: 1000 })).json()).toMatchObject({ pauseAfterFailures: 1000 });
  });

  it('refuses pauseAfterFailures out of 1–1,000, and pausedReason or consecutiveFailures at create', async () => {
    for (const pauseAfterFailures of [0, 1001, 2.5, '3']) {
      const res = await post({ pauseAfterFailures });
      expect(res.statusCode, String(pauseAfterFailures)).toBe(400);
      expect(paths(res)).toEqual(['/pauseAfterFailures']);
    }
    expect(paths(await post({ pausedReason: 'x' }))).toEqual(['/pausedReason']);
    expect(paths(await post({ consecutiveFailures: 0 }))).toEqual(['/consecutiveFailures']);
    expect(await store.cronList()).toEqual([]);
  });

  it('pausedReason: set by the PATCH that pauses, shown, kept, cleared on resume; null when paused without one', async () => {
    const job = (await post({})).json() as { id: string };
    const paused = await patch(job.id, { status: 'Paused', pausedReason: 'receiver migrating until Monday' });
    expect(paused.statusCode).toBe(200);
    expect(paused.json()).toMatchObject({ status: 'Paused', pausedReason: 'receiver migrating until Monday' });
    expect(await get(job.id)).toMatchObject({ status: 'Paused', pausedReason: 'receiver migrating until Monday' });
    // On a Paused job a reason may change without a status; other fields keep it.
    expect((await patch(job.id, { pausedReason: 'until Tuesday' })).json()).toMatchObject({ pausedReason: 'until Tuesday' });
    expect((await patch(job.id, { name: 'renamed' })).json()).toMatchObject({ status: 'Paused', pausedReason: 'until Tuesday' });
    const resumed = await patch(job.id, { status: 'Active' });
    expect(resumed.json()).toMatchObject({ status: 'Active', pausedReason: null, consecutiveFailures: 0 });
    expect((await patch(job.id, { status: 'Paused' })).json()).toMatchObject({ status: 'Paused', pausedReason: null });
  });

  it('refuses a pausedReason that leaves the job Active, too long, or not a string: 400 naming it, nothing changes', async () => {
    const job = (await post({})).json() as { id: string };
    const active = await patch(job.id, { pausedReason: 'why' });
    expect(active.statusCode).toBe(400);
    expect(problems(active)).toEqual([{ path: '/pausedReason', message: expect.stringContaining('paused') }]);
    expect(paths(await patch(job.id, { status: 'Active', pausedReason: 'why' }))).toEqual(['/pausedReason']);
    expect(paths(await patch(job.id, { status: 'Paused', pausedReason: 'x'.repeat(513) }))).toEqual(['/pausedReason']);
    expect(paths(await patch(job.id, { status: 'Paused', pausedReason: 5 }))).toEqual(['/pausedReason']);
    expect(paths(await patch(job.id, { status: 'Paused', pausedReason: 'nul\u0000' }))).toEqual(['/pausedReason']);
    expect(paths(await patch(job.id, { consecutiveFailures: 0 }))).toEqual(['/consecutiveFailures']);
    expect(await get(job.id)).toMatchObject({ status: 'Active', pausedReason: null });
    // 512 characters (not bytes) are accepted.
    const ok = await patch(job.id, { status: 'Paused', pausedReason: 'é'.repeat(512) });
    expect(ok.statusCode).toBe(200);
  });
});
