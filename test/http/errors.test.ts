import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { captureLogger } from '../support/logger.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const clock = { now: () => Date.parse('2026-11-21T10:00:00.000Z') };

let dir: string;
let store: Store;
let app: FastifyInstance;
let token: string;
let headers: Record<string, string>;
let logLines: string[];
let ready: boolean;
let explode: boolean;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-errors-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
  const log = captureLogger({ level: 'trace' });
  logLines = log.lines;
  ready = true;
  explode = false;
  app = await buildApp({ store, clock, logger: log.logger, isReady: () => {
      if (explode) throw new Error('secret internals at /srv/punctual/src/x.ts:12');
      return ready;
    },
  });
  token = (await createApiKey(store, clock, { name: 't' })).token;
  headers = { authorization: `Bearer ${token}` };
});

afterEach(async () => {
  await app.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body.status).toBe(status);
  for (const k of ['type', 'title', 'detail']) expect(typeof body[k]).toBe('string');
  return body;
}

const valid = { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/' };

describe('problem details for HTTP errors', () => {
  it('unknown route: 404 problem', async () => {
    expectProblem(await app.inject({ method: 'GET', url: '/nope', headers }), 404);
    expectProblem(await app.inject({ method: 'PUT', url: '/schedules', headers, payload: valid }), 404);
    expectProblem(await app.inject({ method: 'GET', url: '/nope' }), 404);
  });

  it('a badly percent-encoded URL: 400 problem, with or without a key', async () => {
    expectProblem(await app.inject({ method: 'GET', url: '/schedules/%ZZ', headers }), 400);
    expectProblem(await app.inject({ method: 'GET', url: '/cron/%E0%A4%A' }), 400);
  });

  it('data nested deeper than 64 levels: 400 naming /data, at any depth, never a 5xx', async () => {
    const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const send = (depth: number) =>
      app.inject({
        method: 'POST',
        url: '/schedules',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: `{"name":"n","scheduledAt":"2026-11-22T09:00:00Z","endpoint":"https://e.com/","data":{"d":${nest(depth)}}}`,
      });
    expect((await send(63)).statusCode).toBe(201); // 64 levels with the data object itself
    for (const depth of [64, 10_000, 200_000]) {
      const res = await send(depth);
      const body = expectProblem(res, 400);
      if (depth < 200_000) expect(body.errors).toEqual([{ path: '/data', message: 'must not nest objects and arrays more than 64 levels deep' }]);
    }
    expect((await store.scheduleList()).length).toBe(1);
  });

  it('malformed JSON: 400 problem, nothing stored', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/schedules',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"name": "n",',
    });
    expectProblem(res, 400);
    expect(await store.scheduleList()).toEqual([]);
  });

  it('empty JSON body: 400 problem', async () => {
    const res = await app.inject({ method: 'POST', url: '/api-keys', headers: { ...headers, 'content-type': 'application/json' }, payload: '' });
    expectProblem(res, 400);
  });

  it('a body that is JSON but not an object: 400 naming the body', async () => {
    const res = await app.inject({ method: 'POST', url: '/schedules', headers: { ...headers, 'content-type': 'application/json' }, payload: '[1]' });
    const body = expectProblem(res, 400);
    expect(body.errors).toEqual([{ path: '', message: 'must be a JSON object' }]);
  });

  it('__proto__ in a body is refused, not stripped', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/schedules',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"name":"n","scheduledAt":"2026-11-22T09:00:00Z","endpoint":"https://e.com/","data":{"__proto__":{"x":1}}}',
    });
    expectProblem(res, 400);
    expect(await store.scheduleList()).toEqual([]);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('Content-Type %s: 415 problem', async (type) => {
    const res = await app.inject({
      method: 'POST',
      url: '/schedules',
      headers: { ...headers, 'content-type': type },
      payload: JSON.stringify(valid),
    });
    expectProblem(res, 415);
    expect(await store.scheduleList()).toEqual([]);
  });

  it('accepts application/json with a charset', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/schedules',
      headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify(valid),
    });
    expect(res.statusCode).toBe(201);
  });

  it('a body over 1 MiB: 413 problem', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/schedules',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...valid, data: { big: 'x'.repeat(1_100_000) } }),
    });
    expectProblem(res, 413);
  });

  it('an unexpected error: 500 problem without message, stack or internals; logged', async () => {
    explode = true;
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    const body = expectProblem(res, 500);
    expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
    expect(res.body).not.toMatch(/secret|\.ts|\/srv/);
    const logged = logLines.map((l) => JSON.parse(l) as { level: number; err?: { message: string } });
    expect(logged.some((l) => l.level >= 50 && l.err?.message.includes('secret internals'))).toBe(true);
  });

  it('the store unavailable: 503 problem with Retry-After, without internals', async () => {
    await store.close(); // the store now fails every call
    const res = await app.inject({ method: 'GET', url: '/schedules', headers });
    const body = expectProblem(res, 503);
    expect(res.headers['retry-after']).toBe('1');
    expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
    expect(res.body).not.toMatch(/at .*\.(ts|js):\d+|sqlite|SQL/i);
    store = await openStore('file:' + join(dir, 'test.db')); // for afterEach
  });
});

describe('open probes', () => {
  it('GET /healthz answers 200 without authentication', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 with readiness only (no nodes), and 503 while draining', async () => {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready' });
    // The live nodes are behind a key (metrics:read).
    expectProblem(await app.inject({ method: 'GET', url: '/nodes' }), 401);
    const nodes = await app.inject({ method: 'GET', url: '/nodes', headers });
    expect(nodes.json()).toEqual({ size: 0, nodes: [] });
    ready = false;
    expectProblem(await app.inject({ method: 'GET', url: '/readyz' }), 503);
  });
});

describe('logs', () => {
  it('never contain a token or the Authorization header, also for refused requests', async () => {
    await app.inject({ method: 'GET', url: '/schedules', headers });
    await app.inject({ method: 'POST', url: '/schedules', headers, payload: { name: '' } });
    await app.inject({ method: 'GET', url: '/schedules', headers: { authorization: 'Bearer pk_wrongwrongwrongwrongwrongwrongwrongwrongwro' } });
    const created = await app.inject({ method: 'POST', url: '/api-keys', headers, payload: { name: 'k' } });
    expect(created.statusCode).toBe(201);
    await app.close();
    expect(logLines.length).toBeGreaterThan(4); // request logging is on
    const all = logLines.join('\n');
    expect(all).not.toContain(token);
    expect(all).not.toContain(created.json().token);
    expect(all).not.toContain('pk_wrong');
    expect(all.toLowerCase()).not.toContain('authorization');
    expect(all).not.toContain('Bearer');
  });
});
