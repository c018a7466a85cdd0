/**
 * Conformance of the backfill of cron jobs (`Store.cronBackfill`, src/store/rules/backfill.ts),
 * registered inside `exerciseStore` (index.ts), so every store runs it against a fresh,
 * migrated database per test. The executions present before the backfill are made by claims (one
 * run, one misfire `skip`), through the `Store` interface only.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { ClaimedExecution, CronJob, Execution, OverlapPolicy } from '../../../src/domain/types.js';
import { cronJobNext } from '../../../src/cron/index.js';
import { BACKFILL_RECHECK_MS, backfillOccurrences } from '../../../src/store/rules/backfill.js';
import type { Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const MIN = 60_000;
const RETRY = { maxAttempts: 1, initialDelayMs: 1000, maxDelayMs: 3_600_000 };

/**
 * Registers the tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeBackfill(current: () => Store): void {
  describe('cronBackfill', () => {
    const store = () => current();
    const claim = async (now: number, limit = 100): Promise<ClaimedExecution[]> =>
      (await store().claimDue({ now, limit, nodeId: 'node-a', leaseMs: 60_000, misfireThresholdMs: 30_000 })).claimed;
    const finish = (c: ClaimedExecution, at: number) =>
      store().executionsFinish({
        nodeId: 'node-a',
        outcomes: [{ executionId: c.executionId, attempt: c.attempt, status: 'Succeeded', nextAttemptAt: null, startedAt: at, durationMs: 5, statusCode: 200, error: null, responseBody: null }],
      });
    const all = async (jobId: string): Promise<Execution[]> =>
      (await store().executionList({ jobType: 'cron', jobId, limit: 100, cursor: null })).executions.reverse();

    /**
     * A job every 10 minutes (UTC) with misfire `skip`: T0 ran (Succeeded), T0+10 min is Skipped (a
     * claim at T0+31 min), T0+20 and T0+30 min have no execution. Now is T0+31 min.
     */
    async function seeded(overlap: OverlapPolicy): Promise<CronJob> {
      const id = newId();
      await store().cronCreate({
        id,
        expression: '*/10 * * * *',
        name: 'ten',
        timezone: null,
        endpoint: 'https://example.com/cron',
        data: null,
        nextInvocation: T0,
        retry: RETRY,
        timeoutMs: 1_000,
        misfire: 'skip',
        overlap,
        now: T0 - MIN,
      });
      const [first] = await claim(T0);
      await finish(first!, T0 + 1);
      expect(await claim(T0 + 31 * MIN)).toEqual([]); // T0+10 Skipped, T0+20 and T0+30 dropped
      const job = (await store().cronGet({ id }))!;
      expect(job.nextInvocation).toBe(T0 + 40 * MIN);
      expect((await all(id)).map((e) => [e.scheduledFor - T0, e.status])).toEqual([
        [0, 'Succeeded'],
        [10 * MIN, 'Skipped'],
      ]);
      return job;
    }
    const occurrences = (job: CronJob, from: number, to: number) => backfillOccurrences(job, from, to, cronJobNext) as number[];

    it('creates exactly the missing occurrences, marked backfill, and none when called again', async () => {
      const job = await seeded('allow');
      const now = T0 + 31 * MIN;
      const made = await store().cronBackfill({ jobId: job.id, occurrences: occurrences(job, T0, T0 + 40 * MIN), now });
      expect(made).not.toBe('not_found');
      const created = made as Execution[];
      expect(created.map((e) => [e.scheduledFor - T0, e.status, e.backfill, e.triggered, e.createdAt])).toEqual([
        [20 * MIN, 'Pending', true, false, now],
        [30 * MIN, 'Pending', true, false, now],
      ]);
      expect((await all(job.id)).map((e) => [e.scheduledFor - T0, e.backfill])).toEqual([
        [0, false],
        [10 * MIN, false],
        [20 * MIN, true],
        [30 * MIN, true],
      ]);
      expect(await store().cronBackfill({ jobId: job.id, occurrences: occurrences(job, T0, T0 + 40 * MIN), now: now + 1 })).toEqual([]);
      expect((await all(job.id)).length).toBe(4);
      const after = (await store().cronGet({ id: job.id }))!;
      expect([after.invocations, after.lastInvocation, after.nextInvocation]).toEqual([job.invocations, job.lastInvocation, job.nextInvocation]);
      expect(await store().cronBackfill({ jobId: newId(), occurrences: [T0], now })).toBe('not_found');
    });

    it('overlap allow: all due at once, claimed oldest first', async () => {
      const job = await seeded('allow');
      const now = T0 + 31 * MIN;
      await store().cronBackfill({ jobId: job.id, occurrences: occurrences(job, T0, T0 + 40 * MIN), now });
      const [a] = await claim(now, 1);
      const [b] = await claim(now, 1);
      expect([a!.scheduledFor - T0, b!.scheduledFor - T0]).toEqual([20 * MIN, 30 * MIN]);
      expect([a!.attempt, a!.jobId]).toEqual([1, job.id]);
    });

    it('overlap skip: one at a time, the next due when the previous one finishes', async () => {
      const job = await seeded('skip');
      const now = T0 + 31 * MIN;
      const made = (await store().cronBackfill({ jobId: job.id, occurrences: occurrences(job, T0 + 20 * MIN, T0 + 40 * MIN), now })) as Execution[];
      expect(made).toHaveLength(2);
      const later = now + BACKFILL_RECHECK_MS + 1;
      // Even when both are due, only the oldest is leased; the other waits its turn.
      const [a, ...rest] = await claim(later);
      expect([a!.scheduledFor - T0, rest.length]).toEqual([20 * MIN, 0]);
      // While it runs, the next one is put back, not leased.
      expect(await claim(later + BACKFILL_RECHECK_MS + 1)).toEqual([]);
      const r = await finish(a!, later + 10);
      expect(r.backfillDueAt).toBe(later + 15);
      const [b] = await claim(later + 15);
      expect(b!.scheduledFor - T0).toBe(30 * MIN);
      const nothing = await finish(b!, later + 20);
      expect(nothing.backfillDueAt).toBeUndefined();
      expect((await all(job.id)).filter((e) => e.backfill).map((e) => e.status)).toEqual(['Succeeded', 'Succeeded']);
    });

    it('overlap skip: none due while the job has an execution in progress', async () => {
      const job = await seeded('skip');
      await store().jobTrigger({ jobType: 'cron', jobId: job.id, id: newId(), now: T0 + 31 * MIN });
      const [t] = await claim(T0 + 31 * MIN);
      expect(t!.scheduledFor).toBe(T0 + 31 * MIN);
      const made = (await store().cronBackfill({ jobId: job.id, occurrences: occurrences(job, T0, T0 + 40 * MIN), now: T0 + 31 * MIN + 1 })) as Execution[];
      expect(made).toHaveLength(2);
      expect(await claim(T0 + 31 * MIN + 2)).toEqual([]);
      const r = await finish(t!, T0 + 31 * MIN + 3);
      expect(r.backfillDueAt).toBe(T0 + 31 * MIN + 8);
      const [a] = await claim(T0 + 31 * MIN + 8);
      expect(a!.scheduledFor).toBe(T0 + 20 * MIN);
    });
  });
}
