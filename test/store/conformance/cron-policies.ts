/**
 * Conformance of the misfire (`once`, `skip`, `all`) and overlap (`skip`, `allow`) policies of cron
 * jobs, and the `lastInvocation` and `lastStatus` they leave. Registered inside `exerciseStore`
 * (index.ts), so every store runs it against a fresh, migrated database per test. Time is injected
 * (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { ClaimedExecution, Execution } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { EVERY_SECOND, HOURLY, LONG_LEASE, suiteHelpers, T0, THRESHOLD } from './fixtures.js';

/**
 * Registers the describe block 'cron misfire and overlap' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeCronPolicies(current: () => Store): void {
  describe('cron misfire and overlap', () => {
    const store = () => current();
    const { claim, newCron, finish, retryAt, history } = suiteHelpers(current);

    it('no misfire: the next occurrence follows the one claimed, so a claim late by less than a period drops none', async () => {
      const c = await newCron({ nextInvocation: T0, expression: EVERY_SECOND });
      expect((await claim(T0 + 800)).map((x) => x.scheduledFor)).toEqual([T0]);
      expect((await store().cronGet({ id: c.id }))?.nextInvocation).toBe(T0 + 1000);
      expect((await claim(T0 + 1000)).map((x) => x.scheduledFor)).toEqual([T0 + 1000]);
    });

    it("a claim late by more than a period is a misfire: with 'once', the missed occurrences collapse into the first", async () => {
      const c = await newCron({ nextInvocation: T0, expression: EVERY_SECOND });
      expect((await claim(T0 + 2500)).map((x) => x.scheduledFor)).toEqual([T0]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 3000 });
      expect(await claim(T0 + 2999)).toEqual([]);
    });

    it('an occurrence exactly misfireThresholdMs late is no misfire; one ms more is', async () => {
      const a = await newCron({ nextInvocation: T0, misfire: 'skip', expression: HOURLY });
      expect((await claim(T0 + THRESHOLD)).map((x) => x.jobId)).toEqual([a.id]);
      const b = await newCron({ nextInvocation: T0, misfire: 'skip', expression: HOURLY });
      expect(await claim(T0 + THRESHOLD + 1)).toEqual([]);
      expect(await history('cron', b.id)).toMatchObject([{ scheduledFor: T0, status: 'Skipped' }]);
      const d = await newCron({ nextInvocation: T0, misfire: 'skip', expression: HOURLY });
      expect(await claim(T0 + 11, { misfireThresholdMs: 10 })).toEqual([]);
      expect(await history('cron', d.id)).toMatchObject([{ status: 'Skipped' }]);
    });

    it("misfire 'skip' records the first missed occurrence as Skipped, calls nothing, and goes on after now", async () => {
      const c = await newCron({ nextInvocation: T0 - 10 * 60_000, misfire: 'skip' });
      expect(await claim(T0)).toEqual([]);
      const [skipped] = await history('cron', c.id);
      expect(skipped).toEqual({
        id: expect.any(String),
        jobType: 'cron',
        jobId: c.id,
        scheduledFor: T0 - 10 * 60_000,
        status: 'Skipped',
        triggered: false,
        backfill: false,
        createdAt: T0,
        startedAt: null,
        finishedAt: T0,
        nextAttemptAt: null,
        lateMs: null,
        jitterMs: 0,
        missedOccurrences: null,
        flowControlKey: null,
        waitingFor: null,
        attempts: [],
      });
      expect(await store().cronGet({ id: c.id })).toMatchObject({
        invocations: 1,
        nextInvocation: T0 + 60_000,
        lastInvocation: T0 - 10 * 60_000,
        lastStatus: 'Skipped',
        skippedOccurrences: 11,
      });
      expect(await store().nextDueAt()).toBe(T0 + 60_000);
      expect((await claim(T0 + 60_000)).map((x) => x.scheduledFor)).toEqual([T0 + 60_000]);
    });

    it("misfire 'once' after missed occurrences: the one execution records how many it stands for, first and last", async () => {
      const c = await newCron({ nextInvocation: T0 - 10 * 60_000, misfire: 'once' });
      const onTime = await newCron({ nextInvocation: T0, misfire: 'once' });
      const missed = { count: 11, first: T0 - 10 * 60_000, last: T0, capped: false };
      const [a, e, ...rest] = await claim(T0 + 1, { leaseMs: 10 });
      expect(rest).toEqual([]);
      // The occurrence on time stands for itself only.
      expect(e).toMatchObject({ jobId: onTime.id, scheduledFor: T0 });
      expect(e).not.toHaveProperty('missedOccurrences');
      expect(await store().executionGet({ id: e!.executionId })).toMatchObject({ missedOccurrences: null });
      expect(a).toMatchObject({ jobId: c.id, scheduledFor: T0 - 10 * 60_000, attempt: 1, missedOccurrences: missed });
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ missedOccurrences: missed });
      expect((await history('cron', c.id)).map((e) => e.missedOccurrences)).toEqual([missed]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000, skippedOccurrences: 0 });
      // Every later attempt carries it: a retry, and a lease that expired (its node died).
      await retryAt(a!, T0 + 5000);
      const ofA = (items: ClaimedExecution[]) => items.find((x) => x.executionId === a!.executionId);
      expect(ofA(await claim(T0 + 5000, { leaseMs: 10 }))).toMatchObject({ attempt: 2, missedOccurrences: missed });
      expect(ofA(await claim(T0 + 5000 + 1_000_000))).toMatchObject({ attempt: 3, missedOccurrences: missed });
    });

    it("misfire 'once': one late occurrence alone stands for itself; beyond 1,000 missed the count is capped and last exact", async () => {
      const late = await newCron({ nextInvocation: T0, misfire: 'once', expression: HOURLY });
      const [x] = await claim(T0 + 10 * 60_000);
      expect(x).toMatchObject({ jobId: late.id, scheduledFor: T0 });
      expect(x).not.toHaveProperty('missedOccurrences');
      expect(await store().executionGet({ id: x!.executionId })).toMatchObject({ missedOccurrences: null });
      const o1 = T0 - 1500 * 60_000;
      const long = await newCron({ nextInvocation: o1, misfire: 'once' });
      const [y] = await claim(T0 + 30_000);
      const capped = { count: 1000, first: o1, last: T0, capped: true };
      expect(y).toMatchObject({ jobId: long.id, scheduledFor: o1, missedOccurrences: capped });
      expect(await store().executionGet({ id: y!.executionId })).toMatchObject({ missedOccurrences: capped });
    });

    it("misfire 'skip' counts the dropped occurrences on the job and in the claim's result, once each", async () => {
      const raw = (now: number) =>
        store().claimDue({ now, limit: 100, nodeId: 'node-a', leaseMs: LONG_LEASE, misfireThresholdMs: THRESHOLD });
      const c = await newCron({ nextInvocation: T0 - 10 * 60_000, misfire: 'skip' });
      const other = await newCron({ nextInvocation: T0 - 2 * 60_000, misfire: 'skip' });
      expect(await raw(T0)).toEqual({ claimed: [], skippedOccurrences: 11 + 3 });
      expect(await store().cronGet({ id: c.id })).toMatchObject({ skippedOccurrences: 11, invocations: 1, nextInvocation: T0 + 60_000 });
      expect(await store().cronGet({ id: other.id })).toMatchObject({ skippedOccurrences: 3 });
      expect(await raw(T0)).toEqual({ claimed: [], skippedOccurrences: 0 });
      // On time: it runs, and nothing is skipped.
      expect((await raw(T0 + 60_000)).skippedOccurrences).toBe(0);
      // A second outage adds to the total.
      const after = await raw(T0 + 60_000 + 5 * 60_000);
      expect(after.skippedOccurrences).toBe(5 + 5);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ skippedOccurrences: 11 + 5 });
      expect(await store().cronGet({ id: other.id })).toMatchObject({ skippedOccurrences: 3 + 5 });
    });

    it("misfire 'all' runs every missed occurrence, oldest first", async () => {
      const c = await newCron({ nextInvocation: T0 - 4 * 60_000, misfire: 'all' });
      const claimed = await claim(T0 + 1);
      expect(claimed.map((x) => [x.scheduledFor, x.attempt])).toEqual([
        [T0 - 240_000, 1],
        [T0 - 180_000, 1],
        [T0 - 120_000, 1],
        [T0 - 60_000, 1],
        [T0, 1],
      ]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 5, nextInvocation: T0 + 60_000, lastInvocation: T0 });
    });

    it("misfire 'all' beyond the limit: the rest wait as Pending and later claims take them, oldest first", async () => {
      const c = await newCron({ nextInvocation: T0 - 4 * 60_000, misfire: 'all' });
      const first = await claim(T0, { limit: 2 });
      expect(first.map((x) => x.scheduledFor)).toEqual([T0 - 240_000, T0 - 180_000]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 5, nextInvocation: T0 + 60_000, lastStatus: 'Pending' });
      expect((await history('cron', c.id)).map((e) => e.status)).toEqual(['Pending', 'Pending', 'Pending', 'Running', 'Running']);
      expect(await store().nextDueAt()).toBe(T0 - 120_000);
      const second = await claim(T0, { limit: 2 });
      expect(second.map((x) => [x.scheduledFor, x.attempt])).toEqual([
        [T0 - 120_000, 1],
        [T0 - 60_000, 1],
      ]);
      expect((await claim(T0, { limit: 2 })).map((x) => x.scheduledFor)).toEqual([T0]);
      expect(await claim(T0, { limit: 2 })).toEqual([]);
      expect(await store().executionGet({ id: second[0]!.executionId })).toMatchObject({ startedAt: T0, lateMs: 120_000 });
    });

    it("misfire 'all' creates at most 1,000 executions: the oldest missed ones", async () => {
      const o1 = T0 - 1500 * 60_000;
      const c = await newCron({ nextInvocation: o1, misfire: 'all' });
      const got: ClaimedExecution[] = [];
      for (;;) {
        const batch = await claim(T0, { limit: 100 });
        expect(batch.length).toBeLessThanOrEqual(100);
        if (batch.length === 0) break;
        got.push(...batch);
      }
      expect(got.map((x) => x.scheduledFor)).toEqual(Array.from({ length: 1000 }, (_, i) => o1 + i * 60_000));
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 1000, nextInvocation: T0 + 60_000 });
    });

    it("misfire 'all' with overlap 'skip': the first runs, the others are Skipped", async () => {
      const c = await newCron({ nextInvocation: T0 - 2 * 60_000, misfire: 'all', overlap: 'skip' });
      expect((await claim(T0)).map((x) => x.scheduledFor)).toEqual([T0 - 120_000]);
      expect((await history('cron', c.id)).map((e) => e.status)).toEqual(['Skipped', 'Skipped', 'Running']);
      expect((await store().cronGet({ id: c.id }))?.invocations).toBe(3);
    });

    it("overlap 'skip': an occurrence due while the previous one is Running or Retrying is Skipped", async () => {
      const c = await newCron({ nextInvocation: T0, overlap: 'skip' });
      const [a] = await claim(T0);
      expect(await claim(T0 + 60_000)).toEqual([]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({
        invocations: 2,
        nextInvocation: T0 + 120_000,
        lastInvocation: T0 + 60_000,
        lastStatus: 'Skipped',
        skippedOccurrences: 0,
      });
      await retryAt(a!, T0 + 130_000);
      expect(await claim(T0 + 120_000)).toEqual([]);
      expect((await history('cron', c.id)).map((e) => [e.scheduledFor - T0, e.status])).toEqual([
        [120_000, 'Skipped'],
        [60_000, 'Skipped'],
        [0, 'Retrying'],
      ]);
      const [a2] = await claim(T0 + 130_000);
      expect(a2).toMatchObject({ executionId: a!.executionId, attempt: 2 });
      await finish(a2!);
      expect((await claim(T0 + 180_000)).map((x) => x.scheduledFor)).toEqual([T0 + 180_000]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 4, lastInvocation: T0 + 180_000, lastStatus: 'Running' });
    });

    it("overlap 'skip' also counts a triggered execution not yet claimed", async () => {
      const c = await newCron({ nextInvocation: T0, overlap: 'skip' });
      const t = await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 - 1 });
      expect(t).not.toBe('not_found');
      // The trigger is due first (T0 - 1), so it runs, and the occurrence at T0 finds it Running.
      expect((await claim(T0)).map((x) => x.executionId)).toEqual([(t as Execution).id]);
      expect((await history('cron', c.id)).map((e) => [e.scheduledFor - T0, e.status])).toEqual([
        [0, 'Skipped'],
        [-1, 'Running'],
      ]);
    });

    it("overlap 'allow' (the default): occurrences run side by side", async () => {
      await newCron({ nextInvocation: T0 });
      const [a] = await claim(T0);
      const [b] = await claim(T0 + 60_000);
      expect(b?.scheduledFor).toBe(T0 + 60_000);
      expect(b?.executionId).not.toBe(a?.executionId);
    });

    it('lastInvocation and lastStatus follow the newest execution, by scheduledFor', async () => {
      const c = await newCron({ nextInvocation: T0 });
      expect(await store().cronGet({ id: c.id })).toMatchObject({ lastInvocation: null, lastStatus: null });
      const tid = newId();
      await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: tid, now: T0 + 5 });
      expect(await store().cronGet({ id: c.id })).toMatchObject({ lastInvocation: T0 + 5, lastStatus: 'Pending' });
      // The occurrence at T0 is made after the trigger but is older: the trigger stays the newest.
      const claimed = await claim(T0 + 10);
      expect(claimed.map((x) => x.scheduledFor)).toEqual([T0, T0 + 5]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ lastInvocation: T0 + 5, lastStatus: 'Running' });
      await finish(claimed.find((x) => x.executionId === tid)!, { status: 'Failed', statusCode: 404 });
      expect(await store().cronGet({ id: c.id })).toMatchObject({ lastInvocation: T0 + 5, lastStatus: 'Failed' });
      await claim(T0 + 60_000);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 3, lastInvocation: T0 + 60_000, lastStatus: 'Running' });
      expect((await store().cronList())[0]).toMatchObject({ lastInvocation: T0 + 60_000, lastStatus: 'Running' });
      // A trigger stamped earlier than the newest occurrence (another node's clock lags) does not take its place.
      await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 + 30_000 });
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 4, lastInvocation: T0 + 60_000, lastStatus: 'Running' });
    });
  });
}
