/**
 * Conformance of `claimDue` (src/store/rules/claim.ts): which schedules and cron occurrences a
 * claim takes (never early, each once, at most `limit`, the earliest due first), leased until when,
 * and expired leases claimed again (claiming ahead is ahead.ts). Registered inside `exerciseStore`
 * (index.ts), so every store runs it against a fresh, migrated database per test. Time is injected
 * (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { NO_REQUEST, RETRY, suiteHelpers, T0, TIMEOUT } from './fixtures.js';

/**
 * Registers the describe block 'claimDue' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeClaimDue(current: () => Store): void {
  describe('claimDue', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish, retryAt, history } = suiteHelpers(current);

    it("claims a schedule due now, leases it for its timeout plus the margin, marks it Running", async () => {
      const retry = { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 99, delaysMs: null };
      const s = await newSchedule({ scheduledAt: T0, data: { hello: 'world' }, retry, timeoutMs: 2500 });
      const claimed = await claim(T0, { nodeId: 'n1', leaseMs: 15_000 });
      expect(claimed).toEqual([
        {
          executionId: expect.any(String),
          jobType: 'schedule',
          jobId: s.id,
          scheduledFor: T0,
          dueAt: T0,
          attempt: 1,
          endpoint: s.endpoint,
          data: { hello: 'world' },
          retry,
          timeoutMs: 2500,
          ...NO_REQUEST,
          successStatuses: ['2xx'],
          leaseExpiresAt: T0 + 2500 + 15_000,
        },
      ]);
      expect(claimed[0]!.executionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Running');
      expect(await store().executionGet({ id: claimed[0]!.executionId })).toEqual({
        id: claimed[0]!.executionId,
        jobType: 'schedule',
        jobId: s.id,
        scheduledFor: T0,
        status: 'Running',
        triggered: false,
        backfill: false,
        createdAt: T0,
        startedAt: T0,
        finishedAt: null,
        nextAttemptAt: null,
        lateMs: 0,
        jitterMs: 0,
        missedOccurrences: null,
        flowControlKey: null,
        waitingFor: null,
        attempts: [],
      });
    });

    it('never early: a schedule due at now + 1 ms waits for that instant', async () => {
      const s = await newSchedule({ scheduledAt: T0 + 1 });
      expect(await claim(T0)).toEqual([]);
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Pending');
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

    it('claims a due cron occurrence, counts it, and advances nextInvocation from that occurrence', async () => {
      const c = await newCron({ nextInvocation: T0 });
      const claimed = await claim(T0 + 500, { leaseMs: 1000 });
      expect(claimed).toEqual([
        {
          executionId: expect.any(String),
          jobType: 'cron',
          jobId: c.id,
          scheduledFor: T0,
          dueAt: T0,
          attempt: 1,
          endpoint: c.endpoint,
          data: { c: 1 },
          retry: RETRY,
          timeoutMs: TIMEOUT,
          ...NO_REQUEST,
          successStatuses: ['2xx'],
          leaseExpiresAt: T0 + 500 + TIMEOUT + 1000,
        },
      ]);
      expect(await store().cronGet({ id: c.id })).toEqual({
        ...c,
        invocations: 1,
        nextInvocation: T0 + 60_000,
        lastInvocation: T0,
        lastStatus: 'Running',
        skippedOccurrences: 0,
      });
    });

    it('never early: a cron occurrence at now + 1 ms waits for that instant', async () => {
      const c = await newCron({ nextInvocation: T0 + 1 });
      expect(await claim(T0)).toEqual([]);
      expect(await store().cronGet({ id: c.id })).toEqual(c);
      expect((await claim(T0 + 1)).map((x) => x.scheduledFor)).toEqual([T0 + 1]);
    });

    it('occurrences missed while down run once (the default), then the job continues after now', async () => {
      const c = await newCron({ nextInvocation: T0 - 10 * 60_000 });
      const claimed = await claim(T0);
      expect(claimed.map((x) => x.scheduledFor)).toEqual([T0 - 10 * 60_000]);
      expect(await claim(T0)).toEqual([]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
      expect((await claim(T0 + 60_000)).map((x) => x.scheduledFor)).toEqual([T0 + 60_000]);
      expect((await store().cronGet({ id: c.id }))?.invocations).toBe(2);
    });

    it('a cron job without data is claimed with {}', async () => {
      await newCron({ data: null });
      expect((await claim(T0))[0]?.data).toEqual({});
    });

    it('a Paused cron job is not claimed, and runs again once Active', async () => {
      const c = await newCron({ nextInvocation: T0 });
      await store().cronUpdate({ id: c.id, status: 'Paused' });
      expect(await claim(T0 + 5000)).toEqual([]);
      await store().cronUpdate({ id: c.id, status: 'Active', expression: '* * * * * *', recomputeAfter: T0 + 5000 });
      expect((await claim(T0 + 6000)).map((x) => x.scheduledFor)).toEqual([T0 + 6000]);
    });

    it('a cron job the engine cannot continue (its zone no longer exists) runs its occurrence and is Paused', async () => {
      // The service validates zones; a stored one can still vanish from a later tzdata.
      const c = await newCron({ nextInvocation: T0, timezone: 'Mars/Olympus_Mons' });
      expect((await claim(T0)).map((x) => x.jobId)).toEqual([c.id]);
      expect(await store().cronGet({ id: c.id })).toEqual({
        ...c,
        status: 'Paused',
        invocations: 1,
        nextInvocation: T0,
        lastInvocation: T0,
        lastStatus: 'Running',
        skippedOccurrences: 0,
      });
      expect(await claim(T0 + 3_600_000)).toEqual([]);
    });

    it('an occurrence claimed once is never claimed again, even when a job is set back onto it', async () => {
      const c = await newCron({ nextInvocation: T0 });
      const [first] = await claim(T0);
      expect(first?.scheduledFor).toBe(T0);
      // Resume onto the occurrence that already ran (a clock set back would do the same).
      await store().cronUpdate({ id: c.id, status: 'Paused' });
      await store().cronUpdate({ id: c.id, status: 'Active', recomputeAfter: T0 - 1 }); // the minute T0
      expect(await claim(T0 + 1)).toEqual([]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
      expect(await history('cron', c.id)).toHaveLength(1);
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
      const batches = await Promise.all(['n1', 'n2', 'n3'].map((nodeId) => claim(T0, { nodeId, limit: 10 })));
      const rest = await claim(T0, { limit: 100 });
      const all = [...batches.flat(), ...rest];
      expect(all.map((c) => c.jobId).sort()).toEqual([...ids].sort());
      expect(new Set(all.map((c) => c.executionId)).size).toBe(25);
    });

    it('returns at most limit items, the earliest due first across schedules, cron jobs, retries and leases', async () => {
      // A retry due at T0 - 25.
      const retried = await newSchedule({ scheduledAt: T0 - 3000 });
      const [r] = await claim(T0 - 3000);
      await retryAt(r!, T0 - 25);
      // A lease that expires at T0 - 45: claimed at T0 - 2000 (timeout 1000, margin 955), never finished.
      const stale = await newSchedule({ scheduledAt: T0 - 2000 });
      expect(await claim(T0 - 2000, { leaseMs: 955 })).toHaveLength(1);
      const s50 = await newSchedule({ scheduledAt: T0 - 50 });
      const s30 = await newSchedule({ scheduledAt: T0 - 30 });
      const s10 = await newSchedule({ scheduledAt: T0 - 10 });
      const c40 = await newCron({ nextInvocation: T0 - 40 });
      const c20 = await newCron({ nextInvocation: T0 - 20 });
      await newSchedule({ scheduledAt: T0 + 1 }); // not due
      const first = await claim(T0, { limit: 3 });
      expect(first.map((c) => c.jobId)).toEqual([s50.id, stale.id, c40.id]);
      const second = await claim(T0, { limit: 3 });
      expect(second.map((c) => c.jobId)).toEqual([s30.id, retried.id, c20.id]);
      expect((await claim(T0, { limit: 3 })).map((c) => c.jobId)).toEqual([s10.id]);
      expect(await claim(T0, { limit: 3 })).toEqual([]);
    });

    it('an expired lease is claimed again as the same execution with attempt + 1, not before expiry', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0, { nodeId: 'node-a', leaseMs: 1000 });
      expect(a?.leaseExpiresAt).toBe(T0 + TIMEOUT + 1000);
      expect(await claim(T0 + TIMEOUT + 999, { nodeId: 'node-b' })).toEqual([]);
      const [b] = await claim(T0 + 2000, { nodeId: 'node-b', leaseMs: 2000 });
      expect(b).toEqual({ ...a, attempt: 2, leaseExpiresAt: T0 + 2000 + TIMEOUT + 2000 });
      const [c] = await claim(T0 + 5000, { nodeId: 'node-c', leaseMs: 2000 });
      expect(c).toEqual({ ...a, attempt: 3, leaseExpiresAt: T0 + 5000 + TIMEOUT + 2000 });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Running');
    });

    it('an expired lease of a cron occurrence is claimed again without advancing the job', async () => {
      const c = await newCron({ nextInvocation: T0 });
      const [a] = await claim(T0, { leaseMs: 1000 });
      const [b] = await claim(T0 + 2000, { nodeId: 'node-b' });
      expect(b).toMatchObject({ executionId: a!.executionId, scheduledFor: T0, attempt: 2 });
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
    });

    it("a re-leased or retried execution is sent with its job's current endpoint, data, retry and timeout", async () => {
      const c = await newCron({ nextInvocation: T0 });
      const [a] = await claim(T0, { leaseMs: 1000 });
      const retry = { maxAttempts: 9, initialDelayMs: 3, maxDelayMs: 4, delaysMs: null };
      await store().cronUpdate({ id: c.id, endpoint: 'https://fixed.example/', data: { v: 2 }, retry, timeoutMs: 7000 });
      const [b] = await claim(T0 + 2000, { nodeId: 'node-b', leaseMs: 10 });
      expect(b).toEqual({
        ...a,
        attempt: 2,
        endpoint: 'https://fixed.example/',
        data: { v: 2 },
        retry,
        timeoutMs: 7000,
        leaseExpiresAt: T0 + 2000 + 7000 + 10,
      });
      await retryAt(b!, T0 + 3000, 'node-b');
      await store().cronUpdate({ id: c.id, timeoutMs: 8000 });
      const [d] = await claim(T0 + 3000, { leaseMs: 10 });
      expect(d).toMatchObject({ executionId: a!.executionId, attempt: 3, timeoutMs: 8000, leaseExpiresAt: T0 + 3000 + 8000 + 10 });
    });

    it('the lease of a deleted schedule is not claimed again and no longer due; its execution is Failed', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0, { leaseMs: 1000 });
      await store().scheduleDelete({ id: s.id });
      expect(await store().nextDueAt()).toBe(T0 + 2000);
      expect(await claim(T0 + 2000)).toEqual([]);
      expect(await store().nextDueAt()).toBeNull();
      expect(await claim(T0 + 100_000)).toEqual([]);
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Failed', finishedAt: T0 + 2000, attempts: [] });
    });

    it('the lease of a deleted cron job is not claimed again', async () => {
      const c = await newCron({ nextInvocation: T0 });
      await claim(T0, { leaseMs: 1000 });
      await store().cronDelete({ id: c.id });
      expect(await claim(T0 + 2000)).toEqual([]);
      expect(await store().nextDueAt()).toBeNull();
    });

    it('a finished execution is not claimed again when its lease time passes', async () => {
      await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0, { leaseMs: 1000 });
      await finish(a!);
      expect(await claim(T0 + 1_000_000)).toEqual([]);
    });

    it('a limit of 0 claims nothing', async () => {
      await newSchedule({ scheduledAt: T0 });
      expect(await claim(T0, { limit: 0 })).toEqual([]);
      expect(await claim(T0, { limit: 1 })).toHaveLength(1);
    });
  });
}
