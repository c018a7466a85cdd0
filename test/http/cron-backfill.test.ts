/**
 * POST /cron/{id}/backfill over HTTP (docs/cron.md, "Backfill"): the 202 and its shapes, no
 * duplicate on a second call, the 400s naming their field (and changing nothing), the 404s.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { expectProblem, openHarness, snapshot, T0, type Harness } from './harness.js';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

let h: Harness;
let woken: number[];

beforeEach(async () => {
  woken = [];
  h = await openHarness({ wake: (at) => woken.push(at) });
});
afterEach(async () => {
  await h.close();
});

/** A cron job every 10 minutes (UTC), created two hours before now; it has never run. */
async function job(expression = '*/10 * * * *'): Promise<string> {
  h.clock.t = T0 - 2 * HOUR;
  const res = await h.app.inject({ method: 'POST', url: '/cron', headers: h.headers, payload: { expression, endpoint: 'https://example.com/tick' } });
  expect(res.statusCode).toBe(201);
  h.clock.t = T0;
  woken.length = 0;
  return res.json().id as string;
}
const backfill = (id: string, payload: unknown) =>
  h.app.inject({ method: 'POST', url: `/cron/${id}/backfill`, headers: h.headers, payload: payload as object });

describe('POST /cron/{id}/backfill', () => {
  it('202: an execution for each occurrence in [from, to), oldest first, marked backfill; a second call creates none', async () => {
    const id = await job();
    const res = await backfill(id, { from: iso(T0 - HOUR), to: '2026-11-21T10:00:00Z' });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['count', 'executions']);
    expect(body.count).toBe(6);
    expect(body.executions.map((e: { scheduledFor: string }) => e.scheduledFor)).toEqual(
      [60, 50, 40, 30, 20, 10].map((m) => iso(T0 - m * 60_000)),
    );
    for (const e of body.executions) {
      expect(e).toMatchObject({ jobType: 'cron', jobId: id, status: 'Pending', backfill: true, triggered: false, createdAt: iso(T0), attempts: [] });
    }
    expect(woken).toEqual([T0]);
    const again = await backfill(id, { from: iso(T0 - HOUR), to: iso(T0) });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ count: 0, executions: [] });
    const list = (await h.app.inject({ method: 'GET', url: `/cron/${id}/executions?limit=100`, headers: h.headers })).json();
    expect(list.executions.map((e: { backfill: boolean }) => e.backfill)).toEqual([true, true, true, true, true, true]);
    const cron = (await h.app.inject({ method: 'GET', url: `/cron/${id}`, headers: h.headers })).json();
    expect(cron.invocations).toBe(0);
  });

  it('a Paused job is backfilled too', async () => {
    const id = await job();
    expect((await h.app.inject({ method: 'PATCH', url: `/cron/${id}`, headers: h.headers, payload: { status: 'Paused' } })).statusCode).toBe(200);
    expect((await backfill(id, { from: iso(T0 - 30 * 60_000), to: iso(T0) })).json().count).toBe(3);
  });

  it('400 naming the field, and nothing changes', async () => {
    const id = await job('* * * * *');
    const before = await snapshot(h.store);
    const cases: [unknown, string][] = [
      [{ from: iso(T0 - HOUR) }, '/to'],
      [{ to: iso(T0) }, '/from'],
      [{ from: 'yesterday', to: iso(T0) }, '/from'],
      [{ from: iso(T0), to: iso(T0) }, '/from'], // from must be before to
      [{ from: iso(T0 - HOUR), to: iso(T0 + 1) }, '/to'], // to after now
      [{ from: iso(T0 - 8 * 24 * HOUR), to: iso(T0 - 7 * 24 * HOUR - HOUR) }, '/from'], // older than the retention (7d)
      [{ from: iso(T0 - 17 * HOUR), to: iso(T0) }, '/to'], // 1,020 occurrences: more than 1,000
      [{ from: iso(T0 - HOUR), to: iso(T0), extra: 1 }, '/extra'],
    ];
    for (const [payload, path] of cases) {
      const p = expectProblem(await backfill(id, payload), 400);
      expect(p.errors?.map((e) => e.path), JSON.stringify(payload)).toContain(path);
    }
    expect(await snapshot(h.store)).toEqual(before);
    expect(woken).toEqual([]);
    // 1,000 exactly is accepted.
    expect((await backfill(id, { from: iso(T0 - 1000 * 60_000), to: iso(T0) })).json().count).toBe(1000);
  });

  it('404 for an unknown cron job or an id that is not a UUID', async () => {
    const range = { from: iso(T0 - HOUR), to: iso(T0) };
    expectProblem(await backfill(newId(), range), 404);
    expectProblem(await backfill('nope', range), 404);
  });
});
