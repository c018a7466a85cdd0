import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { digestToken } from '../../src/service/tokens.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const clock = { t: T0, now() { return this.t; } };

let dir: string;
let store: Store;
let app: FastifyInstance;
let token: string;
let keyId: string;

beforeEach(async () => {
  clock.t = T0;
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-keys-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
  app = await buildApp({ store, clock });
  const created = await createApiKey(store, clock, { name: 'admin' });
  token = created.token;
  keyId = created.apiKey.id;
});

afterEach(async () => {
  await app.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const auth = (t = token) => ({ authorization: `Bearer ${t}` });

describe('authentication', () => {
  it.each([
    ['no header', {}],
    ['another scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['no token', { authorization: 'Bearer ' }],
    ['scheme only', { authorization: 'Bearer' }],
    ['unknown token', { authorization: 'Bearer pk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
  ])('refuses %s with 401, WWW-Authenticate: Bearer and a problem', async (_label, headers) => {
    const res = await app.inject({ method: 'GET', url: '/api-keys', headers });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ status: 401, title: 'Unauthenticated' });
    expect(typeof body.type).toBe('string');
    expect(typeof body.detail).toBe('string');
  });

  it('accepts the scheme in any case', async () => {
    const res = await app.inject({ method: 'GET', url: '/api-keys', headers: { authorization: `bEaReR ${token}` } });
    expect(res.statusCode).toBe(200);
  });

  it('checks auth before the body: an unauthenticated bad request is a 401, not a 400', async () => {
    const res = await app.inject({ method: 'POST', url: '/schedules', payload: '{not json', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(401);
  });

  it('refuses a Disabled key with 403, from the very next request, and accepts it again once enabled', async () => {
    const other = await createApiKey(store, clock, { name: 'other' });
    expect((await app.inject({ method: 'GET', url: '/schedules', headers: auth(other.token) })).statusCode).toBe(200);

    const off = await app.inject({ method: 'PATCH', url: `/api-keys/${other.apiKey.id}`, headers: auth(), payload: { status: 'Disabled' } });
    expect(off.statusCode).toBe(200);
    expect(off.json().status).toBe('Disabled');

    const refused = await app.inject({ method: 'GET', url: '/schedules', headers: auth(other.token) });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ status: 403, title: 'Forbidden' });

    await app.inject({ method: 'PATCH', url: `/api-keys/${other.apiKey.id}`, headers: auth(), payload: { status: 'Enabled' } });
    expect((await app.inject({ method: 'GET', url: '/schedules', headers: auth(other.token) })).statusCode).toBe(200);
  });

  it('refuses a key created Disabled', async () => {
    const res = await app.inject({ method: 'POST', url: '/api-keys', headers: auth(), payload: { name: 'off', status: 'Disabled' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().status).toBe('Disabled');
    expect((await app.inject({ method: 'GET', url: '/cron', headers: auth(res.json().token) })).statusCode).toBe(403);
  });

  it('refuses a deleted key on the next request (401)', async () => {
    const other = await createApiKey(store, clock, { name: 'other' });
    expect((await app.inject({ method: 'GET', url: '/cron', headers: auth(other.token) })).statusCode).toBe(200);
    const del = await app.inject({ method: 'DELETE', url: `/api-keys/${other.apiKey.id}`, headers: auth() });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await app.inject({ method: 'GET', url: '/cron', headers: auth(other.token) })).statusCode).toBe(401);
  });

  it('a key may disable itself; its next request is refused', async () => {
    const res = await app.inject({ method: 'PATCH', url: `/api-keys/${keyId}`, headers: auth(), payload: { status: 'Disabled' } });
    expect(res.statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api-keys', headers: auth() })).statusCode).toBe(403);
  });
});

describe('POST /api-keys', () => {
  it('creates an Enabled key and shows its token once', async () => {
    clock.t = T0 + 1234;
    const res = await app.inject({ method: 'POST', url: '/api-keys', headers: auth(), payload: { name: 'ci' } });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsed', 'name', 'previousTokenExpiresAt', 'scopes', 'status', 'token']);
    expect(body).toMatchObject({ name: 'ci', status: 'Enabled', lastUsed: null, createdAt: '2026-11-21T10:00:01.234Z' });
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.token).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);

    // The token works, is stored only as its digest, and appears nowhere else.
    expect((await app.inject({ method: 'GET', url: '/cron', headers: auth(body.token) })).statusCode).toBe(200);
    expect((await store.apiKeyFindByDigest({ digest: digestToken(body.token) }))?.key.id).toBe(body.id);
    const got = await app.inject({ method: 'GET', url: `/api-keys/${body.id}`, headers: auth() });
    expect(got.json()).not.toHaveProperty('token');
    const list = await app.inject({ method: 'GET', url: '/api-keys', headers: auth() });
    expect(list.body).not.toContain(body.token);
    expect(list.body).not.toContain(token);
  });

  it('treats status null as Enabled', async () => {
    const res = await app.inject({ method: 'POST', url: '/api-keys', headers: auth(), payload: { name: 'n', status: null } });
    expect(res.statusCode).toBe(201);
    expect(res.json().status).toBe('Enabled');
  });

  it('reports every problem at once, naming the fields, and stores nothing', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api-keys',
      headers: auth(),
      payload: { name: '', status: 'On', extra: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ status: 400, title: 'Invalid input' });
    const paths = body.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['/extra', '/name', '/status']);
    expect((await store.apiKeyList()).length).toBe(1);
  });

  it('requires name and rejects a blank one', async () => {
    const missing = await app.inject({ method: 'POST', url: '/api-keys', headers: auth(), payload: {} });
    expect(missing.json().errors).toEqual([{ path: '/name', message: 'is required' }]);
    const blank = await app.inject({ method: 'POST', url: '/api-keys', headers: auth(), payload: { name: '   ' } });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().errors).toEqual([{ path: '/name', message: 'must not be empty' }]);
    const num = await app.inject({ method: 'POST', url: '/api-keys', headers: auth(), payload: { name: 5 } });
    expect(num.json().errors).toEqual([{ path: '/name', message: 'must be a string' }]);
  });
});

