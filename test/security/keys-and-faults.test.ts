/**
 * Keys that stop working stop at once, and failures say nothing about the inside
 * (docs/security.md): a disabled or deleted key is refused on the very next request, however it was
 * changed; error bodies never show a stack trace, a file, SQL or a driver's message — also when the
 * store is closed (503) or its database is damaged underneath the service.
 */
import Database from 'better-sqlite3';
import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, deleteApiKey, updateApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { expectProblem, openHarness, type Harness } from '../http/harness.js';

let h: Harness | null = null;
let other: Store | null = null;
afterEach(async () => {
  await other?.close();
  other = null;
  await h?.close();
  h = null;
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** What an error body may show: the four members of a problem, plus field problems for a 400. */
const INTERNALS = /\n\s+at |\bat .+:\d+:\d+|\.(ts|js|mjs|cjs)\b|node_modules|\/work\/|sqlite|SQL|SELECT|INSERT|UPDATE |DELETE FROM|no such table|constraint|SyntaxError|TypeError|RangeError|Error:/i;

function expectBareProblem(res: Awaited<ReturnType<Harness['app']['inject']>>, status: number) {
  const body = expectProblem(res, status);
  expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
  expect(res.body).not.toMatch(INTERNALS);
}

describe('a key that is disabled or deleted is refused on the very next request', () => {
  it('changed through the API by another key', async () => {
    h = await openHarness();
    const { token, apiKey } = await createApiKey(h.store, h.clock, { name: 'victim' });
    const use = () => h!.app.inject({ method: 'GET', url: '/schedules', headers: bearer(token) });
    expect((await use()).statusCode).toBe(200);
    await h.app.inject({ method: 'PATCH', url: `/api-keys/${apiKey.id}`, headers: h.headers, payload: { status: 'Disabled' } });
    expectProblem(await use(), 403);
    await h.app.inject({ method: 'PATCH', url: `/api-keys/${apiKey.id}`, headers: h.headers, payload: { status: 'Enabled' } });
    expect((await use()).statusCode).toBe(200);
    await h.app.inject({ method: 'DELETE', url: `/api-keys/${apiKey.id}`, headers: h.headers });
    expectProblem(await use(), 401);
  });

  it('by the key itself: the request that disables it succeeds, the next one is refused', async () => {
    h = await openHarness();
    const res = await h.app.inject({ method: 'PATCH', url: `/api-keys/${h.keyId}`, headers: h.headers, payload: { status: 'Disabled' } });
    expect(res.statusCode).toBe(200);
    expectProblem(await h.app.inject({ method: 'GET', url: '/api-keys', headers: h.headers }), 403);
  });

  it('changed in the store through another connection (another node, the CLI): no cache in between', async () => {
    h = await openHarness();
    other = await openStore('file:' + h.dbFile); // a second connection to the same file
    const { token, apiKey } = await createApiKey(other, h.clock, { name: 'cli-made' });
    const use = () => h!.app.inject({ method: 'GET', url: '/cron', headers: bearer(token) });
    expect((await use()).statusCode).toBe(200);
    await updateApiKey(other, apiKey.id, { status: 'Disabled' });
    expectProblem(await use(), 403);
    await updateApiKey(other, apiKey.id, { status: 'Enabled' });
    expect((await use()).statusCode).toBe(200);
    await deleteApiKey(other, apiKey.id);
    expectProblem(await use(), 401);
  });
});

describe('error bodies never show internals', () => {
  it('for every kind of client error', async () => {
    h = await openHarness();
    const json = { ...h.headers, 'content-type': 'application/json' };
    const requests: [InjectOptions, number][] = [
      [{ method: 'POST', url: '/schedules', headers: json, payload: '{"name":' }, 400],
      [{ method: 'POST', url: '/schedules', headers: json, payload: '{"__proto__":{"x":1}}' }, 400],
      [{ method: 'POST', url: '/schedules', headers: json, payload: '' }, 400],
      [{ method: 'POST', url: '/schedules', headers: { ...h.headers, 'content-type': 'text/plain' }, payload: 'x' }, 415],
      [{ method: 'POST', url: '/schedules', headers: json, payload: `{"data":"${'x'.repeat(1_100_000)}"}` }, 413],
      [{ method: 'GET', url: '/schedules/%ZZ', headers: h.headers }, 400],
      [{ method: 'GET', url: `/schedules/${'x'.repeat(300)}`, headers: h.headers }, 414],
      [{ method: 'GET', url: '/nope', headers: h.headers }, 404],
      [{ method: 'PATCH', url: '/cron/01a1fe1c-0000-7000-8000-000000000000', headers: h.headers, payload: {} }, 404],
      [{ method: 'GET', url: '/schedules' }, 401],
    ];
    for (const [req, status] of requests) expectBareProblem(await h.app.inject(req), status);
  });

  it('the store closed: 503 with Retry-After on every route, authentication included', async () => {
    h = await openHarness();
    const s = (await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, payload: { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/' } })).json();
    await h.store.close();
    const routes: InjectOptions[] = [
      { method: 'GET', url: '/schedules' },
      { method: 'GET', url: `/schedules/${s.id}` },
      { method: 'POST', url: '/schedules', payload: { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/' } },
      { method: 'PATCH', url: `/schedules/${s.id}`, payload: { name: 'm' } },
      { method: 'DELETE', url: `/schedules/${s.id}` },
      { method: 'POST', url: `/schedules/${s.id}/trigger` },
      { method: 'GET', url: `/schedules/${s.id}/executions` },
      { method: 'GET', url: '/cron' },
      { method: 'POST', url: '/cron', payload: { expression: '* * * * *', endpoint: 'https://example.com/' } },
      { method: 'GET', url: '/cron/preview?expression=*+*+*+*+*' },
      { method: 'GET', url: '/api-keys' },
      { method: 'POST', url: '/api-keys', payload: { name: 'k' } },
      { method: 'GET', url: `/executions/${s.id}` },
    ];
    for (const req of routes) {
      const res = await h.app.inject({ ...req, headers: h.headers });
      expectBareProblem(res, 503);
      expect(res.headers['retry-after']).toBe('1');
    }
    expectBareProblem(await h.app.inject({ method: 'GET', url: '/readyz' }), 503);
    expect((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200); // the process still serves
  });

  it('the database damaged underneath: a table gone, a row that is not valid JSON — no SQL, no driver message', async () => {
    h = await openHarness();
    const create = await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, payload: { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/' } });
    const db = new Database(h.dbFile);
    try {
      db.prepare('UPDATE schedules SET data = ? WHERE id = ?').run('{not json', create.json().id);
      const damaged = await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers });
      expect(damaged.statusCode).toBeGreaterThanOrEqual(500);
      expectBareProblem(damaged, damaged.statusCode);

      db.exec('DROP TABLE cron_jobs');
      for (const req of [
        { method: 'GET', url: '/cron' },
        { method: 'POST', url: '/cron', payload: { expression: '* * * * *', endpoint: 'https://example.com/' } },
      ] as InjectOptions[]) {
        const res = await h.app.inject({ ...req, headers: h.headers });
        expect(res.statusCode).toBeGreaterThanOrEqual(500);
        expectBareProblem(res, res.statusCode);
      }
      // Everything else still works.
      expect((await h.app.inject({ method: 'GET', url: '/api-keys', headers: h.headers })).statusCode).toBe(200);
    } finally {
      db.close();
    }
  });
});
