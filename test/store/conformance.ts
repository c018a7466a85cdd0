/**
 * The Store conformance suite (after River's `riverdrivertest.Exercise`): one set of tests that
 * every store implementation must pass. It uses only the `Store` interface, so the PostgreSQL
 * store (issue #4) runs exactly these tests by calling {@link exerciseStore} with its factory.
 *
 * Time is a fixed value (`T0`) plus offsets: the store takes `now` as a parameter and reads no
 * clock, so nothing here sleeps. Cron occurrences come from a trivial `nextOccurrence`; the real
 * cron engine is tested on its own.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { AttemptOutcome, ClaimedExecution, CronJob } from '../../src/domain/types.js';
import type { ClaimDueParams, Store } from '../../src/store/store.js';

/** 2030-01-01T00:00:00.000Z: the suite's "now". */
export const T0 = Date.UTC(2030, 0, 1);

/** What a store factory hands the suite. */
export interface StoreUnderTest {
  /** A store on a fresh, empty database; opened, migrated or not (the suite migrates). */
  store: Store;
  /** Releases the store and its database; must tolerate a store already closed. */
  cleanup: () => Promise<void>;
}

/** A UUID whose lexical order is `n`'s: lets a test make id order differ from creation order. */
function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Default lease of the tests' claims: long enough never to expire unless a test means it to. */
const LONG_LEASE = 30 * 86_400_000;

/** The trivial cron engine of these tests: one occurrence a minute after `after`. */
const everyMinute = (_job: CronJob, after: number): number => after + 60_000;

/**
 * Registers the conformance tests of the `Store` contract (src/store/store.ts) for one store.
 * @param name shown in the describe block, e.g. `sqlite`
 * @param factory called before each test for a fresh store on an empty database
 */
