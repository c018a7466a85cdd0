/**
 * Conformance of the node-liveness operations (`nodeRegister`, `nodeHeartbeat`, `nodesReap`,
 * `nodesLive`, `nodeLeave`; src/store/contract/nodes.ts), registered inside `exerciseStore`
 * (index.ts), so every store runs them against a fresh, migrated database per test. Time is
 * injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { ClaimedExecution } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

/** `PUNCTUAL_NODE_TIMEOUT` of these tests. */
const TIMEOUT = 10_000;
/** The calls' own timeout: far longer than the node timeout, so only liveness can free them early. */
const CALL_TIMEOUT = 60_000;

/**
 * Registers the node-liveness tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeNodes(current: () => Store): void {
  describe('node liveness', () => {
    const store = () => current();

    /** A schedule due at T0, claimed by `nodeId` at `now` (its lease runs to now + 60 s + 5 s). */
    async function leasedTo(nodeId: string, now = T0): Promise<ClaimedExecution> {
      const s = await store().scheduleCreate({
        id: newId(),
        name: nodeId,
        scheduledAt: T0,
        endpoint: 'https://example.com/hook',
        data: {},
        tags: [],
        retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 60_000, delaysMs: null },
        timeoutMs: CALL_TIMEOUT,
        now: T0 - 1_000,
      });
      const { claimed } = await store().claimDue({ now, limit: 1, nodeId, leaseMs: 5_000, misfireThresholdMs: 60_000 });
      expect(claimed.map((c) => c.jobId)).toEqual([s.id]);
      return claimed[0]!;
    }

    const live = async (now: number) => (await store().nodesLive({ now, timeoutMs: TIMEOUT })).map((n) => n.nodeId);

    it('a registered node is live while it heartbeats, and dead once its heartbeat is older than the timeout', async () => {
      await store().nodeRegister({ nodeId: 'a', role: 'dispatcher', now: T0 });
      await store().nodeRegister({ nodeId: 'b', role: 'all', now: T0 + 1 });
      expect(await store().nodesLive({ now: T0 + 5_000, timeoutMs: TIMEOUT })).toEqual([
        { nodeId: 'a', role: 'dispatcher', startedAt: T0, heartbeatAt: T0 },
        { nodeId: 'b', role: 'all', startedAt: T0 + 1, heartbeatAt: T0 + 1 },
      ]);
      expect(await store().nodeHeartbeat({ nodeId: 'b', now: T0 + 8_000 })).toBe(true);
      expect(await store().nodeHeartbeat({ nodeId: 'b', now: T0 + 7_000 })).toBe(true); // never backwards
      expect(await live(T0 + TIMEOUT)).toEqual(['a', 'b']); // exactly the timeout: still live
      expect(await live(T0 + TIMEOUT + 1)).toEqual(['b']);
      expect((await store().nodesLive({ now: T0 + 9_000, timeoutMs: TIMEOUT }))[1]!.heartbeatAt).toBe(T0 + 8_000);
      expect(await live(T0 + 18_001)).toEqual([]);
      // A node without a row is told so, and nothing is written.
      expect(await store().nodeHeartbeat({ nodeId: 'nobody', now: T0 })).toBe(false);
      expect(await live(T0)).toEqual(['a', 'b']);
    });

    it('reaping removes only the dead nodes and releases only their leases, whatever the calls’ timeout', async () => {
      await store().nodeRegister({ nodeId: 'a', role: 'dispatcher', now: T0 });
      await store().nodeRegister({ nodeId: 'b', role: 'dispatcher', now: T0 });
      const ofA = await leasedTo('a');
      const ofB = await leasedTo('b');
      const ofGhost = await leasedTo('ghost'); // a node without a row (never registered): left to expire
      await store().nodeHeartbeat({ nodeId: 'b', now: T0 + 5_000 });

      expect(await store().nodesReap({ now: T0 + TIMEOUT, timeoutMs: TIMEOUT })).toEqual({ nodeIds: [], released: 0 });
      expect(await store().nodesReap({ now: T0 + TIMEOUT + 1, timeoutMs: TIMEOUT })).toEqual({ nodeIds: ['a'], released: 1 });
      expect(await live(T0 + TIMEOUT + 1)).toEqual(['b']);

      // a's execution is due at once (long before its lease of 65 s), as the next attempt of the same execution.
      const { claimed } = await store().claimDue({ now: T0 + TIMEOUT + 1, limit: 10, nodeId: 'b', leaseMs: 5_000, misfireThresholdMs: 60_000 });
      expect(claimed.map((c) => [c.executionId, c.attempt])).toEqual([[ofA.executionId, 2]]);
      for (const e of [ofB, ofGhost]) expect((await store().executionGet({ id: e.executionId }))!.status).toBe('Running');

      // a's late outcome of attempt 1 is ignored: b holds the execution now.
      await store().executionsFinish({
        nodeId: 'a',
        outcomes: [{ executionId: ofA.executionId, attempt: 1, status: 'Succeeded', nextAttemptAt: null, startedAt: T0, durationMs: 5, statusCode: 200, error: null, responseBody: null }],
      });
      const e = (await store().executionGet({ id: ofA.executionId }))!;
      expect([e.status, e.attempts]).toEqual(['Running', []]);

      // Reaping again finds nothing more.
      expect(await store().nodesReap({ now: T0 + TIMEOUT + 2, timeoutMs: TIMEOUT })).toEqual({ nodeIds: [], released: 0 });
    });

    it('a late outcome of a reaped node still counts while its execution was not claimed again', async () => {
      await store().nodeRegister({ nodeId: 'a', role: 'all', now: T0 });
      const ofA = await leasedTo('a');
      expect((await store().nodesReap({ now: T0 + 20_000, timeoutMs: TIMEOUT })).released).toBe(1);
      await store().executionsFinish({
        nodeId: 'a',
        outcomes: [{ executionId: ofA.executionId, attempt: 1, status: 'Succeeded', nextAttemptAt: null, startedAt: T0, durationMs: 5, statusCode: 200, error: null, responseBody: null }],
      });
      const e = (await store().executionGet({ id: ofA.executionId }))!;
      expect([e.status, e.attempts.length]).toEqual(['Succeeded', 1]);
      expect((await store().claimDue({ now: T0 + 20_000, limit: 10, nodeId: 'b', leaseMs: 5_000, misfireThresholdMs: 60_000 })).claimed).toEqual([]);
    });

    it('a node taken for dead learns it at its next heartbeat and registers again; leaving removes its row', async () => {
      await store().nodeRegister({ nodeId: 'a', role: 'dispatcher', now: T0 });
      await store().nodesReap({ now: T0 + 20_000, timeoutMs: TIMEOUT });
      expect(await store().nodeHeartbeat({ nodeId: 'a', now: T0 + 21_000 })).toBe(false);
      expect(await live(T0 + 21_000)).toEqual([]);
      await store().nodeRegister({ nodeId: 'a', role: 'dispatcher', now: T0 + 21_000 });
      expect(await store().nodeHeartbeat({ nodeId: 'a', now: T0 + 22_000 })).toBe(true);
      expect(await store().nodesLive({ now: T0 + 22_000, timeoutMs: TIMEOUT })).toEqual([
        { nodeId: 'a', role: 'dispatcher', startedAt: T0 + 21_000, heartbeatAt: T0 + 22_000 },
      ]);
      await store().nodeLeave({ nodeId: 'a' });
      await store().nodeLeave({ nodeId: 'a' });
      expect(await live(T0 + 22_000)).toEqual([]);
      expect(await store().nodeHeartbeat({ nodeId: 'a', now: T0 + 23_000 })).toBe(false);
    });
  });
}
