/**
 * Expiry and rotation of API keys over HTTP, with the harness's injected clock (no waiting):
 * a key answers 401 saying it expired from `expiresAt` on (an unknown token keeps the plain
 * detail); after `POST /api-keys/{id}/rotate` both tokens work inside the grace period and the
 * old one is refused after it; the new token is shown once; id, name, scopes and `lastUsed` stay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, UNKNOWN_TOKEN_DETAIL } from '../../src/service/api-keys.js';
import { expectProblem, openHarness, T0, type Harness } from './harness.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const as = (token: string) => ({ authorization: `Bearer ${token}` });
const get = (token: string, url = '/schedules') => h!.app.inject({ method: 'GET', url, headers: as(token) });

describe('expiresAt', () => {
  it('a key works until expiresAt, then answers 401 saying it expired; an unknown token does not', async () => {
    h = await openHarness();
    const res = await h.app.inject({
      method: 'POST',
      url: '/api-keys',
      headers: h.headers,
      payload: { name: 'temp', scopes: ['jobs:read'], expiresAt: '2026-11-21T11:00:00Z' },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ scopes: ['jobs:read'], expiresAt: '2026-11-21T11:00:00.000Z' });

    h.clock.t = Date.parse('2026-11-21T10:59:59.999Z');
    expect((await get(created.token)).statusCode).toBe(200);
    h.clock.t += 1; // at expiresAt
    const expired = expectProblem(await get(created.token), 401);
    expect(expired.detail).toBe('The API key expired at 2026-11-21T11:00:00.000Z.');
    expect(expectProblem(await get('pk_unknown-unknown-unknown-unknown-unknown-00'), 401).detail).toBe(UNKNOWN_TOKEN_DETAIL);

    // Still listed, with its expiry; a patch to null brings it back.
    const listed = (await h.app.inject({ method: 'GET', url: '/api-keys', headers: h.headers })).json();
    expect(listed.apiKeys.find((k: { id: string }) => k.id === created.id).expiresAt).toBe('2026-11-21T11:00:00.000Z');
    const patched = await h.app.inject({ method: 'PATCH', url: `/api-keys/${created.id}`, headers: h.headers, payload: { expiresAt: null } });
    expect(patched.json().expiresAt).toBeNull();
    expect((await get(created.token)).statusCode).toBe(200);
  });

  it('an expiresAt that is not after now, or not an instant, is a 400 naming /expiresAt and stores nothing', async () => {
    h = await openHarness();
    const before = (await h.store.apiKeyList()).length;
    for (const expiresAt of [new Date(T0).toISOString(), '2026-11-21', 'soon']) {
      const body = expectProblem(await h.app.inject({ method: 'POST', url: '/api-keys', headers: h.headers, payload: { name: 'x', expiresAt } }), 400);
      expect(body.errors?.map((e) => e.path)).toEqual(['/expiresAt']);
    }
    expect((await h.store.apiKeyList()).length).toBe(before);
  });
});

describe('POST /api-keys/{id}/rotate', () => {
  it('both tokens work inside the grace period, the old one is refused after it; id, name, scopes, lastUsed stay', async () => {
    h = await openHarness();
    const { apiKey, token: old } = await createApiKey(h.store, h.clock, { name: 'deploy', scopes: ['jobs:read', 'jobs:write'] });
    expect((await get(old)).statusCode).toBe(200);
    await h.app.punctual.lastUsed.flush();

    const res = await h.app.inject({ method: 'POST', url: `/api-keys/${apiKey.id}/rotate`, headers: h.headers, payload: { gracePeriodSeconds: 600 } });
    expect(res.statusCode).toBe(200);
    const rotated = res.json();
    expect(rotated).toMatchObject({ id: apiKey.id, name: 'deploy', scopes: ['jobs:read', 'jobs:write'], previousTokenExpiresAt: new Date(T0 + 600_000).toISOString() });
    expect(rotated.lastUsed).toBe(new Date(T0).toISOString());
    expect(rotated.token).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(rotated.token).not.toBe(old);

    h.clock.t = T0 + 599_999;
    expect((await get(old)).statusCode).toBe(200);
    expect((await get(rotated.token)).statusCode).toBe(200);
    h.clock.t = T0 + 600_000;
    expect(expectProblem(await get(old), 401).detail).toMatch(/replaced by a rotation/);
    expect((await get(rotated.token)).statusCode).toBe(200);
    // The token is never shown again.
    const read = await h.app.inject({ method: 'GET', url: `/api-keys/${apiKey.id}`, headers: h.headers });
    expect(read.body).not.toContain(rotated.token);
  });

  it('without a body the grace is 3,600 s; 0 refuses the old token at once; bad values are 400; unknown ids 404', async () => {
    h = await openHarness();
    const a = await createApiKey(h.store, h.clock, { name: 'a' });
    const r = await h.app.inject({ method: 'POST', url: `/api-keys/${a.apiKey.id}/rotate`, headers: h.headers });
    expect(r.statusCode).toBe(200);
    expect(r.json().previousTokenExpiresAt).toBe(new Date(T0 + 3_600_000).toISOString());

    const b = await createApiKey(h.store, h.clock, { name: 'b' });
    await h.app.inject({ method: 'POST', url: `/api-keys/${b.apiKey.id}/rotate`, headers: h.headers, payload: { gracePeriodSeconds: 0 } });
    expectProblem(await get(b.token), 401);

    for (const gracePeriodSeconds of [-1, 604_801, 1.5]) {
      const bad = await h.app.inject({ method: 'POST', url: `/api-keys/${a.apiKey.id}/rotate`, headers: h.headers, payload: { gracePeriodSeconds } });
      expect(expectProblem(bad, 400).errors?.[0]?.path).toBe('/gracePeriodSeconds');
    }
    expectProblem(await h.app.inject({ method: 'POST', url: '/api-keys/019a4f10-0c00-7a2e-b7d4-8e3f5a1c6b92/rotate', headers: h.headers }), 404);
  });
});
