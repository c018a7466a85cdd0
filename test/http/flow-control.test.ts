/**
 * Flow-control keys over HTTP (docs/flow-control.md): PUT creates (201) then replaces (200), GET
 * one and the list with the live state, keys named only by jobs listed `configured: false`,
 * pause and resume, DELETE, the 400 problems naming the field, the scopes, and `flowControlKey`
 * on jobs and executions (`waitingFor`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/service/api-keys.js';
import { expectProblem, openHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h?.close();
});

const send = (method: 'POST' | 'PATCH' | 'GET' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  h.app.inject({ method, url, headers: h.headers, ...(payload !== undefined && { payload: payload as object }) });

describe('flow-control keys over HTTP', () => {
  it('PUT creates (201) then replaces (200); GET shows limits and live state; DELETE removes (204, then 404)', async () => {
    const created = await send('PUT', '/flow-control-keys/slack:T1', { rate: 1 });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      key: 'slack:T1',
      configured: true,
      parallelism: null,
      rate: 1,
      period: 1000,
      paused: false,
      holdUntil: null,
      waiting: 0,
      inFlight: 0,
      rateUsed: 0,
      oldestWaitingSince: null,
      createdAt: '2026-11-21T10:00:00.000Z',
      updatedAt: '2026-11-21T10:00:00.000Z',
    });
    const replaced = await send('PUT', '/flow-control-keys/slack:T1', { parallelism: 10, rate: 10, period: 1000 });
    expect([replaced.statusCode, replaced.json().parallelism, replaced.json().rate]).toEqual([200, 10, 10]);
    expect((await send('GET', '/flow-control-keys/slack:T1')).json()).toMatchObject({ parallelism: 10, rate: 10, rateUsed: 0 });
    expect((await send('DELETE', '/flow-control-keys/slack:T1')).statusCode).toBe(204);
    expectProblem(await send('DELETE', '/flow-control-keys/slack:T1'), 404);
    const gone = await send('GET', '/flow-control-keys/slack:T1');
    expect([gone.statusCode, gone.json()]).toEqual([200, null]);
  });

  it('answers 400 naming the field for bad limits and bad keys, and changes nothing', async () => {
    const cases: [string, unknown, string][] = [
      ['k', {}, '/parallelism'],
      ['k', { parallelism: 0 }, '/parallelism'],
      ['k', { parallelism: 10_001 }, '/parallelism'],
      ['k', { rate: 100_001 }, '/rate'],
      ['k', { rate: 5, period: 999 }, '/period'],
      ['k', { rate: 5, period: 86_400_001 }, '/period'],
      ['k', { rate: 5, other: 1 }, '/other'],
    ];
    for (const [key, body, path] of cases) {
      const p = expectProblem(await send('PUT', `/flow-control-keys/${key}`, body), 400);
      expect(p.errors?.map((e) => e.path), JSON.stringify(body)).toContain(path);
    }
    expectProblem(await send('PUT', '/flow-control-keys/a%20b', { rate: 1 }), 400);
    expectProblem(await send('PUT', `/flow-control-keys/${'x'.repeat(129)}`, { rate: 1 }), 400);
    expect((await send('GET', '/flow-control-keys')).json()).toEqual({ size: 0, flowControlKeys: [] });
    // paused without limits is allowed
    expect((await send('PUT', '/flow-control-keys/hold-all', { paused: true })).statusCode).toBe(201);
    await send('DELETE', '/flow-control-keys/hold-all');
  });

  it('jobs name a key; a key never configured is listed without limits; its calls wait, shown as waitingFor flowControl', async () => {
    const s = await send('POST', '/schedules', {
      name: 's',
      scheduledAt: '2026-11-21T10:00:00Z',
      endpoint: 'https://example.com/s',
      flowControlKey: 'billing-api',
    });
    expect(s.statusCode).toBe(201);
    expect(s.json().flowControlKey).toBe('billing-api');
    const c = await send('POST', '/cron', { expression: '0 * * * *', endpoint: 'https://example.com/c', flowControlKey: 'other' });
    expect(c.json().flowControlKey).toBe('other');
    expect((await send('PATCH', `/cron/${c.json().id}`, { flowControlKey: null })).json().flowControlKey).toBeNull();
    expectProblem(await send('POST', '/cron', { expression: '0 * * * *', endpoint: 'https://example.com/c', flowControlKey: 'a b' }), 400);

    expect((await send('GET', '/schedules?flowControlKey=billing-api')).json()).toMatchObject({ size: 1, schedules: [{ id: s.json().id }] });
    expect((await send('GET', '/cron?flowControlKey=billing-api')).json()).toMatchObject({ size: 0 });
    expect(expectProblem(await send('GET', '/schedules?flowControlKey=a%20b'), 400).errors?.map((e) => e.path)).toEqual(['/query/flowControlKey']);

    const list = (await send('GET', '/flow-control-keys')).json();
    expect(list).toMatchObject({ size: 1, flowControlKeys: [{ key: 'billing-api', configured: false, parallelism: null, rate: null, waiting: 0 }] });

    // Paused: the due call waits as a Pending execution with waitingFor flowControl.
    expectProblem(await send('POST', '/flow-control-keys/billing-api/pause'), 404);
    const paused = (await send('PUT', '/flow-control-keys/billing-api', { paused: true })).json();
    expect(paused).toMatchObject({ configured: true, paused: true, parallelism: null });
    const claimed = await h.store.claimDue({ now: h.clock.now() + 1, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
    expect(claimed.claimed).toEqual([]);
    const page = (await send('GET', `/schedules/${s.json().id}/executions`)).json();
    expect(page.executions[0]).toMatchObject({ status: 'Pending', flowControlKey: 'billing-api', waitingFor: 'flowControl' });
    expect((await send('GET', '/flow-control-keys/billing-api')).json()).toMatchObject({ waiting: 1, inFlight: 0, oldestWaitingSince: '2026-11-21T10:00:00.000Z' });
    expect((await send('POST', '/flow-control-keys/billing-api/resume')).json()).toMatchObject({ paused: false });
  });

  it('reads need jobs:read, changes jobs:write', async () => {
    const { token: reader } = await createApiKey(h.store, h.clock, { name: 'reader', scopes: ['jobs:read'] });
    const as = (method: 'GET' | 'PUT', url: string, payload?: unknown) =>
      h.app.inject({ method, url, headers: { authorization: `Bearer ${reader}` }, ...(payload !== undefined && { payload: payload as object }) });
    expect((await as('GET', '/flow-control-keys')).statusCode).toBe(200);
    expectProblem(await as('PUT', '/flow-control-keys/k', { rate: 1 }), 403);
  });
});
