/**
 * Conformance of the life of cron jobs (docs/cron.md, "Start, end and limits" and "Jitter"):
 * `startAt`, `endAt`, `maxInvocations` reaching `Completed`, a PATCH with `Active` restarting a
 * Completed job, and the jitter of occurrences. Registered inside `exerciseStore`
 * (index.ts), so every store runs it against a fresh, migrated database per test. Time is
 * injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { ClaimedExecution, MisfirePolicy } from '../../../src/domain/types.js';
import { occurrenceJitterMs } from '../../../src/store/rules/cron-life.js';
import type { ClaimDueParams, CronCreateParams, Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const MINUTE = 60_000;
const RETRY = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 60_000, delaysMs: null };

/**
 * Registers the cron-life tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeLife(current: () => Store): void {
  describe('cron jobs: start, end, limit and jitter', () => {
    const store = () => current();
    const claim = (now: number, o: Partial<ClaimDueParams> = {}): Promise<ClaimedExecution[]> =>
      store()
        .claimDue({ now, limit: 100, nodeId: 'node-a', leaseMs: 30 * 86_400_000, misfireThresholdMs: 60_000, ...o })
        .then((r) => r.claimed);
    const cron = (o: Partial<CronCreateParams> & { misfire?: MisfirePolicy } = {}) =>
      store().cronCreate({
        id: newId(),
        expression: '* * * * *',
        name: 'life',
        timezone: null,
        endpoint: 'https://example.com/cron',
        data: null,
        nextInvocation: T0,
        retry: RETRY,
        timeoutMs: 1_000,
        misfire: 'once',
        overlap: 'allow',
        now: T0 - MINUTE,
        ...o,
      });
    const finishAll = (claimed: ClaimedExecution[]) =>
      store().executionsFinish({
        nodeId: 'node-a',
        outcomes: claimed.map((c) => ({
          executionId: c.executionId,
          attempt: c.attempt,
          status: 'Succeeded' as const,
          nextAttemptAt: null,
          startedAt: c.notBefore ?? c.scheduledFor,
          durationMs: 5,
          statusCode: 200,
          error: null,
          responseBody: null,
          method: c.method,
          url: c.endpoint,
        })),
      });

    it('@every runs in absolute time from startAt across a DST change (New York, spring forward)', async () => {
      // 2030-03-10: New York's clocks go from 02:00 EST to 03:00 EDT at 07:00Z.
      const start = Date.UTC(2030, 2, 10, 4, 0); // midnight EST
      const c = await cron({ expression: '@every 1h30m', timezone: 'America/New_York', startAt: start, nextInvocation: start, now: start - MINUTE });
      const seen: number[] = [];
      for (let i = 0; i < 6; i++) {
        const at = (await store().cronGet({ id: c.id }))!.nextInvocation!;
        const claimed = await claim(at);
        expect(claimed.map((x) => x.scheduledFor)).toEqual([at]);
        seen.push(at);
        await finishAll(claimed);
      }
      // Every 90 minutes of elapsed time, the wall clock's jump notwithstanding.
      expect(seen).toEqual([0, 1, 2, 3, 4, 5].map((k) => start + k * 90 * MINUTE));
      expect(seen.some((t) => t < Date.UTC(2030, 2, 10, 7)) && seen.some((t) => t > Date.UTC(2030, 2, 10, 7))).toBe(true);
    });

    it('stores startAt, endAt, maxInvocations and jitterMs, and a patch changes them', async () => {
      const c = await cron({ startAt: T0 - 5 * MINUTE, endAt: T0 + 60 * MINUTE, maxInvocations: 7, jitterMs: 1_500 });
      expect(await store().cronGet({ id: c.id })).toMatchObject({
        startAt: T0 - 5 * MINUTE,
        endAt: T0 + 60 * MINUTE,
        maxInvocations: 7,
        jitterMs: 1_500,
        status: 'Active',
      });
      const d = await cron();
      expect(d).toMatchObject({ startAt: null, endAt: null, maxInvocations: null, jitterMs: 0 });
      expect(await store().cronUpdate({ id: c.id, endAt: null, maxInvocations: null, jitterMs: 0 })).toMatchObject({
        startAt: T0 - 5 * MINUTE,
        endAt: null,
        maxInvocations: null,
        jitterMs: 0,
      });
    });

    it('the last occurrence before endAt runs, then the job is Completed and no longer claimed', async () => {
      const c = await cron({ endAt: T0 + 2 * MINUTE });
      expect((await claim(T0)).map((x) => x.scheduledFor)).toEqual([T0]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ status: 'Active', nextInvocation: T0 + MINUTE });
      expect((await claim(T0 + MINUTE)).map((x) => x.scheduledFor)).toEqual([T0 + MINUTE]);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ status: 'Completed', invocations: 2 });
      expect(await claim(T0 + 10 * MINUTE)).toEqual([]);
      const page = await store().cronPage({ limit: 10, cursor: null, status: 'Completed', name: null, tags: [] });
      expect(page.cronJobs.map((j) => j.id)).toEqual([c.id]);
      expect((await store().cronPage({ limit: 10, cursor: null, status: 'Active', name: null, tags: [] })).cronJobs).toEqual([]);
    });

    it('the occurrence that reaches maxInvocations completes the job', async () => {
      const c = await cron({ maxInvocations: 2 });
      await claim(T0);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ status: 'Active', invocations: 1 });
      await claim(T0 + MINUTE);
      expect(await store().cronGet({ id: c.id })).toMatchObject({ status: 'Completed', invocations: 2 });
      expect(await claim(T0 + 10 * MINUTE)).toEqual([]);
    });

    it("misfire 'all' runs no occurrence beyond maxInvocations nor at or after endAt", async () => {
      const limited = await cron({ nextInvocation: T0 - 10 * MINUTE, misfire: 'all', maxInvocations: 3 });
      const ended = await cron({ nextInvocation: T0 - 10 * MINUTE, misfire: 'all', endAt: T0 - 6 * MINUTE });
      const claimed = await claim(T0);
      const of = (id: string) => claimed.filter((x) => x.jobId === id).map((x) => x.scheduledFor);
      expect(of(limited.id)).toEqual([T0 - 10 * MINUTE, T0 - 9 * MINUTE, T0 - 8 * MINUTE]);
      expect(of(ended.id)).toEqual([T0 - 10 * MINUTE, T0 - 9 * MINUTE, T0 - 8 * MINUTE, T0 - 7 * MINUTE]);
      expect(await store().cronGet({ id: limited.id })).toMatchObject({ status: 'Completed', invocations: 3 });
      expect(await store().cronGet({ id: ended.id })).toMatchObject({ status: 'Completed', invocations: 4 });
      expect(await claim(T0 + 10 * MINUTE)).toEqual([]);
    });

    it('a PATCH with status Active restarts a Completed job from its next occurrence; without it the job stays Completed', async () => {
      const c = await cron({ maxInvocations: 1 });
      await claim(T0);
      expect((await store().cronGet({ id: c.id }))?.status).toBe('Completed');
      // A later limit alone: still Completed.
      expect(await store().cronUpdate({ id: c.id, maxInvocations: 3 })).toMatchObject({ status: 'Completed' });
      // Active with an occurrence left: Active again at the next occurrence after now.
      const restarted = await store().cronUpdate({ id: c.id, status: 'Active', recomputeAfter: T0 + 30_000 });
      expect(restarted).toMatchObject({ status: 'Active', nextInvocation: T0 + MINUTE });
      expect((await claim(T0 + MINUTE)).map((x) => x.jobId)).toEqual([c.id]);
      // Active with none left (3 invocations of 3): refused at /status, nothing changes.
      await claim(T0 + 2 * MINUTE);
      expect((await store().cronGet({ id: c.id }))?.status).toBe('Completed');
      const err = await store()
        .cronUpdate({ id: c.id, status: 'Active', recomputeAfter: T0 + 3 * MINUTE })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as InvalidInputError).errors[0]!.path).toBe('/status');
      expect((await store().cronGet({ id: c.id }))?.status).toBe('Completed');
    });

    it('a patch of an Active job whose endAt leaves no occurrence completes it', async () => {
      const c = await cron();
      expect(await store().cronUpdate({ id: c.id, endAt: T0 - MINUTE, recomputeAfter: T0 - 30_000 })).toMatchObject({ status: 'Completed' });
      expect(await claim(T0)).toEqual([]);
    });

    it('a patch moving startAt later makes the next occurrence the first at or after it', async () => {
      const c = await cron();
      expect(await store().cronUpdate({ id: c.id, startAt: T0 + 30 * MINUTE, recomputeAfter: T0 - 30_000 })).toMatchObject({
        nextInvocation: T0 + 30 * MINUTE,
      });
    });

    it('jitter: the occurrence waits its delay (never early), keeps its instant, and lateness counts from instant + delay', async () => {
      const c = await cron({ jitterMs: 50_000 });
      const d = occurrenceJitterMs(c.id, T0, 50_000);
      expect(d).toBeGreaterThan(0);
      expect(await claim(T0)).toEqual([]); // the occurrence is recorded Pending, due at T0 + d
      expect(await store().cronGet({ id: c.id })).toMatchObject({ nextInvocation: T0 + MINUTE, invocations: 1 });
      expect(await store().nextDueAt()).toBe(T0 + d);
      expect(await claim(T0 + d - 1)).toEqual([]);
      expect(await claim(T0 + d - 1, { aheadMs: 0 })).toEqual([]);
      const [x, ...rest] = await claim(T0 + d + 7);
      expect(rest).toEqual([]);
      expect(x).toMatchObject({ jobId: c.id, scheduledFor: T0, dueAt: T0 + d, attempt: 1 });
      await finishAll([{ ...x!, notBefore: T0 + d + 7 }]);
      const [e] = (await store().executionList({ jobType: 'cron', jobId: c.id, limit: 10, cursor: null })).executions;
      expect(e).toMatchObject({ scheduledFor: T0, jitterMs: d, lateMs: 7, status: 'Succeeded' });
    });

    it('jitter claimed ahead carries notBefore = instant + delay', async () => {
      const c = await cron({ jitterMs: 50_000 });
      const d = occurrenceJitterMs(c.id, T0, 50_000);
      await claim(T0);
      const [x] = await claim(T0 + d - 60, { aheadMs: 100 });
      expect(x).toMatchObject({ scheduledFor: T0, notBefore: T0 + d });
    });

    it('an occurrence of a job without jitter shows jitterMs 0', async () => {
      const c = await cron();
      await finishAll(await claim(T0));
      const [e] = (await store().executionList({ jobType: 'cron', jobId: c.id, limit: 10, cursor: null })).executions;
      expect(e).toMatchObject({ jitterMs: 0, lateMs: 0 });
    });
  });
}
