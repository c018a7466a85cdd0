/**
 * Conformance of claiming ahead (`ClaimDueParams.aheadMs`; src/store/rules/claim.ts, "Claiming
 * ahead"), registered inside `exerciseStore` (index.ts), so every store runs it against a
 * fresh, migrated database per test. Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { ClaimedExecution } from '../../../src/domain/types.js';
import type { ClaimDueParams, Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const TIMEOUT = 1_000;
const LEASE = 5_000;
const RETRY = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 60_000, delaysMs: null };

/**
 * Registers the claim-ahead tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeAhead(current: () => Store): void {
  describe('claimDue with aheadMs', () => {
    const store = () => current();
    const claim = (now: number, o: Partial<ClaimDueParams> = {}): Promise<ClaimedExecution[]> =>
      store()
        .claimDue({ now, limit: 100, nodeId: 'node-a', leaseMs: LEASE, misfireThresholdMs: 60_000, ...o })
        .then((r) => r.claimed);
    const schedule = (scheduledAt: number) =>
      store().scheduleCreate({
        id: newId(),
        name: 'ahead',
        scheduledAt,
        endpoint: 'https://example.com/hook',
        data: {},
        tags: [],
        retry: RETRY,
        timeoutMs: TIMEOUT,
        now: T0 - 60_000,
      });

    it('takes schedules and cron occurrences due within aheadMs, marked notBefore, started and leased at their real times', async () => {
      const soon = await schedule(T0 + 50);
      const due = await schedule(T0 - 10);
      const later = await schedule(T0 + 101);
      const cron = await store().cronCreate({
        id: newId(),
        expression: '* * * * * *',
        name: 'every second',
        timezone: 'UTC',
        endpoint: 'https://example.com/cron',
        data: null,
        nextInvocation: T0 + 1_000 - 920, // not a real occurrence: the engine's next is T0 + 1,000
        retry: RETRY,
        timeoutMs: TIMEOUT,
        misfire: 'skip',
        overlap: 'allow',
        now: T0 - 60_000,
      });
      // Without aheadMs: only what is due now, and nothing carries notBefore.
      const [first, ...none] = await claim(T0);
      expect(none).toEqual([]);
      expect(first).toMatchObject({ jobId: due.id, leaseExpiresAt: T0 + TIMEOUT + LEASE });
      expect(first).not.toHaveProperty('notBefore');

      const items = await claim(T0 + 0.7, { aheadMs: 100.9 }); // both floored: now T0, due by T0 + 100
      expect(items.map((c) => [c.jobId, c.notBefore, c.leaseExpiresAt])).toEqual([
        [soon.id, T0 + 50, T0 + TIMEOUT + LEASE],
        [cron.id, T0 + 80, T0 + TIMEOUT + LEASE],
      ]);
      expect(items[1]).toMatchObject({ scheduledFor: T0 + 80, dueAt: T0 + 80, attempt: 1 });
      // Recorded as starting at its due instant, never before; not a misfire (nothing skipped).
      expect(await store().executionGet({ id: items[0]!.executionId })).toMatchObject({ status: 'Running', startedAt: T0 + 50, lateMs: 0 });
      expect(await store().executionGet({ id: items[1]!.executionId })).toMatchObject({ status: 'Running', startedAt: T0 + 80, lateMs: 0 });
      expect(await store().cronGet({ id: cron.id })).toMatchObject({ nextInvocation: T0 + 1_000, status: 'Active', skippedOccurrences: 0 });
      expect(await store().scheduleGet({ id: later.id })).toMatchObject({ status: 'Pending' });
      // Claimed ahead is claimed: a patch is refused as for any schedule no longer Pending.
      expect(await store().scheduleUpdate({ id: soon.id, name: 'renamed', now: T0 + 1 })).toBe('not_pending');
      expect(await claim(T0 + 1, { aheadMs: 99 })).toEqual([]);
      expect((await claim(T0 + 1, { aheadMs: 100 })).map((c) => [c.jobId, c.notBefore])).toEqual([[later.id, T0 + 101]]);
    });

    it('takes a retry due within aheadMs, keeps its first start, and never an unexpired lease', async () => {
      const s = await schedule(T0);
      const [c] = await claim(T0);
      await store().executionsFinish({
        nodeId: 'node-a',
        outcomes: [
          {
            executionId: c!.executionId,
            attempt: 1,
            status: 'Retrying',
            nextAttemptAt: T0 + 2_000,
            startedAt: T0 + 2,
            durationMs: 5,
            statusCode: 503,
            error: 'HTTP 503',
            responseBody: null,
            method: 'POST',
            url: 'https://example.com/hook',
          },
        ],
      });
      const other = await schedule(T0 + 1_900);
      const [held] = await claim(T0 + 1_900, { aheadMs: 100, limit: 1, nodeId: 'node-b' }); // the schedule, due now
      expect(held!.jobId).toBe(other.id);
      const [retry] = await claim(T0 + 1_950, { aheadMs: 100 });
      expect(retry).toMatchObject({ executionId: c!.executionId, jobId: s.id, attempt: 2, notBefore: T0 + 2_000, leaseExpiresAt: T0 + 1_950 + TIMEOUT + LEASE });
      expect(await store().executionGet({ id: c!.executionId })).toMatchObject({ status: 'Running', startedAt: T0 + 2, lateMs: 2 });
      // node-b's lease expires at T0 + 1,900 + 6,000: not taken 50 ms before, taken at its expiry.
      const expiry = held!.leaseExpiresAt;
      expect(await claim(expiry - 50, { aheadMs: 100 })).toEqual([]);
      const [again] = await claim(expiry, { aheadMs: 100 });
      expect(again).toMatchObject({ executionId: held!.executionId, attempt: 2 });
      expect(again).not.toHaveProperty('notBefore');
    });
  });
}
