/**
 * Conformance of what outcomes do to their jobs (src/store/rules/outcome.ts): `successStatuses`
 * stored and carried by claims, and the auto-pause of cron jobs in `executionsFinish` (410 Gone,
 * `pauseAfterFailures`, `consecutiveFailures`), and `pausedReason` through `cronUpdate`.
 * Registered inside `exerciseStore` (index.ts), so every store runs them against a fresh,
 * migrated database per test. Time is injected; only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { AttemptOutcome, ClaimedExecution, CronJob, SuccessStatus } from '../../../src/domain/types.js';
import type { CronCreateParams, Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const RETRY = { maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 60_000 };
const GONE = 'endpoint answered 410 Gone';

/**
 * Registers the outcome tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeOutcomes(current: () => Store): void {
  describe('outcomes: successStatuses and the auto-pause of cron jobs', () => {
    const store = () => current();
    let clock = T0;

    async function cron(p: Partial<CronCreateParams> = {}): Promise<CronJob> {
      return store().cronCreate({
        id: newId(),
        expression: '0 * * * *',
        name: null,
        timezone: null,
        endpoint: 'https://example.com/c',
        data: null,
        nextInvocation: T0 + 3_600_000, // never due in these tests: executions come from triggers
        retry: RETRY,
        timeoutMs: 5_000,
        misfire: 'once',
        overlap: 'allow',
        now: T0 - 1_000,
        ...p,
      });
    }

    /** `n` triggered executions of the job, claimed by `node-a` (in trigger order). */
    async function claimRuns(jobId: string, n = 1): Promise<ClaimedExecution[]> {
      for (let i = 0; i < n; i++) {
        clock += 10;
        const e = await store().jobTrigger({ jobType: 'cron', jobId, id: newId(), now: clock });
        expect(e).not.toBe('not_found');
      }
      clock += 10;
      const { claimed } = await store().claimDue({ now: clock, limit: 100, nodeId: 'node-a', leaseMs: 5_000, misfireThresholdMs: 60_000 });
      expect(claimed).toHaveLength(n);
      return claimed.sort((a, b) => a.scheduledFor - b.scheduledFor);
    }

    /** @param retryAt when the next attempt is due (Retrying only): by default at once */
    function outcome(c: ClaimedExecution, statusCode: number | null, status: AttemptOutcome['status'], retryAt = clock + 1): AttemptOutcome {
      return {
        executionId: c.executionId,
        attempt: c.attempt,
        status,
        nextAttemptAt: status === 'Retrying' ? retryAt : null,
        startedAt: clock,
        durationMs: 3,
        statusCode,
        error: statusCode === null || status === 'Succeeded' ? null : `HTTP ${statusCode}`,
        responseBody: null,
      };
    }

    const finish = (outcomes: AttemptOutcome[]) => store().executionsFinish({ nodeId: 'node-a', outcomes });
    /** One run of the job ending with `status` (410 when `gone`). */
    async function runOnce(jobId: string, status: 'Succeeded' | 'Failed', gone = false) {
      const [c] = await claimRuns(jobId);
      return finish([outcome(c!, status === 'Succeeded' ? 200 : gone ? 410 : 500, status)]);
    }
    const job = async (id: string) => (await store().cronGet({ id }))!;

    it('successStatuses: ["2xx"] by default; given lists are stored, patched and carried by every claim', async () => {
      const plain = await cron();
      expect(plain.successStatuses).toEqual(['2xx']);
      expect([plain.pauseAfterFailures, plain.pausedReason, plain.consecutiveFailures]).toEqual([null, null, 0]);
      const listed: SuccessStatus[] = [302, '2xx', 404];
      const c = await cron({ successStatuses: listed, pauseAfterFailures: 7 });
      expect(await job(c.id)).toMatchObject({ successStatuses: listed, pauseAfterFailures: 7 });

      // The first attempt of each kind of claim, then a retry (read through the job's current row).
      const [first] = await claimRuns(c.id);
      expect(first!.successStatuses).toEqual(listed);
      const s = await store().scheduleCreate({
        id: newId(), name: 's', scheduledAt: T0, endpoint: 'https://example.com/s', data: {}, tags: [], retry: RETRY, timeoutMs: 5_000,
        successStatuses: ['3xx'], now: T0 - 1_000,
      });
      expect(s.successStatuses).toEqual(['3xx']);
      expect((await store().scheduleUpdate({ id: s.id, successStatuses: [200, 201], now: T0 - 500 })) as unknown).toMatchObject({ successStatuses: [200, 201] });
      expect((await store().scheduleUpdate({ id: s.id, name: 'kept', now: T0 - 400 })) as unknown).toMatchObject({ successStatuses: [200, 201] });
      const { claimed } = await store().claimDue({ now: clock, limit: 10, nodeId: 'node-a', leaseMs: 5_000, misfireThresholdMs: 60_000 });
      expect(claimed.find((x) => x.jobId === s.id)?.successStatuses).toEqual([200, 201]);
      await store().cronUpdate({ id: c.id, successStatuses: ['5xx'] });
      await finish([outcome(first!, 503, 'Retrying')]);
      clock += 10;
      const retry = await store().claimDue({ now: clock, limit: 10, nodeId: 'node-a', leaseMs: 5_000, misfireThresholdMs: 60_000 });
      expect(retry.claimed.map((x) => [x.executionId, x.attempt, x.successStatuses])).toEqual([[first!.executionId, 2, ['5xx']]]);
    });

    it('a 410 Gone fails the execution and pauses its cron job with the reason, in the same write', async () => {
      const c = await cron({ pauseAfterFailures: 100 });
      const other = await cron();
      const [gone] = await claimRuns(c.id);
      const [fine] = await claimRuns(other.id);
      const result = await finish([outcome(gone!, 410, 'Failed'), outcome(fine!, 500, 'Failed')]);
      expect(result).toEqual({ paused: [{ jobId: c.id, kind: 'gone', reason: GONE }] });
      expect(await job(c.id)).toMatchObject({ status: 'Paused', pausedReason: GONE, consecutiveFailures: 1 });
      expect(await job(other.id)).toMatchObject({ status: 'Active', pausedReason: null, consecutiveFailures: 1 });
      expect((await store().executionGet({ id: gone!.executionId }))!.status).toBe('Failed');
    });

    it('a schedule answered 410 just fails; a 410 the job lists is a success and pauses nothing', async () => {
      const s = await store().scheduleCreate({
        id: newId(), name: 's', scheduledAt: T0, endpoint: 'https://example.com/s', data: {}, tags: [], retry: RETRY, timeoutMs: 5_000, now: T0 - 1_000,
      });
      const { claimed } = await store().claimDue({ now: T0, limit: 10, nodeId: 'node-a', leaseMs: 5_000, misfireThresholdMs: 60_000 });
      expect(await finish([outcome(claimed[0]!, 410, 'Failed')])).toEqual({ paused: [] });
      expect((await store().scheduleGet({ id: s.id }))!.status).toBe('Failed');

      const c = await cron({ successStatuses: ['2xx', 410] });
      const [run] = await claimRuns(c.id);
      expect(await finish([outcome(run!, 410, 'Succeeded')])).toEqual({ paused: [] });
      expect(await job(c.id)).toMatchObject({ status: 'Active', consecutiveFailures: 0 });
    });

    it('pauseAfterFailures: Active until the Nth consecutive failure, then Paused with the reason; retries count nothing', async () => {
      const c = await cron({ pauseAfterFailures: 3 });
      expect(await runOnce(c.id, 'Failed')).toEqual({ paused: [] });
      // A retrying attempt finishes nothing: no count.
      const [r] = await claimRuns(c.id);
      await finish([outcome(r!, 503, 'Retrying', T0 + 86_400_000)]); // not due again within this test
      expect(await job(c.id)).toMatchObject({ status: 'Active', consecutiveFailures: 1 });
      expect(await runOnce(c.id, 'Failed')).toEqual({ paused: [] });
      expect(await job(c.id)).toMatchObject({ status: 'Active', pausedReason: null, consecutiveFailures: 2 });
      const reason = 'paused after 3 consecutive failed executions';
      expect(await runOnce(c.id, 'Failed')).toEqual({ paused: [{ jobId: c.id, kind: 'failures', reason }] });
      expect(await job(c.id)).toMatchObject({ status: 'Paused', pausedReason: reason, consecutiveFailures: 3 });
      // Paused already: the count moves, the reason stays, nothing is reported again.
      expect(await runOnce(c.id, 'Failed', true)).toEqual({ paused: [] });
      expect(await job(c.id)).toMatchObject({ status: 'Paused', pausedReason: reason, consecutiveFailures: 4 });
    });

    it('a success resets the count; without pauseAfterFailures the job never pauses for failures', async () => {
      const c = await cron({ pauseAfterFailures: 2 });
      await runOnce(c.id, 'Failed');
      await runOnce(c.id, 'Succeeded');
      expect(await job(c.id)).toMatchObject({ status: 'Active', consecutiveFailures: 0 });
      expect(await runOnce(c.id, 'Failed')).toEqual({ paused: [] });
      expect(await job(c.id)).toMatchObject({ status: 'Active', consecutiveFailures: 1 });

      const never = await cron();
      for (let i = 0; i < 4; i++) expect(await runOnce(never.id, 'Failed')).toEqual({ paused: [] });
      expect(await job(never.id)).toMatchObject({ status: 'Active', consecutiveFailures: 4 });
    });

    it('one write of several outcomes of a job: only the failures after its last success count', async () => {
      const c = await cron({ pauseAfterFailures: 2 });
      await runOnce(c.id, 'Failed');
      // Failed then Succeeded in one write: the job ends the write with no failure after a success.
      let [a, b] = await claimRuns(c.id, 2);
      expect(await finish([outcome(a!, 500, 'Failed'), outcome(b!, 200, 'Succeeded')])).toEqual({ paused: [] });
      expect(await job(c.id)).toMatchObject({ status: 'Active', consecutiveFailures: 0 });
      // Succeeded then a 410: paused for the 410.
      [a, b] = await claimRuns(c.id, 2);
      expect(await finish([outcome(a!, 200, 'Succeeded'), outcome(b!, 410, 'Failed')])).toEqual({
        paused: [{ jobId: c.id, kind: 'gone', reason: GONE }],
      });
      expect(await job(c.id)).toMatchObject({ status: 'Paused', consecutiveFailures: 1 });

      // Two failures in one write reach pauseAfterFailures 2 together.
      const d = await cron({ pauseAfterFailures: 2 });
      [a, b] = await claimRuns(d.id, 2);
      expect(await finish([outcome(a!, 500, 'Failed'), outcome(b!, 404, 'Failed')])).toEqual({
        paused: [{ jobId: d.id, kind: 'failures', reason: 'paused after 2 consecutive failed executions' }],
      });
    });

    it('pausedReason: set by the update that pauses, cleared with the count when the job resumes', async () => {
      const c = await cron({ pauseAfterFailures: 5 });
      await runOnce(c.id, 'Failed');
      expect(await store().cronUpdate({ id: c.id, status: 'Paused', pausedReason: 'maintenance until Monday' })).toMatchObject({
        status: 'Paused',
        pausedReason: 'maintenance until Monday',
        consecutiveFailures: 1,
      });
      expect(await job(c.id)).toMatchObject({ pausedReason: 'maintenance until Monday' });
      expect(await store().cronUpdate({ id: c.id, name: 'renamed' })).toMatchObject({ status: 'Paused', pausedReason: 'maintenance until Monday' });
      expect(await store().cronUpdate({ id: c.id, status: 'Active', recomputeAfter: clock })).toMatchObject({
        status: 'Active',
        pausedReason: null,
        consecutiveFailures: 0,
      });
      expect(await store().cronUpdate({ id: c.id, status: 'Paused' })).toMatchObject({ status: 'Paused', pausedReason: null });
    });

    it('an outcome of a deleted cron job finishes its execution and pauses nothing', async () => {
      const c = await cron({ pauseAfterFailures: 1 });
      const [run] = await claimRuns(c.id);
      await store().cronDelete({ id: c.id });
      expect(await finish([outcome(run!, 410, 'Failed')])).toEqual({ paused: [] });
      expect((await store().executionGet({ id: run!.executionId }))!.status).toBe('Failed');
    });

    it('an auto-pause writes cron.auto_paused for the channels that want it, in the same finish write', async () => {
      const c = await cron({ pauseAfterFailures: 1 });
      const gone = await cron();
      const wants = await store().channelCreate({
        id: newId(), name: 'paused', type: 'webhook', url: 'https://example.com/n', events: ['cron.auto_paused'], jobIds: null, now: T0 - 500,
      });
      await store().channelCreate({
        id: newId(), name: 'failed only', type: 'webhook', url: 'https://example.com/f', events: ['execution.failed'], jobIds: [gone.id], now: T0 - 500,
      });
      const [a] = await claimRuns(c.id);
      const [b] = await claimRuns(gone.id);
      const result = await finish([outcome(a!, 500, 'Failed'), outcome(b!, 410, 'Failed')]);
      expect(result.paused.map((p) => p.jobId).sort()).toEqual([c.id, gone.id].sort());
      const rows = await store().notificationsClaim({ nodeId: 'reader', now: clock + 60_000, limit: 100, leaseMs: 30_000 });
      const paused = rows.filter((r) => r.eventType === 'cron.auto_paused');
      expect(paused.map((r) => [r.channelId, r.jobId, r.reason]).sort()).toEqual(
        [
          [wants.id, c.id, 'paused after 1 consecutive failed executions'],
          [wants.id, gone.id, GONE],
        ].sort(),
      );
      expect(paused.every((r) => r.jobType === 'cron' && r.occurredAt === clock + 3)).toBe(true);
      // The other channel wants only execution.failed (of the 410 job).
      expect(rows.filter((r) => r.eventType === 'execution.failed').map((r) => r.jobId)).toEqual([gone.id]);
    });
  });
}