describe('GET /api-keys and /api-keys/{id}', () => {
  it('lists keys as {size, apiKeys}, oldest first, without tokens', async () => {
    clock.t += 1000;
    await createApiKey(store, clock, { name: 'second' });
    const res = await app.inject({ method: 'GET', url: '/api-keys', headers: auth() });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['apiKeys', 'size']);
    expect(body.size).toBe(2);
    expect(body.apiKeys.map((k: { name: string }) => k.name)).toEqual(['admin', 'second']);
    for (const k of body.apiKeys) expect(Object.keys(k).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsed', 'name', 'previousTokenExpiresAt', 'scopes', 'status']);
  });

  it('answers 200 null for an unknown id, a UUID or not', async () => {
    for (const id of ['01890a5d-ac96-774b-bcce-b302099a8057', 'nope', '1']) {
      const res = await app.inject({ method: 'GET', url: `/api-keys/${id}`, headers: auth() });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toBe('null');
    }
  });

  it('rejects query parameters it does not know', async () => {
    const res = await app.inject({ method: 'GET', url: '/api-keys?limit=5', headers: auth() });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ path: '/query/limit', message: 'is not an allowed field' }]);
  });
});

describe('lastUsed', () => {
  it('is null until the key is used, then the time of the last use (to within 5 s, here exact)', async () => {
    const other = await createApiKey(store, clock, { name: 'other' });
    const read = async () => (await app.inject({ method: 'GET', url: `/api-keys/${other.apiKey.id}`, headers: auth() })).json();
    expect((await read()).lastUsed).toBeNull();

    clock.t = T0 + 60_000;
    await app.inject({ method: 'GET', url: '/schedules', headers: auth(other.token) });
    clock.t = T0 + 120_000;
    // Shown at once by this node (pending use) ...
    expect((await read()).lastUsed).toBe('2026-11-21T10:01:00.000Z');
    // ... and in the store after the recorder's flush.
    await app.punctual.lastUsed.flush();
    expect((await store.apiKeyGet({ id: other.apiKey.id }))?.lastUsed).toBe(T0 + 60_000);

    clock.t = T0 + 180_000;
    await app.inject({ method: 'GET', url: '/cron', headers: auth(other.token) });
    await app.punctual.lastUsed.flush();
    expect((await store.apiKeyGet({ id: other.apiKey.id }))?.lastUsed).toBe(T0 + 180_000);
    expect((await read()).lastUsed).toBe('2026-11-21T10:03:00.000Z');
  });

  it('is not moved by refused requests', async () => {
    const other = await createApiKey(store, clock, { name: 'other', status: 'Disabled' });
    await app.inject({ method: 'GET', url: '/cron', headers: auth(other.token) });
    await app.punctual.lastUsed.flush();
    expect((await store.apiKeyGet({ id: other.apiKey.id }))?.lastUsed).toBeNull();
  });

  it('is written when the app closes', async () => {
    clock.t = T0 + 5_000;
    await app.inject({ method: 'GET', url: '/cron', headers: auth() });
    await app.close();
    expect((await store.apiKeyGet({ id: keyId }))?.lastUsed).toBe(T0 + 5_000);
  });
});

describe('PATCH and DELETE /api-keys/{id}', () => {
  it('renames a key and keeps the absent fields', async () => {
    const res = await app.inject({ method: 'PATCH', url: `/api-keys/${keyId}`, headers: auth(), payload: { name: 'renamed' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: keyId, name: 'renamed', status: 'Enabled' });
    expect(res.json()).not.toHaveProperty('token');
  });

  it('answers 404 for an unknown id, 400 for a bad body', async () => {
    const unknown = await app.inject({
      method: 'PATCH',
      url: '/api-keys/01890a5d-ac96-774b-bcce-b302099a8057',
      headers: auth(),
      payload: { name: 'x' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    const notUuid = await app.inject({ method: 'PATCH', url: '/api-keys/abc', headers: auth(), payload: { name: 'x' } });
    expect(notUuid.statusCode).toBe(404);
    const bad = await app.inject({ method: 'PATCH', url: `/api-keys/${keyId}`, headers: auth(), payload: { status: null, token: 'x' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { path: string }) => e.path).sort()).toEqual(['/status', '/token']);
  });

  it('deletes a key: then GET is null, DELETE again is 404', async () => {
    const other = await createApiKey(store, clock, { name: 'other' });
    expect((await app.inject({ method: 'DELETE', url: `/api-keys/${other.apiKey.id}`, headers: auth() })).statusCode).toBe(204);
    expect((await app.inject({ method: 'GET', url: `/api-keys/${other.apiKey.id}`, headers: auth() })).body).toBe('null');
    expect((await app.inject({ method: 'DELETE', url: `/api-keys/${other.apiKey.id}`, headers: auth() })).statusCode).toBe(404);
  });
});
