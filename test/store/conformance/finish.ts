/**
 * Conformance of `executionsFinish`: the outcomes of attempts recorded in batches, only from the
 * node that holds the lease, with trace ids and fractional instants. Registered inside
 * `exerciseStore` (index.ts), so every store runs it against a fresh, migrated database per test.
 * Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { Execution } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { CALLED, suiteHelpers, T0, TIMEOUT } from './fixtures.js';

/**
 * Registers the describe block 'executionsFinish' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeFinish(current: () => Store): void {
  describe('executionsFinish', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, outcome, finish } = suiteHelpers(current);

    it('a success makes the schedule Succeeded, a failure Failed, in one batch', async () => {
      const ok = await newSchedule({ scheduledAt: T0 });
      const ko = await newSchedule({ scheduledAt: T0 + 1 });
      const claimed = await claim(T0 + 1);
      const byJob = new Map(claimed.map((c) => [c.jobId, c]));
      await store().executionsFinish({
        nodeId: 'node-a',
        outcomes: [
          outcome(byJob.get(ok.id)!),
          outcome(byJob.get(ko.id)!, { status: 'Failed', statusCode: null, error: 'timeout', responseBody: null }),
        ],
      });
      expect((await store().scheduleGet({ id: ok.id }))?.status).toBe('Succeeded');
      expect((await store().scheduleGet({ id: ko.id }))?.status).toBe('Failed');
      expect(await store().nextDueAt()).toBeNull();
      expect(await store().executionGet({ id: byJob.get(ko.id)!.executionId })).toMatchObject({
        status: 'Failed',
        finishedAt: T0 + 1 + 3 + 12,
        nextAttemptAt: null,
        attempts: [{ number: 1, startedAt: T0 + 4, durationMs: 12, statusCode: null, error: 'timeout', responseBody: null }],
      });
    });

    it('an outcome for a lease that was lost is ignored; the new holder decides', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0, { nodeId: 'node-a', leaseMs: 1000 });
      const [b] = await claim(T0 + 2000, { nodeId: 'node-b', leaseMs: 1000 });
      await store().executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!)] });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Running');
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Running', attempts: [] });
      expect(await store().nextDueAt()).toBe(T0 + 2000 + TIMEOUT + 1000);
      await store().executionsFinish({ nodeId: 'node-b', outcomes: [outcome(b!, { status: 'Failed', statusCode: 500 })] });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Failed');
    });

    it('an outcome from a node that never held the lease is ignored', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0, { nodeId: 'node-a' });
      await store().executionsFinish({ nodeId: 'intruder', outcomes: [outcome(a!)] });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Running');
    });

    it('a second outcome for a finished execution is ignored', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0);
      await store().executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!, { status: 'Failed', statusCode: 503 })] });
      await store().executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!)] });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Failed');
      expect((await store().executionGet({ id: a!.executionId }))?.attempts).toHaveLength(1);
    });

    it('outcomes for a deleted schedule or an unknown execution, and an empty batch, are harmless', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0);
      await store().scheduleDelete({ id: s.id });
      await store().executionsFinish({
        nodeId: 'node-a',
        outcomes: [outcome(a!), outcome({ ...a!, executionId: newId() })],
      });
      expect(await store().scheduleGet({ id: s.id })).toBeNull();
      expect(await store().nextDueAt()).toBeNull();
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Succeeded' });
    });

    it('a cron outcome ends the lease and leaves the job Active on its schedule', async () => {
      const c = await newCron({ nextInvocation: T0 });
      const [a] = await claim(T0, { leaseMs: 1000 });
      await store().executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!, { status: 'Failed', statusCode: 404 })] });
      expect(await store().cronGet({ id: c.id })).toEqual({
        ...c,
        invocations: 1,
        nextInvocation: T0 + 60_000,
        lastInvocation: T0,
        lastStatus: 'Failed',
        skippedOccurrences: 0,
        consecutiveFailures: 1,
      });
      expect(await store().nextDueAt()).toBe(T0 + 60_000);
    });

    it("records each attempt's trace id and span id (Trace Context), and reads them back in lists", async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a1] = await claim(T0);
      const traceId = a1!.executionId.replaceAll('-', '');
      await finish(a1!, { status: 'Retrying', nextAttemptAt: T0 + 100, statusCode: 503, traceId, spanId: '00f067aa0ba902b7' });
      const [a2] = await claim(T0 + 100);
      await finish(a2!, { startedAt: T0 + 101, traceId, spanId: 'b7ad6b7169203331' });
      const ids = (e: Execution | null | undefined) => e?.attempts.map((a) => [a.number, a.traceId, a.spanId]);
      const expected = [[1, traceId, '00f067aa0ba902b7'], [2, traceId, 'b7ad6b7169203331']];
      expect(ids(await store().executionGet({ id: a1!.executionId }))).toEqual(expected);
      const page = await store().executionList({ jobType: 'schedule', jobId: s.id, limit: 10, cursor: null });
      expect(ids(page.executions[0])).toEqual(expected);
    });

    it('accepts fractional instants and durations (performance.now() differences); a retry is never early', async () => {
      await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0);
      await finish(a!, { status: 'Retrying', nextAttemptAt: T0 + 100.2, startedAt: T0 + 3.7, durationMs: 12.3456 });
      expect(await store().nextDueAt()).toBe(T0 + 101);
      expect((await store().executionGet({ id: a!.executionId }))?.attempts).toEqual([
        { number: 1, startedAt: T0 + 3, durationMs: 12, statusCode: 200, error: null, responseBody: 'ok', ...CALLED },
      ]);
      expect(await claim(T0 + 100)).toEqual([]);
      const [b] = await claim(T0 + 101);
      await finish(b!, { durationMs: 0.4 });
      expect(await store().nextDueAt()).toBeNull();
    });
  });
}
