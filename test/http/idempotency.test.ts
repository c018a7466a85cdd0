/**
 * Idempotency-Key on the POSTs that create or trigger (docs/interface.md, "Idempotency-Key"),
 * through the app (`inject`) on a real SQLite file: replays, another body, concurrent duplicates,
 * keys of other API keys, kept 4xx, freed 5xx, invalid keys, the abandoned and the pruned record.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Pruner } from '../../src/dispatch/maintenance/pruner.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { IDEMPOTENCY_ABANDON_MS, IDEMPOTENCY_RETENTION_MS } from '../../src/store/rules/idempotency.js';
import { expectProblem, openHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await openHarness();
});
afterEach(async () => {
  await h.close();
});

const schedule = { name: 'invoice', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/hook' };
const cron = { expression: '0 9 * * *', endpoint: 'https://example.com/hook' };

function post(url: string, key: string | null, payload?: object, headers = h.headers) {
  return h.app.inject({ method: 'POST', url, headers: { ...headers, ...(key === null ? {} : { 'idempotency-key': key }) }, ...(payload && { payload }) });
}

describe('Idempotency-Key', () => {
  it.each([
    ['/schedules', schedule, 201],
    ['/schedules/batch', { schedules: [schedule, { ...schedule, name: 'two' }] }, 201],
    ['/cron', cron, 201],
  ])('POST %s: the same key and body replay the first answer, with Idempotent-Replayed: true, and create nothing', async (url, body, status) => {
    const first = await post(url, 'order-1042', body);
    expect(first.statusCode).toBe(status);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    h.clock.t += 5_000;
    const again = await post(url, 'order-1042', body);
    expect(again.statusCode).toBe(status);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.body).toBe(first.body);
    const jobs = [...(await h.store.scheduleList()), ...(await h.store.cronList())];
    expect(jobs).toHaveLength(url === '/schedules/batch' ? 2 : 1);
  });

  it('POST …/trigger: a replay answers the same execution and makes no second one', async () => {
    const s = (await post('/schedules', null, schedule)).json<{ id: string }>();
    const c = (await post('/cron', null, cron)).json<{ id: string }>();
    for (const url of [`/schedules/${s.id}/trigger`, `/cron/${c.id}/trigger`]) {
      const first = await post(url, 'run-now');
      expect(first.statusCode).toBe(202);
      const again = await post(url, 'run-now');
      expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([202, 'true', first.body]);
    }
    for (const [jobType, jobId] of [['schedule', s.id], ['cron', c.id]] as const) {
      expect((await h.store.executionList({ jobType, jobId, limit: 10, cursor: null })).executions).toHaveLength(1);
    }
    // Without the key, a second trigger of the schedule is refused as today (it is no longer Pending).
    expectProblem(await post(`/schedules/${s.id}/trigger`, null), 409);
  });

  it('the same key with another body is a 422 naming the header, and changes nothing', async () => {
    await post('/schedules', 'k1', schedule);
    const res = await post('/schedules', 'k1', { ...schedule, name: 'other' });
    const body = expectProblem(res, 422);
    expect(body.errors).toEqual([{ path: '/headers/idempotency-key', message: expect.stringMatching(/another request body/) }]);
    expect(await h.store.scheduleList()).toHaveLength(1);
  });

  it('a key is per path: the same key on another route is another request', async () => {
    expect((await post('/schedules', 'k1', schedule)).statusCode).toBe(201);
    expect((await post('/cron', 'k1', cron)).statusCode).toBe(201);
  });

  it('two requests with the same key at once create one job: the other gets a 409 or the replay', async () => {
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all([post('/schedules', `same-${round}`, schedule), post('/schedules', `same-${round}`, schedule)]);
      const created = results.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
      expect(created).toHaveLength(1);
      for (const other of results.filter((r) => r !== created[0])) {
        if (other.statusCode === 409) expect(expectProblem(other, 409).errors?.[0]?.path).toBe('/headers/idempotency-key');
        else expect([other.statusCode, other.headers['idempotent-replayed'], other.body]).toEqual([201, 'true', created[0]!.body]);
      }
      expect(await h.store.scheduleList()).toHaveLength(round + 1);
    }
  });

  it('another API key with the same Idempotency-Key is independent', async () => {
    const other = await createApiKey(h.store, h.clock, { name: 'other' });
    const a = await post('/schedules', 'shared', schedule);
    const b = await post('/schedules', 'shared', schedule, { authorization: `Bearer ${other.token}` });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json<{ id: string }>().id).not.toBe(a.json<{ id: string }>().id);
    expect(await h.store.scheduleList()).toHaveLength(2);
  });

  it('a 400 answer is kept and replayed too', async () => {
    const bad = { ...schedule, endpoint: 'ftp://example.com/x' };
    const first = await post('/schedules', 'bad-1', bad);
    expectProblem(first, 400);
    const again = await post('/schedules', 'bad-1', bad);
    expectProblem(again, 400);
    expect([again.headers['idempotent-replayed'], again.body]).toEqual(['true', first.body]);
    expect(await h.store.scheduleList()).toHaveLength(0);
  });

  it('a 5xx is not kept: the same key runs again, and succeeds once the fault is gone', async () => {
    // A real fault in the real database: a trigger that refuses every new schedule.
    const db = new Database(h.dbFile);
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON schedules BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    const failed = await post('/schedules', 'retry-me', schedule);
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    db.exec('DROP TRIGGER refuse');
    db.close();
    const retried = await post('/schedules', 'retry-me', schedule);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await h.store.scheduleList()).toHaveLength(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a tab', 'a\tb'],
    ['a character beyond ASCII', 'café'],
  ])('an invalid key (%s) is a 400 naming the header, and nothing is created', async (_what, key) => {
    const body = expectProblem(await post('/schedules', key, schedule), 400);
    expect(body.errors?.map((e) => e.path)).toEqual(['/headers/idempotency-key']);
    expect(await h.store.scheduleList()).toHaveLength(0);
  });

  it('a key of 255 printable characters, spaces and quotes included, is taken', async () => {
    const key = `"${' ~!'.repeat(84)}"`;
    expect(key).toHaveLength(254);
    expect((await post('/schedules', key, schedule)).statusCode).toBe(201);
    expect((await post('/schedules', key + 'x', schedule)).statusCode).toBe(201);
    expect((await post('/schedules', key + 'x', schedule)).headers['idempotent-replayed']).toBe('true');
  });

  it('without the header, every request does its work as before', async () => {
    const a = await post('/schedules', null, schedule);
    const b = await post('/schedules', null, schedule);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await h.store.scheduleList()).toHaveLength(2);
  });

  it('a request left running (a crash) blocks its key with 409s, then is taken over after IDEMPOTENCY_ABANDON_MS', async () => {
    const fingerprint = (await import('../../src/http/idempotency.js')).bodyFingerprint(schedule);
    const ref = { apiKeyId: h.keyId, method: 'POST', path: '/schedules', key: 'crashed' };
    expect((await h.store.idempotencyBegin({ ...ref, fingerprint, now: h.clock.now() })).state).toBe('new');
    expectProblem(await post('/schedules', 'crashed', schedule), 409);
    h.clock.t += IDEMPOTENCY_ABANDON_MS;
    const res = await post('/schedules', 'crashed', schedule);
    expect([res.statusCode, res.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect((await post('/schedules', 'crashed', schedule)).headers['idempotent-replayed']).toBe('true');
  });

  it('records are pruned after 24 h (the pruner of main.ts, on the injected clock); the key is then free', async () => {
    await post('/schedules', 'old', schedule);
    h.clock.t += 60_000;
    await post('/schedules', 'young', schedule);
    const pruner = new Pruner({
      prune: (p) => h.store.idempotencyPrune(p),
      what: 'idempotency records',
      clock: h.clock,
      logger: { info: () => undefined, error: () => undefined },
      retentionMs: IDEMPOTENCY_RETENTION_MS,
      batchSize: 1,
      maxPerPass: 10,
    });
    h.clock.t += IDEMPOTENCY_RETENTION_MS - 60_000; // "old" is 24 h old: pruned once older
    expect(await pruner.runOnce()).toBe(0);
    h.clock.t += 1;
    expect(await pruner.runOnce()).toBe(1); // "old" only
    const again = await post('/schedules', 'old', { ...schedule, name: 'new body' });
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expectProblem(await post('/schedules', 'young', { ...schedule, name: 'new body' }), 422);
  });
});