export function exerciseStore(name: string, factory: () => Promise<StoreUnderTest>): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
      await store.migrate();
    });
    afterEach(async () => {
      await cleanup();
    });

    // ---- helpers -------------------------------------------------------------------------
    const claim = (now: number, o: Partial<ClaimDueParams> = {}): Promise<ClaimedExecution[]> =>
      store.claimDue({ now, limit: 100, nodeId: 'node-a', leaseMs: LONG_LEASE, nextOccurrence: everyMinute, ...o });

    const newSchedule = (o: { scheduledAt?: number; now?: number; id?: string; data?: object; tags?: string[] } = {}) =>
      store.scheduleCreate({
        id: o.id ?? newId(),
        name: 'job',
        scheduledAt: o.scheduledAt ?? T0,
        endpoint: 'https://example.com/hook',
        data: (o.data ?? { n: 1 }) as Record<string, unknown>,
        tags: o.tags ?? ['a'],
        now: o.now ?? T0 - 60_000,
      });

    const newCron = (o: { nextInvocation?: number; now?: number; id?: string; data?: object | null } = {}) =>
      store.cronCreate({
        id: o.id ?? newId(),
        expression: '* * * * *',
        name: 'every minute',
        timezone: 'Europe/Paris',
        endpoint: 'https://example.com/cron',
        data: (o.data === undefined ? { c: 1 } : o.data) as Record<string, unknown> | null,
        nextInvocation: o.nextInvocation ?? T0,
        now: o.now ?? T0 - 60_000,
      });

    const outcome = (c: ClaimedExecution, o: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
      executionId: c.executionId,
      status: 'Succeeded',
      startedAt: c.scheduledFor + 3,
      durationMs: 12,
      statusCode: 200,
      error: null,
      responseBody: 'ok',
      ...o,
    });

    // ---- lifecycle -------------------------------------------------------------------------
    describe('migrate, ping, close', () => {
      it('migrate is idempotent and keeps the data', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'k', status: 'Enabled', digest: digestOf('t'), now: T0 });
        await store.migrate();
        await store.migrate();
        expect(await store.apiKeyGet({ id: k.id })).toEqual(k);
      });

      it('ping resolves on a working store', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });

      it('after close, the store refuses work with StoreUnavailableError; close again is harmless', async () => {
        await store.close();
        await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.scheduleList()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.close()).resolves.toBeUndefined();
      });
    });

    // ---- API keys --------------------------------------------------------------------------
    describe('API keys', () => {
      it('create returns the key without any secret, never used; get returns the same', async () => {
        const id = newId();
        const k = await store.apiKeyCreate({ id, name: 'ci', status: 'Enabled', digest: digestOf('tok'), now: T0 });
        expect(k).toEqual({ id, name: 'ci', status: 'Enabled', createdAt: T0, lastUsed: null });
        expect(await store.apiKeyGet({ id })).toEqual(k);
      });

      it('create keeps a Disabled status', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'off', status: 'Disabled', digest: digestOf('x'), now: T0 });
        expect(k.status).toBe('Disabled');
      });

      it('get of an unknown id is null', async () => {
        expect(await store.apiKeyGet({ id: newId() })).toBeNull();
      });

      it('list is empty at first, then oldest first whatever the id order', async () => {
        expect(await store.apiKeyList()).toEqual([]);
        for (const [i, n] of [3, 1, 2].entries()) {
          await store.apiKeyCreate({ id: uuid(10 - n), name: `k${n}`, status: 'Enabled', digest: digestOf(`t${n}`), now: T0 + n * 1000 + i });
        }
        expect((await store.apiKeyList()).map((k) => k.name)).toEqual(['k1', 'k2', 'k3']);
      });

      it('update changes only the fields given', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
        expect(await store.apiKeyUpdate({ id: k.id, name: 'b' })).toEqual({ ...k, name: 'b' });
        expect(await store.apiKeyUpdate({ id: k.id, status: 'Disabled' })).toEqual({ ...k, name: 'b', status: 'Disabled' });
        expect(await store.apiKeyUpdate({ id: k.id })).toEqual({ ...k, name: 'b', status: 'Disabled' });
        expect(await store.apiKeyUpdate({ id: k.id, name: 'c', status: 'Enabled' })).toEqual({ ...k, name: 'c' });
        expect(await store.apiKeyGet({ id: k.id })).toEqual({ ...k, name: 'c' });
      });

      it('update of an unknown id is null', async () => {
        expect(await store.apiKeyUpdate({ id: newId(), name: 'x' })).toBeNull();
      });

      it('delete answers true, then false; the key is gone, also by digest', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
        expect(await store.apiKeyDelete({ id: k.id })).toBe(true);
        expect(await store.apiKeyDelete({ id: k.id })).toBe(false);
        expect(await store.apiKeyGet({ id: k.id })).toBeNull();
        expect(await store.apiKeyFindByDigest({ digest: digestOf('a') })).toBeNull();
        expect(await store.apiKeyList()).toEqual([]);
      });

      it('findByDigest finds the key of a digest, Disabled ones included; an unknown digest is null', async () => {
        const a = await store.apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
        const b = await store.apiKeyCreate({ id: newId(), name: 'b', status: 'Disabled', digest: digestOf('b'), now: T0 });
        expect(await store.apiKeyFindByDigest({ digest: digestOf('a') })).toEqual(a);
        expect(await store.apiKeyFindByDigest({ digest: digestOf('b') })).toEqual(b);
        expect(await store.apiKeyFindByDigest({ digest: digestOf('c') })).toBeNull();
      });

      it('touch sets lastUsed of several keys in one call, only ever forward, ignoring unknown ids', async () => {
        const a = await store.apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
        const b = await store.apiKeyCreate({ id: newId(), name: 'b', status: 'Enabled', digest: digestOf('b'), now: T0 });
        await store.apiKeyTouch({ lastUsed: new Map([[a.id, T0 + 5000], [b.id, T0 + 7000], [newId(), T0]]) });
        expect((await store.apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
        expect((await store.apiKeyGet({ id: b.id }))?.lastUsed).toBe(T0 + 7000);
        await store.apiKeyTouch({ lastUsed: new Map([[a.id, T0 + 4000], [b.id, T0 + 8000]]) });
        expect((await store.apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
        expect((await store.apiKeyGet({ id: b.id }))?.lastUsed).toBe(T0 + 8000);
        await store.apiKeyTouch({ lastUsed: new Map() });
        expect((await store.apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
      });

      it('ensure creates an Enabled key with the given id and name when no key has the digest', async () => {
        const id = newId();
        const k = await store.apiKeyEnsure({ id, name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 });
        expect(k).toEqual({ id, name: 'bootstrap', status: 'Enabled', createdAt: T0, lastUsed: null });
        expect(await store.apiKeyFindByDigest({ digest: digestOf('boot') })).toEqual(k);
      });

      it('ensure re-enables and renames the key that has the digest, keeping its id, createdAt and lastUsed', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'old', status: 'Disabled', digest: digestOf('boot'), now: T0 });
        await store.apiKeyTouch({ lastUsed: new Map([[k.id, T0 + 1]]) });
        const e = await store.apiKeyEnsure({ id: newId(), name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 + 99 });
        expect(e).toEqual({ id: k.id, name: 'bootstrap', status: 'Enabled', createdAt: T0, lastUsed: T0 + 1 });
        const again = await store.apiKeyEnsure({ id: newId(), name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 + 200 });
        expect(again).toEqual(e);
        expect(await store.apiKeyList()).toEqual([e]);
      });
    });

    // ---- schedules -------------------------------------------------------------------------
    describe('schedules', () => {
      it('create stores a Pending schedule with every field; get returns the same', async () => {
        const id = newId();
        const data = { nested: { list: [1, 'two', null, true], n: 1.5 }, unicode: 'é 🎉' };
        const s = await store.scheduleCreate({
          id,
          name: 'report',
          scheduledAt: T0 + 123,
          endpoint: 'https://example.com/r?q=1',
          data,
          tags: ['x', 'y'],
          now: T0,
        });
        expect(s).toEqual({
          id,
          name: 'report',
          scheduledAt: T0 + 123,
          status: 'Pending',
          endpoint: 'https://example.com/r?q=1',
          data,
          tags: ['x', 'y'],
          createdAt: T0,
        });
        expect(await store.scheduleGet({ id })).toEqual(s);
      });

      it('no data and no tags read back as {} and []', async () => {
        const s = await newSchedule({ data: {}, tags: [] });
        expect((await store.scheduleGet({ id: s.id }))).toMatchObject({ data: {}, tags: [] });
      });

      it('get of an unknown id is null', async () => {
        expect(await store.scheduleGet({ id: newId() })).toBeNull();
      });

      it('list is empty at first, then oldest first whatever the id order', async () => {
        expect(await store.scheduleList()).toEqual([]);
        await newSchedule({ id: uuid(3), now: T0 + 1 });
        await newSchedule({ id: uuid(1), now: T0 + 3 });
        await newSchedule({ id: uuid(2), now: T0 + 2 });
        expect((await store.scheduleList()).map((s) => s.id)).toEqual([uuid(3), uuid(2), uuid(1)]);
      });

      it('update is partial: absent fields keep their values', async () => {
        const s = await newSchedule();
        let expected = { ...s, name: 'renamed' };
        expect(await store.scheduleUpdate({ id: s.id, name: 'renamed' })).toEqual(expected);
        expected = { ...expected, scheduledAt: T0 + 5000 };
        expect(await store.scheduleUpdate({ id: s.id, scheduledAt: T0 + 5000 })).toEqual(expected);
        expected = { ...expected, endpoint: 'http://other.example/x' };
        expect(await store.scheduleUpdate({ id: s.id, endpoint: 'http://other.example/x' })).toEqual(expected);
        expected = { ...expected, data: { replaced: true } };
        expect(await store.scheduleUpdate({ id: s.id, data: { replaced: true } })).toEqual(expected);
        expected = { ...expected, tags: [] };
        expect(await store.scheduleUpdate({ id: s.id, tags: [] })).toEqual(expected);
        expect(await store.scheduleUpdate({ id: s.id })).toEqual(expected);
        expect(await store.scheduleGet({ id: s.id })).toEqual(expected);
      });

      it("update of an unknown id is 'not_found'", async () => {
        expect(await store.scheduleUpdate({ id: newId(), name: 'x' })).toBe('not_found');
      });

      it("update of a schedule no longer Pending is 'not_pending' and changes nothing", async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        await claim(T0);
        const running = await store.scheduleGet({ id: s.id });
        expect(running?.status).toBe('Running');
        expect(await store.scheduleUpdate({ id: s.id, name: 'late', scheduledAt: T0 + 9999 })).toBe('not_pending');
        expect(await store.scheduleGet({ id: s.id })).toEqual(running);
      });

      it('delete answers true, then false; a deleted schedule is never claimed', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        expect(await store.scheduleDelete({ id: s.id })).toBe(true);
        expect(await store.scheduleDelete({ id: s.id })).toBe(false);
        expect(await store.scheduleGet({ id: s.id })).toBeNull();
        expect(await claim(T0 + 1000)).toEqual([]);
        expect(await store.nextDueAt()).toBeNull();
      });
    });

    // ---- cron jobs -------------------------------------------------------------------------
    describe('cron jobs', () => {
      it('create stores an Active job with 0 invocations; get returns the same', async () => {
        const id = newId();
        const c = await store.cronCreate({
          id,
          expression: '0 9 * * 1-5',
          name: 'weekdays',
          timezone: 'America/New_York',
          endpoint: 'https://example.com/c',
          data: { k: [1, { v: 'w' }] },
          nextInvocation: T0 + 3_600_000,
          now: T0,
        });
        expect(c).toEqual({
          id,
          expression: '0 9 * * 1-5',
          name: 'weekdays',
          invocations: 0,
          timezone: 'America/New_York',
          status: 'Active',
          endpoint: 'https://example.com/c',
          data: { k: [1, { v: 'w' }] },
          createdAt: T0,
          nextInvocation: T0 + 3_600_000,
        });
        expect(await store.cronGet({ id })).toEqual(c);
      });

      it('null name, timezone and data stay null', async () => {
        const c = await store.cronCreate({
          id: newId(),
          expression: '* * * * *',
          name: null,
          timezone: null,
          endpoint: 'https://example.com/c',
          data: null,
          nextInvocation: T0,
          now: T0,
        });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ name: null, timezone: null, data: null });
      });

      it('get of an unknown id is null', async () => {
        expect(await store.cronGet({ id: newId() })).toBeNull();
      });

      it('list is empty at first, then oldest first whatever the id order', async () => {
        expect(await store.cronList()).toEqual([]);
        await newCron({ id: uuid(2), now: T0 + 1 });
        await newCron({ id: uuid(3), now: T0 + 2 });
        await newCron({ id: uuid(1), now: T0 + 3 });
        expect((await store.cronList()).map((c) => c.id)).toEqual([uuid(2), uuid(3), uuid(1)]);
      });

      it('update is partial: absent fields keep their values, null sets null', async () => {
        const c = await newCron();
        let expected: CronJob = { ...c, expression: '*/5 * * * *' };
        expect(await store.cronUpdate({ id: c.id, expression: '*/5 * * * *' })).toEqual(expected);
        expected = { ...expected, name: null, timezone: null };
        expect(await store.cronUpdate({ id: c.id, name: null, timezone: null })).toEqual(expected);
        expected = { ...expected, data: null };
        expect(await store.cronUpdate({ id: c.id, data: null })).toEqual(expected);
        expected = { ...expected, data: { again: 1 }, name: 'n', timezone: 'Asia/Tokyo', endpoint: 'http://e.example/' };
        expect(
          await store.cronUpdate({ id: c.id, data: { again: 1 }, name: 'n', timezone: 'Asia/Tokyo', endpoint: 'http://e.example/' }),
        ).toEqual(expected);
        expect(await store.cronUpdate({ id: c.id })).toEqual(expected);
        expect(await store.cronGet({ id: c.id })).toEqual(expected);
      });

      it('update moves status between Active and Paused', async () => {
        const c = await newCron();
        expect((await store.cronUpdate({ id: c.id, status: 'Paused' }))?.status).toBe('Paused');
        expect((await store.cronGet({ id: c.id }))?.status).toBe('Paused');
        expect((await store.cronUpdate({ id: c.id, status: 'Active' }))?.status).toBe('Active');
      });

      it('update calls recompute with the job as patched and stores its result as nextInvocation', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const seen: CronJob[] = [];
        const u = await store.cronUpdate({
          id: c.id,
          expression: '0 * * * *',
          timezone: null,
          recompute: (job) => {
            seen.push(job);
            return T0 + 3_600_000;
          },
        });
        expect(seen).toEqual([{ ...c, expression: '0 * * * *', timezone: null }]);
        expect(u).toEqual({ ...c, expression: '0 * * * *', timezone: null, nextInvocation: T0 + 3_600_000 });
        expect(await store.cronGet({ id: c.id })).toEqual(u);
      });

      it('update without recompute keeps nextInvocation', async () => {
        const c = await newCron({ nextInvocation: T0 + 42 });
        expect((await store.cronUpdate({ id: c.id, expression: '1 2 3 4 5' }))?.nextInvocation).toBe(T0 + 42);
      });

      it('a recompute that throws fails the update and changes nothing', async () => {
        const c = await newCron();
        const boom = new Error('bad expression');
        await expect(
          store.cronUpdate({
            id: c.id,
            expression: 'nope',
            recompute: () => {
              throw boom;
            },
          }),
        ).rejects.toBe(boom);
        expect(await store.cronGet({ id: c.id })).toEqual(c);
      });

      it('update of an unknown id is null and does not call recompute', async () => {
        let called = false;
        const r = await store.cronUpdate({
          id: newId(),
          name: 'x',
          recompute: () => {
            called = true;
            return T0;
          },
        });
        expect(r).toBeNull();
        expect(called).toBe(false);
      });

      it('delete answers true, then false; a deleted job is never claimed', async () => {
        const c = await newCron({ nextInvocation: T0 });
        expect(await store.cronDelete({ id: c.id })).toBe(true);
        expect(await store.cronDelete({ id: c.id })).toBe(false);
        expect(await store.cronGet({ id: c.id })).toBeNull();
        expect(await claim(T0 + 1000)).toEqual([]);
        expect(await store.nextDueAt()).toBeNull();
      });
    });

    // ---- claimDue ----------------------------------------------------------------------------
    describe('claimDue', () => {
      it('claims a schedule due now, leases it, and marks it Running', async () => {
        const s = await newSchedule({ scheduledAt: T0, data: { hello: 'world' } });
        const claimed = await claim(T0, { nodeId: 'n1', leaseMs: 15_000 });
        expect(claimed).toEqual([
          {
            executionId: expect.any(String),
            jobType: 'schedule',
            jobId: s.id,
            scheduledFor: T0,
            attempt: 1,
            endpoint: s.endpoint,
            data: { hello: 'world' },
            leaseExpiresAt: T0 + 15_000,
          },
        ]);
        expect(claimed[0]!.executionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
      });

      it('never early: a schedule due at now + 1 ms waits for that instant', async () => {
        const s = await newSchedule({ scheduledAt: T0 + 1 });
        expect(await claim(T0)).toEqual([]);
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Pending');
        expect((await claim(T0 + 1)).map((c) => c.jobId)).toEqual([s.id]);
      });

      it('a past schedule is claimed at once', async () => {
        const s = await newSchedule({ scheduledAt: T0 - 86_400_000 });
        expect((await claim(T0)).map((c) => [c.jobId, c.scheduledFor])).toEqual([[s.id, T0 - 86_400_000]]);
      });

      it('a schedule without data is claimed with {}', async () => {
        await newSchedule({ data: {} });
        expect((await claim(T0))[0]?.data).toEqual({});
      });

      it('claims a due cron occurrence, advances nextInvocation with nextOccurrence(job, now), counts it', async () => {
        const c = await newCron({ nextInvocation: T0 - 500 });
        const calls: [CronJob, number][] = [];
        const claimed = await claim(T0, {
          leaseMs: 1000,
          nextOccurrence: (job, after) => {
            calls.push([job, after]);
            return after + 60_000;
          },
        });
        expect(claimed).toEqual([
          {
            executionId: expect.any(String),
            jobType: 'cron',
            jobId: c.id,
            scheduledFor: T0 - 500,
            attempt: 1,
            endpoint: c.endpoint,
            data: { c: 1 },
            leaseExpiresAt: T0 + 1000,
          },
        ]);
        expect(calls).toEqual([[c, T0]]);
        expect(await store.cronGet({ id: c.id })).toEqual({ ...c, invocations: 1, nextInvocation: T0 + 60_000 });
      });

      it('never early: a cron occurrence at now + 1 ms waits for that instant', async () => {
        const c = await newCron({ nextInvocation: T0 + 1 });
        expect(await claim(T0)).toEqual([]);
        expect(await store.cronGet({ id: c.id })).toEqual(c);
        expect((await claim(T0 + 1)).map((x) => x.scheduledFor)).toEqual([T0 + 1]);
      });

      it('occurrences missed while down run once, then the job continues after now', async () => {
        const c = await newCron({ nextInvocation: T0 - 10 * 60_000 });
        const claimed = await claim(T0);
        expect(claimed.map((x) => x.scheduledFor)).toEqual([T0 - 10 * 60_000]);
        expect(await claim(T0)).toEqual([]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
        expect((await claim(T0 + 60_000)).map((x) => x.scheduledFor)).toEqual([T0 + 60_000]);
        expect((await store.cronGet({ id: c.id }))?.invocations).toBe(2);
      });

      it('a cron job without data is claimed with {}', async () => {
        await newCron({ data: null });
        expect((await claim(T0))[0]?.data).toEqual({});
      });

      it('a Paused cron job is not claimed, and runs again once Active', async () => {
        const c = await newCron({ nextInvocation: T0 });
        await store.cronUpdate({ id: c.id, status: 'Paused' });
        expect(await claim(T0 + 5000)).toEqual([]);
        await store.cronUpdate({ id: c.id, status: 'Active', recompute: () => T0 + 6000 });
        expect((await claim(T0 + 6000)).map((x) => x.scheduledFor)).toEqual([T0 + 6000]);
      });

      it('a cron job with no occurrence after now runs its last occurrence and is Paused', async () => {
        const c = await newCron({ nextInvocation: T0 });
        expect((await claim(T0, { nextOccurrence: () => null })).map((x) => x.jobId)).toEqual([c.id]);
        expect(await store.cronGet({ id: c.id })).toEqual({ ...c, status: 'Paused', invocations: 1, nextInvocation: T0 });
        expect(await claim(T0 + 3_600_000)).toEqual([]);
      });

      it('a cron job whose next occurrence is not after now is Paused instead of firing in a loop', async () => {
        const c = await newCron({ nextInvocation: T0 });
        expect(await claim(T0, { nextOccurrence: (_job, after) => after })).toHaveLength(1);
        expect((await store.cronGet({ id: c.id }))?.status).toBe('Paused');
        expect(await claim(T0)).toEqual([]);
      });

      it('an occurrence claimed once is never claimed again, even when a job is set back onto it', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const [first] = await claim(T0);
        expect(first?.scheduledFor).toBe(T0);
        // Resume onto the occurrence that already ran (a clock set back would do the same).
        await store.cronUpdate({ id: c.id, status: 'Paused' });
        await store.cronUpdate({ id: c.id, status: 'Active', recompute: () => T0 });
        expect(await claim(T0 + 1)).toEqual([]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_001 });
      });

      it('two claims at the same now: one execution per occurrence', async () => {
        await newSchedule({ scheduledAt: T0 });
        await newCron({ nextInvocation: T0 });
        const first = await claim(T0);
        const second = await claim(T0, { nodeId: 'node-b' });
        expect(first).toHaveLength(2);
        expect(second).toEqual([]);
      });

      it('concurrent claims share the work out: every item once, none twice', async () => {
        const ids = new Set<string>();
        for (let i = 0; i < 20; i++) ids.add((await newSchedule({ scheduledAt: T0 - i })).id);
        for (let i = 0; i < 5; i++) ids.add((await newCron({ nextInvocation: T0 - i })).id);
        const batches = await Promise.all(
          ['n1', 'n2', 'n3'].map((nodeId) => claim(T0, { nodeId, limit: 10 })),
        );
        const rest = await claim(T0, { limit: 100 });
        const all = [...batches.flat(), ...rest];
        expect(all.map((c) => c.jobId).sort()).toEqual([...ids].sort());
        expect(new Set(all.map((c) => c.executionId)).size).toBe(25);
      });

      it('returns at most limit items, the earliest due first across schedules, cron jobs and leases', async () => {
        // A lease that expires at T0 - 45: claimed at T0 - 1000 with a 955 ms lease, never finished.
        const stale = await newSchedule({ scheduledAt: T0 - 2000 });
        expect(await claim(T0 - 1000, { leaseMs: 955 })).toHaveLength(1);
        const s50 = await newSchedule({ scheduledAt: T0 - 50 });
        const s30 = await newSchedule({ scheduledAt: T0 - 30 });
        const s10 = await newSchedule({ scheduledAt: T0 - 10 });
        const c40 = await newCron({ nextInvocation: T0 - 40 });
        const c20 = await newCron({ nextInvocation: T0 - 20 });
        await newSchedule({ scheduledAt: T0 + 1 }); // not due
        const first = await claim(T0, { limit: 3 });
        expect(first.map((c) => c.jobId)).toEqual([s50.id, stale.id, c40.id]);
        const second = await claim(T0, { limit: 3 });
        expect(second.map((c) => c.jobId)).toEqual([s30.id, c20.id, s10.id]);
        expect(await claim(T0, { limit: 3 })).toEqual([]);
      });

      it('an expired lease is claimed again as the same execution with attempt + 1, not before expiry', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { nodeId: 'node-a', leaseMs: 1000 });
        expect(await claim(T0 + 999, { nodeId: 'node-b' })).toEqual([]);
        const [b] = await claim(T0 + 1000, { nodeId: 'node-b', leaseMs: 2000 });
        expect(b).toEqual({ ...a, attempt: 2, leaseExpiresAt: T0 + 3000 });
        const [c] = await claim(T0 + 3000, { nodeId: 'node-c', leaseMs: 2000 });
        expect(c).toEqual({ ...a, attempt: 3, leaseExpiresAt: T0 + 5000 });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
      });

      it('an expired lease of a cron occurrence is claimed again without advancing the job', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 });
        const [b] = await claim(T0 + 1000, { nodeId: 'node-b' });
        expect(b).toMatchObject({ executionId: a!.executionId, scheduledFor: T0, attempt: 2 });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
      });

      it('the lease of a deleted schedule is not claimed again and no longer due', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        await claim(T0, { leaseMs: 1000 });
        await store.scheduleDelete({ id: s.id });
        expect(await store.nextDueAt()).toBe(T0 + 1000);
        expect(await claim(T0 + 1000)).toEqual([]);
        expect(await store.nextDueAt()).toBeNull();
        expect(await claim(T0 + 100_000)).toEqual([]);
      });

      it('the lease of a deleted cron job is not claimed again', async () => {
        const c = await newCron({ nextInvocation: T0 });
        await claim(T0, { leaseMs: 1000 });
        await store.cronDelete({ id: c.id });
        expect(await claim(T0 + 1000)).toEqual([]);
        expect(await store.nextDueAt()).toBeNull();
      });

      it('a finished execution is not claimed again when its lease time passes', async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 });
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!)] });
        expect(await claim(T0 + 1_000_000)).toEqual([]);
      });

      it('a limit of 0 claims nothing', async () => {
        await newSchedule({ scheduledAt: T0 });
        expect(await claim(T0, { limit: 0 })).toEqual([]);
        expect(await claim(T0, { limit: 1 })).toHaveLength(1);
      });
    });

    // ---- executionsFinish ----------------------------------------------------------------------
    describe('executionsFinish', () => {
      it('a success makes the schedule Succeeded, a failure Failed, in one batch', async () => {
        const ok = await newSchedule({ scheduledAt: T0 });
        const ko = await newSchedule({ scheduledAt: T0 + 1 });
        const claimed = await claim(T0 + 1);
        const byJob = new Map(claimed.map((c) => [c.jobId, c]));
        await store.executionsFinish({
          nodeId: 'node-a',
          outcomes: [
            outcome(byJob.get(ok.id)!),
            outcome(byJob.get(ko.id)!, { status: 'Failed', statusCode: null, error: 'timeout', responseBody: null }),
          ],
        });
        expect((await store.scheduleGet({ id: ok.id }))?.status).toBe('Succeeded');
        expect((await store.scheduleGet({ id: ko.id }))?.status).toBe('Failed');
        expect(await store.nextDueAt()).toBeNull();
      });

      it('an outcome for a lease that was lost is ignored; the new holder decides', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { nodeId: 'node-a', leaseMs: 1000 });
        const [b] = await claim(T0 + 1000, { nodeId: 'node-b', leaseMs: 1000 });
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!)] });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
        expect(await store.nextDueAt()).toBe(T0 + 2000);
        await store.executionsFinish({ nodeId: 'node-b', outcomes: [outcome(b!, { status: 'Failed', statusCode: 500 })] });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Failed');
      });

      it('an outcome from a node that never held the lease is ignored', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { nodeId: 'node-a' });
        await store.executionsFinish({ nodeId: 'intruder', outcomes: [outcome(a!)] });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
      });

      it('a second outcome for a finished execution is ignored', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!, { status: 'Failed', statusCode: 503 })] });
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!)] });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Failed');
      });

      it('outcomes for a deleted schedule or an unknown execution, and an empty batch, are harmless', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await store.scheduleDelete({ id: s.id });
        await store.executionsFinish({
          nodeId: 'node-a',
          outcomes: [outcome(a!), outcome({ ...a!, executionId: newId() })],
        });
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [] });
        expect(await store.scheduleGet({ id: s.id })).toBeNull();
        expect(await store.nextDueAt()).toBeNull();
      });

      it('a cron outcome ends the lease and leaves the job Active on its schedule', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 });
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!, { status: 'Failed', statusCode: 404 })] });
        expect(await store.cronGet({ id: c.id })).toEqual({ ...c, invocations: 1, nextInvocation: T0 + 60_000 });
        expect(await store.nextDueAt()).toBe(T0 + 60_000);
      });

      it('accepts a fractional duration (a performance.now() difference)', async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!, { durationMs: 12.3456 })] });
        expect(await store.nextDueAt()).toBeNull();
      });
    });

    // ---- nextDueAt -----------------------------------------------------------------------------
    describe('nextDueAt', () => {
      it('is null when nothing waits', async () => {
        expect(await store.nextDueAt()).toBeNull();
      });

      it('is the earliest Pending schedule, following updates and deletes', async () => {
        const a = await newSchedule({ scheduledAt: T0 + 500 });
        const b = await newSchedule({ scheduledAt: T0 + 300 });
        expect(await store.nextDueAt()).toBe(T0 + 300);
        await store.scheduleUpdate({ id: a.id, scheduledAt: T0 + 100 });
        expect(await store.nextDueAt()).toBe(T0 + 100);
        await store.scheduleDelete({ id: a.id });
        expect(await store.nextDueAt()).toBe(T0 + 300);
        await store.scheduleDelete({ id: b.id });
        expect(await store.nextDueAt()).toBeNull();
      });

      it('is the earliest Active cron occurrence; Paused jobs do not count', async () => {
        const a = await newCron({ nextInvocation: T0 + 700 });
        await newCron({ nextInvocation: T0 + 900 });
        expect(await store.nextDueAt()).toBe(T0 + 700);
        await store.cronUpdate({ id: a.id, status: 'Paused' });
        expect(await store.nextDueAt()).toBe(T0 + 900);
      });

      it('counts the lease of a running execution until it finishes', async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { leaseMs: 5000 });
        expect(await store.nextDueAt()).toBe(T0 + 5000);
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!)] });
        expect(await store.nextDueAt()).toBeNull();
      });

      it('is the minimum across the three kinds', async () => {
        await newSchedule({ scheduledAt: T0 });
        await claim(T0, { leaseMs: 300 }); // lease due at T0 + 300
        await newSchedule({ scheduledAt: T0 + 400 });
        const c = await newCron({ nextInvocation: T0 + 200 });
        expect(await store.nextDueAt()).toBe(T0 + 200);
        await store.cronDelete({ id: c.id });
        expect(await store.nextDueAt()).toBe(T0 + 300);
      });

      it('reports a past instant while due work waits (claim is then worth calling at once)', async () => {
        await newSchedule({ scheduledAt: T0 - 5000 });
        expect(await store.nextDueAt()).toBe(T0 - 5000);
      });
    });
  });
}
