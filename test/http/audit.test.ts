/**
 * The audit log at the HTTP layer (docs/keys-and-audit.md): `X-Request-Id` on every answer (the client's
 * when valid, else a new one), the same id in the logs (`reqId`) and in the event of a change;
 * the events the routes write, with the key as actor; failed sign-ins counted; GET /audit-events,
 * its filters, paging and the 400 problems naming the query parameter. The store's rules are
 * test/store/conformance/audit.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogger } from '../support/logger.js';
import { expectProblem, openHarness, T0, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const CRON = { expression: '0 * * * *', endpoint: 'https://example.com/hook' };

describe('X-Request-Id', () => {
  it('answers every request with an id: the client\'s when valid, else a new one; the same in the logs and the event', async () => {
    const log = captureLogger({ level: 'info' });
    h = await openHarness({ logger: log.logger });
    const mine = await h.app.inject({ method: 'POST', url: '/cron', headers: { ...h.headers, 'x-request-id': 'deploy-42:step.1' }, payload: CRON });
    expect(mine.statusCode).toBe(201);
    expect(mine.headers['x-request-id']).toBe('deploy-42:step.1');
    for (const bad of ['has space', 'x'.repeat(129), 'é']) {
      const res = await h.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': bad } });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    }
    // Errors carry it too: a 401 and a 404.
    const unauth = await h.app.inject({ method: 'GET', url: '/cron' });
    expect(unauth.statusCode).toBe(401);
    expect(unauth.headers['x-request-id']).toEqual(expect.any(String));
    expect((await h.app.inject({ method: 'GET', url: '/nowhere', headers: h.headers })).headers['x-request-id']).toEqual(expect.any(String));
    expect(log.records().some((l) => l.reqId === 'deploy-42:step.1')).toBe(true);
    const events = (await h.app.inject({ method: 'GET', url: '/audit-events?action=cron.create', headers: h.headers })).json();
    expect(events.events[0]).toMatchObject({ requestId: 'deploy-42:step.1', actor: { keyId: h.keyId, keyName: 'harness' }, sourceAddress: '127.0.0.1' });
  });
});

describe('GET /audit-events', () => {
  it('lists the changes the routes made, newest first, with the key as actor', async () => {
    h = await openHarness();
    const c = (await h.app.inject({ method: 'POST', url: '/cron', headers: h.headers, payload: CRON })).json();
    await h.app.inject({ method: 'PATCH', url: `/cron/${c.id}`, headers: h.headers, payload: { status: 'Paused' } });
    await h.app.inject({ method: 'PATCH', url: `/cron/${c.id}`, headers: h.headers, payload: { status: 'Active' } });
    await h.app.inject({ method: 'PATCH', url: `/cron/${c.id}`, headers: h.headers, payload: { name: 'n' } });
    expect((await h.app.inject({ method: 'POST', url: `/cron/${c.id}/trigger`, headers: h.headers })).statusCode).toBe(202);
    expect((await h.app.inject({ method: 'DELETE', url: `/cron/${c.id}`, headers: h.headers })).statusCode).toBe(204);
    const s = (await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, payload: { name: 'once', scheduledAt: new Date(T0 + 60_000).toISOString(), endpoint: CRON.endpoint } })).json();
    const k = (await h.app.inject({ method: 'POST', url: '/api-keys', headers: h.headers, payload: { name: 'ci' } })).json();
    const ch = (await h.app.inject({
      method: 'POST', url: '/notification-channels', headers: h.headers,
      payload: { name: 'ops', type: 'slack', url: 'https://hooks.slack.com/services/T1/B1/very-secret-token', events: ['execution.failed'] },
    })).json();
    expect(ch.id).toEqual(expect.any(String));
    // A refused change writes nothing: an unknown id.
    expect((await h.app.inject({ method: 'PATCH', url: `/api-keys/${c.id}`, headers: h.headers, payload: { name: 'x' } })).statusCode).toBe(404);

    const res = await h.app.inject({ method: 'GET', url: '/audit-events', headers: h.headers });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page.events.map((e: { action: string }) => e.action)).toEqual([
      'channel.create', 'apiKey.create', 'schedule.create', 'cron.delete', 'cron.trigger', 'cron.update', 'cron.resume', 'cron.pause', 'cron.create',
    ]);
    expect(page).toMatchObject({ size: 9, nextCursor: null });
    expect(page.events[1]).toMatchObject({ resourceType: 'apiKey', resourceId: k.id, actor: { keyId: h.keyId, keyName: 'harness' } });
    expect(page.events[2]).toMatchObject({ resourceType: 'schedule', resourceId: s.id });
    expect(page.events[0].changes.url).toEqual({ after: '[redacted]' });
    expect(page.events[0].occurredAt).toBe(new Date(T0).toISOString());
    expect(res.body).not.toContain('very-secret-token');
    expect(res.body).not.toContain(k.token);

    const filtered = await h.app.inject({ method: 'GET', url: `/audit-events?resourceType=cronJob&resourceId=${c.id}&limit=2`, headers: h.headers });
    const first = filtered.json();
    expect(first.events.map((e: { action: string }) => e.action)).toEqual(['cron.delete', 'cron.trigger']);
    const next = await h.app.inject({ method: 'GET', url: `/audit-events?resourceType=cronJob&resourceId=${c.id}&limit=2&cursor=${first.nextCursor}`, headers: h.headers });
    expect(next.json().events.map((e: { action: string }) => e.action)).toEqual(['cron.update', 'cron.resume']);
    const byKey = await h.app.inject({ method: 'GET', url: `/audit-events?actorKeyId=${h.keyId}&action=apiKey.create`, headers: h.headers });
    expect(byKey.json().size).toBe(1);
    const window = `from=${encodeURIComponent(new Date(T0 + 1).toISOString())}&to=${encodeURIComponent(new Date(T0 + 2).toISOString())}`;
    expect((await h.app.inject({ method: 'GET', url: `/audit-events?${window}`, headers: h.headers })).json().size).toBe(0);
  });

  it('refuses bad filters with a 400 naming the parameter, and needs a key', async () => {
    h = await openHarness();
    for (const [query, path] of [
      ['action=cron.explode', '/query/action'],
      ['resourceType=planet', '/query/resourceType'],
      ['from=yesterday', '/query/from'],
      ['to=2026-13-01T00:00:00Z', '/query/to'],
      ['limit=0', '/query/limit'],
      ['cursor=nope', '/query/cursor'],
      ['resourceId=', '/query/resourceId'],
      ['colour=red', '/query/colour'],
    ] as const) {
      const body = expectProblem(await h.app.inject({ method: 'GET', url: `/audit-events?${query}`, headers: h.headers }), 400);
      expect(body.errors?.map((e) => e.path)).toContain(path);
    }
    expectProblem(await h.app.inject({ method: 'GET', url: '/audit-events' }), 401);
  });

  it('counts failed sign-ins per address and minute', async () => {
    h = await openHarness();
    for (let i = 0; i < 3; i++) await h.app.inject({ method: 'GET', url: '/cron', headers: { authorization: 'Bearer wrong' } });
    h.clock.t += 60_000;
    await h.app.inject({ method: 'GET', url: '/cron', headers: { authorization: 'Bearer wrong' } });
    const events = (await h.app.inject({ method: 'GET', url: '/audit-events?action=auth.failure', headers: h.headers })).json().events;
    expect(events.map((e: { changes: unknown; resourceId: string }) => [e.resourceId, e.changes])).toEqual([
      ['127.0.0.1', { count: { after: 1 } }],
      ['127.0.0.1', { count: { after: 3 } }],
    ]);
  });
});
