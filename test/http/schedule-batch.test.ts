/**
 * POST /schedules/batch (docs/interface.md, "Batch create"), through the app on a real SQLite file:
 * all or nothing, errors named by item index, the rules of a single create, limits.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectProblem, openHarness, snapshot, T0, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await openHarness({ limits: { batch: 5 } });
});
afterEach(async () => {
  await h.close();
});

const item = (n: number, o: Record<string, unknown> = {}) => ({
  name: `reminder ${n}`,
  scheduledAt: new Date(T0 + 60_000 * (10 - n)).toISOString(),
  endpoint: `https://example.com/hook/${n}`,
  data: { n },
  ...o,
});
const post = (body: unknown) => h.app.inject({ method: 'POST', url: '/schedules/batch', headers: h.headers, payload: body as object });

describe('POST /schedules/batch', () => {
  it('creates every schedule (201) and answers them in the order of the request, as single creates would', async () => {
    const res = await post({ schedules: [item(1), item(2, { method: 'PUT', tags: ['a'] }), item(3)] });
    expect(res.statusCode).toBe(201);
    const body = res.json() as { size: number; schedules: { id: string; name: string; status: string; method: string }[] };
    expect(body.size).toBe(3);
    expect(body.schedules.map((s) => [s.name, s.status, s.method])).toEqual([
      ['reminder 1', 'Pending', 'POST'],
      ['reminder 2', 'Pending', 'PUT'],
      ['reminder 3', 'Pending', 'POST'],
    ]);
    for (const s of body.schedules) {
      const got = await h.app.inject({ method: 'GET', url: `/schedules/${s.id}`, headers: h.headers });
      expect(got.json()).toEqual(s);
    }
    expect(await h.store.nextDueAt()).toBe(T0 + 60_000 * 7);
  });

  it('a faulty item is a 400 naming it by index, with every problem of every item, and nothing is created', async () => {
    const before = await snapshot(h.store);
    const problem = expectProblem(await post({ schedules: [item(1), item(2, { endpoint: 'not a url' }), item(3, { name: '' })] }), 400);
    expect(problem.errors!.map((e) => e.path).sort()).toEqual(['/schedules/1/endpoint', '/schedules/2/name']);
    expect(await snapshot(h.store)).toEqual(before);
  });

  it('applies the rules a single create applies beyond the schema: data with GET, a name both plain and secret', async () => {
    const before = await snapshot(h.store);
    const problem = expectProblem(
      await post({
        schedules: [item(1), item(2, { method: 'GET' }), item(3, { headers: { 'X-K': 'a' }, secretHeaders: { 'x-k': 'b' } })],
      }),
      400,
    );
    expect(problem.errors!.map((e) => e.path).sort()).toEqual(['/schedules/1/data', '/schedules/2/secretHeaders/x-k']);
    expect(await snapshot(h.store)).toEqual(before);
  });

  it('an empty list, or more than PUNCTUAL_MAX_BATCH, is a 400 on /schedules', async () => {
    expect(expectProblem(await post({ schedules: [] }), 400).errors!.map((e) => e.path)).toEqual(['/schedules']);
    const six = Array.from({ length: 6 }, (_, i) => item(i));
    const tooMany = expectProblem(await post({ schedules: six }), 400);
    expect(tooMany.errors).toEqual([{ path: '/schedules', message: 'must have at most 5 schedules (PUNCTUAL_MAX_BATCH)' }]);
    expect(await h.store.scheduleList()).toEqual([]);
  });

  it('seals the secrets of each item and shows names only', async () => {
    const res = await post({ schedules: [item(1, { secretHeaders: { 'X-Api-Key': 'batch-secret-value' } })] });
    expect(res.statusCode).toBe(201);
    expect(res.body).not.toContain('batch-secret-value');
    expect((res.json() as { schedules: { secretHeaderNames: string[] }[] }).schedules[0]!.secretHeaderNames).toEqual(['X-Api-Key']);
    const [stored] = await h.store.scheduleList();
    expect(JSON.stringify(stored)).not.toContain('batch-secret-value');
  });
});
