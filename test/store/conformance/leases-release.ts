/**
 * Conformance of `leasesRelease`: a graceful stop hands its calls back, due again at once.
 * Registered inside `exerciseStore` (index.ts), so every store runs it against a fresh, migrated
 * database per test. Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { Store } from '../../../src/store/store.js';
import { suiteHelpers, T0, TIMEOUT } from './fixtures.js';

/**
 * Registers the describe block 'leasesRelease' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeLeasesRelease(current: () => Store): void {
  describe('leasesRelease', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish, retryAt } = suiteHelpers(current);

    it("makes the node's Running executions due at once: any node claims them as the same execution, attempt + 1", async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const c = await newCron({ nextInvocation: T0 });
      const held = await claim(T0, { leaseMs: 60_000 });
      expect(held).toHaveLength(2);
      expect(await claim(T0 + 500, { nodeId: 'node-b' })).toEqual([]); // leased until T0 + 61 s
      await store().leasesRelease({ nodeId: 'node-a', executionIds: held.map((x) => x.executionId), now: T0 + 500 });
      expect(await store().nextDueAt()).toBe(T0 + 500);
      const again = await claim(T0 + 500, { nodeId: 'node-b', leaseMs: 1000 });
      expect(again.map((x) => [x.executionId, x.attempt]).sort()).toEqual(held.map((x) => [x.executionId, 2]).sort());
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Running');
      expect(await store().cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
    });

    it("leaves alone other nodes' leases, finished and Retrying executions, unknown ids and an empty list", async () => {
      await newSchedule({ scheduledAt: T0 });
      await newSchedule({ scheduledAt: T0 });
      await newSchedule({ scheduledAt: T0 });
      const [mine] = await claim(T0, { limit: 1, leaseMs: 60_000 });
      const [theirs] = await claim(T0, { limit: 1, nodeId: 'node-b', leaseMs: 60_000 });
      const [retrying] = await claim(T0, { limit: 1, leaseMs: 60_000 });
      await retryAt(retrying!, T0 + 30_000);
      const [done] = await (async () => {
        await newSchedule({ scheduledAt: T0 });
        return claim(T0, { limit: 1, leaseMs: 60_000 });
      })();
      await finish(done!);

      await store().leasesRelease({ nodeId: 'node-a', executionIds: [], now: T0 + 10 });
      await store().leasesRelease({
        nodeId: 'node-a',
        executionIds: [theirs!.executionId, retrying!.executionId, done!.executionId, newId()],
        now: T0 + 10,
      });
      expect(await claim(T0 + 10, { nodeId: 'node-c' })).toEqual([]);
      expect(await store().nextDueAt()).toBe(T0 + 30_000); // the retry; the leases run to T0 + 61 s
      expect(await store().executionGet({ id: retrying!.executionId })).toMatchObject({ status: 'Retrying' });
      expect(await store().executionGet({ id: done!.executionId })).toMatchObject({ status: 'Succeeded' });
      // Only the node's own id is handed back.
      await store().leasesRelease({ nodeId: 'node-a', executionIds: [mine!.executionId], now: T0 + 20 });
      expect((await claim(T0 + 20, { nodeId: 'node-c' })).map((x) => x.executionId)).toEqual([mine!.executionId]);
    });

    it('never pushes a lease later, and a late outcome of the released attempt is kept until the execution is claimed again', async () => {
      await newSchedule({ scheduledAt: T0 });
      await newSchedule({ scheduledAt: T0 });
      const [a, b] = await claim(T0, { leaseMs: 1000 }); // both leased until T0 + 2 s
      // A release "at" a later instant than the lease's expiry keeps the earlier expiry.
      await store().leasesRelease({ nodeId: 'node-a', executionIds: [a!.executionId, b!.executionId], now: T0 + 5000 });
      expect(await store().nextDueAt()).toBe(T0 + TIMEOUT + 1000);
      // The outcome of a's released attempt arrives before anyone claims it again: recorded.
      await finish(a!);
      expect(await store().executionGet({ id: a!.executionId })).toMatchObject({ status: 'Succeeded', attempts: [{ number: 1 }] });
      // b is taken over; its old attempt's outcome then counts for nothing.
      const [b2] = await claim(T0 + TIMEOUT + 1000, { nodeId: 'node-b' });
      expect(b2).toMatchObject({ executionId: b!.executionId, attempt: 2 });
      await finish(b!, { status: 'Failed', statusCode: 500 });
      expect(await store().executionGet({ id: b!.executionId })).toMatchObject({ status: 'Running', attempts: [] });
    });
  });
}
