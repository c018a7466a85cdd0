import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { buildApp } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { STORES, type TestDatabase } from '../support/stores.js';

/** The HTTP API over a real socket, against every store (docs/multinode.md). */
describe.each(STORES)('over a real socket ($name)', (storeUnderTest) => {
  let db: TestDatabase;
  let store: Store;
  let app: FastifyInstance;
  let base: string;
  let token: string;

  beforeAll(async () => {
    db = await storeUnderTest.create();
    store = await openStore(db.url);
    await store.migrate();
    app = await buildApp({ store, clock: systemClock });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    base = `http://127.0.0.1:${address.port}`;
    token = (await createApiKey(store, systemClock, { name: 'socket' })).token;
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.drop();
  });

  const call = (method: string, path: string, body?: unknown, t: string | null = token) =>
    fetch(base + path, {
      method,
      headers: {
        ...(t === null ? {} : { authorization: `Bearer ${t}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('serves the open health check', async () => {
    const res = await call('GET', '/healthz', undefined, null);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('refuses a request without a key with 401 and WWW-Authenticate', async () => {
    const res = await call('GET', '/schedules', undefined, null);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('walks a key, a schedule and a cron job through create, read, update, list and delete', async () => {
    const key = await call('POST', '/api-keys', { name: 'second' });
    expect(key.status).toBe(201);
    const second = (await key.json()) as { id: string; token: string };
    expect((await call('GET', '/api-keys', undefined, second.token)).status).toBe(200);

    const s = await call('POST', '/schedules', {
      name: 'once',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      endpoint: 'https://example.com/hook',
      tags: ['socket'],
    });
    expect(s.status).toBe(201);
    const schedule = (await s.json()) as { id: string };
    const patched = await call('PATCH', `/schedules/${schedule.id}`, { name: 'once-renamed' });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { name: string }).name).toBe('once-renamed');

    const c = await call('POST', '/cron', { expression: '*/5 * * * *', timezone: 'America/New_York', endpoint: 'https://example.com/c' });
    expect(c.status).toBe(201);
    const job = (await c.json()) as { id: string; nextInvocation: string };
    expect(Date.parse(job.nextInvocation)).toBeGreaterThan(Date.now());
    expect(Date.parse(job.nextInvocation) % 300_000).toBe(0);

    const lists = await Promise.all(['/api-keys', '/schedules', '/cron'].map((p) => call('GET', p).then((r) => r.json())));
    expect(lists.map((l) => (l as { size: number }).size)).toEqual([2, 1, 1]);

    expect((await call('GET', `/cron/${job.id}`)).status).toBe(200);
    expect((await call('DELETE', `/cron/${job.id}`)).status).toBe(204);
    const gone = await call('GET', `/cron/${job.id}`);
    expect(gone.status).toBe(200);
    expect(await gone.text()).toBe('null');

    expect((await call('DELETE', `/api-keys/${second.id}`)).status).toBe(204);
    expect((await call('GET', '/cron', undefined, second.token)).status).toBe(401);
  });

  it('triggers a cron job with a bodyless POST and reads its execution and history', async () => {
    const c = await call('POST', '/cron', { expression: '0 0 1 1 *', endpoint: 'https://example.com/yearly' });
    const job = (await c.json()) as { id: string };
    const t = await call('POST', `/cron/${job.id}/trigger`);
    expect(t.status).toBe(202);
    const execution = (await t.json()) as { id: string; jobId: string; triggered: boolean };
    expect(execution).toMatchObject({ jobId: job.id, triggered: true });
    const got = await call('GET', `/executions/${execution.id}`);
    expect(await got.json()).toEqual(execution);
    const list = await call('GET', `/cron/${job.id}/executions?limit=5`);
    expect(await list.json()).toEqual({ size: 1, executions: [execution], nextCursor: null });
    expect((await call('POST', `/cron/${job.id}/trigger`, undefined, null)).status).toBe(401);
    expect((await call('DELETE', `/cron/${job.id}`)).status).toBe(204);
  });

  it('answers malformed JSON and a wrong media type with problems', async () => {
    const bad = await fetch(base + '/schedules', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const text = await fetch(base + '/schedules', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(415);
  });
});
