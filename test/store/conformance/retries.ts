/**
 * Conformance of retries: a `Retrying` execution claimed again at its next attempt as attempt + 1,
 * the steps of retry policies carried by every claim, the status the schedule takes, attempt 1's
 * start and lateness kept, and outcomes of attempts no longer leased ignored. Registered inside
 * `exerciseStore` (index.ts), so every store runs it against a fresh, migrated database per test.
 * Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { CALLED, suiteHelpers, T0, TIMEOUT } from './fixtures.js';

/**
 * Registers the describe block 'retries' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeRetries(current: () => Store): void {
  describe('retries', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish, retryAt } = suiteHelpers(current);

    it('a Retrying execution is claimed again at nextAttemptAt, not before, as attempt + 1', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0);
      await retryAt(a!, T0 + 5000);
      expect(await store().nextDueAt()).toBe(T0 + 5000);
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Running');
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Retrying', finishedAt: null, nextAttemptAt: T0 + 5000 });
      expect(await claim(T0 + 4999, { nodeId: 'node-b' })).toEqual([]);
      const [b] = await claim(T0 + 5000, { nodeId: 'node-b', leaseMs: 100 });
      expect(b).toEqual({ ...a, attempt: 2, leaseExpiresAt: T0 + 5000 + TIMEOUT + 100 });
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Running', nextAttemptAt: null });
      expect(await claim(T0 + 5000)).toEqual([]);
    });

    it('the steps of a retry policy are stored and carried by every claim; a Retrying execution a day away is claimed again then', async () => {
      const STEPS: RetryPolicy = { maxAttempts: 8, initialDelayMs: 1000, maxDelayMs: 43_200_000, delaysMs: [5_000, 300_000, 36_000_000] };
      const s = await newSchedule({ scheduledAt: T0, retry: STEPS });
      expect((await store().scheduleGet({ id: s.id }))?.retry).toEqual(STEPS);
      const c = await newCron({ nextInvocation: T0, retry: { ...STEPS, delaysMs: [60_000] } });
      expect((await store().cronGet({ id: c.id }))?.retry).toEqual({ ...STEPS, delaysMs: [60_000] });
      const first = await claim(T0);
      expect(first.find((x) => x.jobId === s.id)?.retry).toEqual(STEPS);
      expect(first.find((x) => x.jobId === c.id)?.retry).toEqual({ ...STEPS, delaysMs: [60_000] });
      // Both wait, as rows, for their next attempts a day later (nothing held in memory).
      const DAY = 86_400_000;
      for (const x of first) await retryAt(x, T0 + DAY);
      await store().cronUpdate({ id: c.id, status: 'Paused' }); // its next occurrences out of the way
      expect(await store().executionGet({ id: first[0]!.executionId })).toMatchObject({ status: 'Retrying', nextAttemptAt: T0 + DAY });
      expect(await store().nextDueAt()).toBe(T0 + DAY);
      expect(await claim(T0 + DAY - 1, { nodeId: 'node-b' })).toEqual([]);
      // The cron job's steps changed meanwhile: its retry is sent with the job's current policy.
      await store().cronUpdate({ id: c.id, retry: { ...STEPS, delaysMs: null } });
      const again = await claim(T0 + DAY, { nodeId: 'node-b' });
      expect(again.find((x) => x.jobId === s.id)).toMatchObject({ attempt: 2, retry: STEPS });
      expect(again.find((x) => x.jobId === c.id)).toMatchObject({ attempt: 2, retry: { ...STEPS, delaysMs: null } });
    });

    it('Retrying, Retrying, then Succeeded: the schedule follows, and every attempt is kept in order', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a1] = await claim(T0);
      await finish(a1!, {
        status: 'Retrying',
        nextAttemptAt: T0 + 1000,
        startedAt: T0 + 2,
        durationMs: 10,
        statusCode: 503,
        error: 'HTTP 503',
        responseBody: 'busy',
      });
      const [a2] = await claim(T0 + 1000);
      expect(a2?.attempt).toBe(2);
      await finish(a2!, {
        status: 'Retrying',
        nextAttemptAt: T0 + 3000,
        startedAt: T0 + 1001,
        durationMs: 20,
        statusCode: null,
        error: 'timeout',
        responseBody: null,
      });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Running');
      const [a3] = await claim(T0 + 3000);
      expect(a3?.attempt).toBe(3);
      await finish(a3!, { startedAt: T0 + 3002, durationMs: 7 });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
      expect(await store().executionGet({ id: a1!.executionId })).toEqual({
        id: a1!.executionId,
        jobType: 'schedule',
        jobId: s.id,
        scheduledFor: T0,
        status: 'Succeeded',
        triggered: false,
        backfill: false,
        createdAt: T0,
        startedAt: T0 + 2,
        finishedAt: T0 + 3009,
        nextAttemptAt: null,
        lateMs: 2,
        jitterMs: 0,
        missedOccurrences: null,
        flowControlKey: null,
        waitingFor: null,
        attempts: [
          { number: 1, startedAt: T0 + 2, durationMs: 10, statusCode: 503, error: 'HTTP 503', responseBody: 'busy', ...CALLED },
          { number: 2, startedAt: T0 + 1001, durationMs: 20, statusCode: null, error: 'timeout', responseBody: null, ...CALLED },
          { number: 3, startedAt: T0 + 3002, durationMs: 7, statusCode: 200, error: null, responseBody: 'ok', ...CALLED },
        ],
      });
      expect(await store().nextDueAt()).toBeNull();
    });

    it('a retried execution can end Failed; the schedule takes that status', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a1] = await claim(T0);
      await retryAt(a1!, T0 + 100);
      const [a2] = await claim(T0 + 100);
      await finish(a2!, { status: 'Failed', statusCode: 500, error: 'HTTP 500' });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Failed');
      expect(await store().executionGet({ id: a1!.executionId })).toMatchObject({ status: 'Failed', attempts: [{ number: 1 }, { number: 2 }] });
    });

    it('a cron occurrence retries without holding its job back: the next occurrence runs meanwhile', async () => {
      const c = await newCron({ nextInvocation: T0 });
      const [a] = await claim(T0);
      await retryAt(a!, T0 + 90_000);
      const next = await claim(T0 + 60_000);
      expect(next.map((x) => x.scheduledFor)).toEqual([T0 + 60_000]);
      expect((await claim(T0 + 90_000)).map((x) => [x.executionId, x.attempt])).toEqual([[a!.executionId, 2]]);
      expect((await store().cronGet({ id: c.id }))?.invocations).toBe(2);
    });

    it('a Retrying execution whose job was deleted is Failed at its next attempt, not claimed', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0);
      await retryAt(a!, T0 + 1000);
      await store().scheduleDelete({ id: s.id });
      expect(await claim(T0 + 1000)).toEqual([]);
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Failed', finishedAt: T0 + 1000 });
      expect(await store().nextDueAt()).toBeNull();
    });

    it("started_at and lateMs are attempt 1's, even when attempt 1's node died", async () => {
      await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0 + 5, { leaseMs: 100 }); // node-a dies with the call in flight
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Running', startedAt: T0 + 5, lateMs: 5 });
      const [b] = await claim(T0 + 2000, { nodeId: 'node-b' });
      await finish(b!, { startedAt: T0 + 2001 }, 'node-b');
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({
        status: 'Succeeded',
        startedAt: T0 + 5,
        lateMs: 5,
        jitterMs: 0,
        missedOccurrences: null,
        flowControlKey: null,
        waitingFor: null,
        finishedAt: T0 + 2013,
        nextAttemptAt: null,
        attempts: [{ number: 2, startedAt: T0 + 2001 }],
      });
    });

    it('a past scheduledAt is due from when it was stored or moved: dueAt, the claim and lateMs count from there', async () => {
      const s = await newSchedule({ scheduledAt: T0 - 3_600_000, now: T0 });
      expect(s.dueAt).toBe(T0);
      expect((await newSchedule({ scheduledAt: T0 + 10, now: T0 })).dueAt).toBe(T0 + 10); // a future instant is its own
      const moved = await store().scheduleUpdate({ now: T0 + 100, id: s.id, scheduledAt: T0 - 5_000 });
      expect(moved).toMatchObject({ scheduledAt: T0 - 5_000, dueAt: T0 + 100 });
      // A patch that leaves scheduledAt keeps the moment it became due.
      expect(await store().scheduleUpdate({ now: T0 + 200, id: s.id, name: 'renamed' })).toMatchObject({ dueAt: T0 + 100 });
      expect(await store().scheduleGet({ id: s.id })).toMatchObject({ dueAt: T0 + 100 });
      const claimed = await claim(T0 + 150);
      const mine = claimed.find((c) => c.jobId === s.id)!;
      expect(mine).toMatchObject({ scheduledFor: T0 - 5_000, dueAt: T0 + 100, attempt: 1 });
      await finish(mine, { startedAt: T0 + 160 });
      expect(await store().executionGet({ id: mine.executionId })).toMatchObject({ scheduledFor: T0 - 5_000, startedAt: T0 + 160, lateMs: 60 });
    });

    it("attempt 1's own start replaces the claim instant; later attempts never move it", async () => {
      await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0 + 5);
      await retryAt(a!, T0 + 100); // startedAt: scheduledFor + 3
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ startedAt: T0 + 3, lateMs: 3 });
      const [b] = await claim(T0 + 100);
      await finish(b!, { startedAt: T0 + 101 });
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ startedAt: T0 + 3, lateMs: 3 });
    });

    it('an outcome for another attempt than the one leased is ignored, even from the same node', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a1] = await claim(T0, { leaseMs: 1000 });
      const [a2] = await claim(T0 + 2000); // the same node takes its own expired lease again
      expect(a2).toMatchObject({ executionId: a1!.executionId, attempt: 2 });
      await finish(a1!, { status: 'Failed', statusCode: 500 }); // attempt 1's late outcome
      expect(await store().executionGet({ id: a1!.executionId })).toMatchObject({ status: 'Running', attempts: [] });
      await finish(a2!);
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
      expect((await store().executionGet({ id: a1!.executionId }))?.attempts.map((x) => x.number)).toEqual([2]);
    });

    it('an outcome for a Retrying execution (its lease released) is ignored', async () => {
      await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0);
      await retryAt(a!, T0 + 1000);
      await finish(a!); // the same outcome again, or a stray one
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Retrying', attempts: [{ number: 1 }] });
    });
  });
}
