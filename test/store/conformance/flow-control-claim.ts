/**
 * Conformance of the claim's flow control (store/rules/flow-control.ts, each store's claim/held.ts):
 * calls of a key wait as Pending executions and start within its parallelism and its rate (a
 * sliding window), keys in turn, calls without a key first; a pause holds them, a change of limits
 * and a finish make them ready again; a receiver's hold stops the key until its end; retries go
 * through the same limits. Registered inside `exerciseStore` (index.ts), so every store runs it
 * against a fresh, migrated database per test. Time is injected (`now`); only the `Store`
 * interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { ClaimedExecution } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { FLOW_CONTROL_RATE_MARGIN_MS, FLOW_CONTROL_RECHECK_MS } from '../../../src/store/rules/flow-control.js';
import { suiteHelpers, T0 } from './fixtures.js';

/**
 * Registers the describe block 'flow control at the claim' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeFlowControlClaim(current: () => Store): void {
  describe('flow control at the claim', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish, retryAt } = suiteHelpers(current);
    const put = (key: string, o: { parallelism?: number | null; rate?: number | null; periodMs?: number; paused?: boolean }, now = T0 - 1) =>
      store().flowControlKeyPut({ key, parallelism: o.parallelism ?? null, rate: o.rate ?? null, periodMs: o.periodMs ?? 1_000, paused: o.paused ?? false, now });
    const schedules = async (n: number, key: string | undefined, at = T0) => {
      for (let i = 0; i < n; i++) await newSchedule({ scheduledAt: at + i, ...(key !== undefined && { flowControlKey: key }) });
    };
    const keysOf = (items: ClaimedExecution[]) => items.map((c) => c.flowControlKey ?? '-');

    it('a key with parallelism 2 starts two calls, oldest first; a finish frees a slot; the others wait Pending', async () => {
      await put('api', { parallelism: 2 });
      await schedules(5, 'api');
      const first = await claim(T0 + 10);
      expect(first.map((c) => c.scheduledFor)).toEqual([T0, T0 + 1]);
      expect(first[0]).toMatchObject({ flowControlKey: 'api', attempt: 1, waitedMs: 10 });
      expect(await claim(T0 + 20)).toEqual([]);
      await finish(first[0]!);
      const next = await claim(T0 + 30);
      expect(next.map((c) => c.scheduledFor)).toEqual([T0 + 2]);
      expect(next[0]!.waitedMs).toBe(30 - 2);
      expect(await claim(T0 + 40)).toEqual([]);
    });

    it('names every key in use; the state of a key counts its waiting calls, its calls in flight and its starts', async () => {
      await put('rated', { parallelism: 1, rate: 5, periodMs: 1_000 });
      await put('idle', { parallelism: 1 });
      await schedules(3, 'rated');
      await newCron({ flowControlKey: 'named' });
      expect(await store().flowControlKeyNames()).toEqual(['idle', 'named', 'rated']);
      await claim(T0 + 10);
      const state = (key: string, now: number) => store().flowControlKeyState({ key, now, rate: true, periodMs: 1_000 });
      expect(await state('rated', T0 + 20)).toEqual({ key: 'rated', waiting: 2, inFlight: 1, rateUsed: 1, oldestWaitingSince: T0 + 1 });
      expect(await state('rated', T0 + 2_000)).toMatchObject({ rateUsed: 0, waiting: 2 });
      expect(await store().flowControlKeyState({ key: 'idle', now: T0, rate: false, periodMs: 1_000 })).toEqual({
        key: 'idle',
        waiting: 0,
        inFlight: 0,
        rateUsed: null,
        oldestWaitingSince: null,
      });
    });

    it('the job lists filter by flowControlKey, alone and with the other filters', async () => {
      await schedules(2, 'a');
      await schedules(1, 'b');
      await schedules(1, undefined);
      await newCron({ flowControlKey: 'a' });
      const page = (o: { flowControlKey: string; status?: 'Pending' }) =>
        store().schedulePage({ limit: 10, cursor: null, status: o.status ?? null, name: null, tags: [], flowControlKey: o.flowControlKey });
      expect((await page({ flowControlKey: 'a' })).schedules.map((s) => s.flowControlKey)).toEqual(['a', 'a']);
      expect((await page({ flowControlKey: 'b', status: 'Pending' })).schedules).toHaveLength(1);
      expect((await page({ flowControlKey: 'c' })).schedules).toEqual([]);
      const tagged = await store().schedulePage({ limit: 10, cursor: null, status: null, name: null, tags: ['a'], flowControlKey: 'a' });
      expect(tagged.schedules).toHaveLength(2);
      const cron = await store().cronPage({ limit: 10, cursor: null, status: null, name: null, tags: [], flowControlKey: 'a' });
      expect(cron.cronJobs).toHaveLength(1);
    });

    it('a key not configured has no limits: every due call of it starts', async () => {
      await schedules(3, 'free', T0 + 5);
      expect(keysOf(await claim(T0 + 200))).toEqual(['free', 'free', 'free']);
    });

    it('calls without a key are claimed before calls waiting for a key', async () => {
      await put('slow', { parallelism: 1 });
      await schedules(3, 'slow');
      const [a] = await claim(T0 + 10);
      await schedules(2, undefined, T0 + 100);
      await finish(a!);
      expect(keysOf(await claim(T0 + 200, { limit: 2 }))).toEqual(['-', '-']);
      expect(keysOf(await claim(T0 + 201, { limit: 2 }))).toEqual(['slow']);
    });

    it('a backlog of keyed calls due earlier does not hold back calls without a key due after them', async () => {
      await put('backlog', { paused: true });
      await schedules(30, 'backlog', T0);
      await schedules(2, undefined, T0 + 50);
      // A read of 4 candidates is all keyed: the claim reads again, within the same claim.
      expect(keysOf(await claim(T0 + 100, { limit: 4 }))).toEqual(['-', '-']);
    });

    it('the room of a claim is shared between keys in turn: a large backlog does not delay a small key', async () => {
      await put('big', { paused: true });
      await put('small', { paused: true });
      await schedules(10, 'big', T0);
      await schedules(2, 'small', T0 + 50);
      expect(await claim(T0 + 100)).toEqual([]); // all of them now wait for their keys
      await store().flowControlKeySetPaused({ key: 'big', paused: false, now: T0 + 101 });
      await store().flowControlKeySetPaused({ key: 'small', paused: false, now: T0 + 101 });
      const items = await claim(T0 + 102, { limit: 4 });
      expect(keysOf(items).sort()).toEqual(['big', 'big', 'small', 'small']);
      expect(items.map((c) => c.scheduledFor).sort()).toEqual([T0, T0 + 1, T0 + 50, T0 + 51]);
    });

    it('a rate of 2 per second never has more than 2 starts in any window of one second (a sliding window)', async () => {
      await put('rated', { rate: 2, periodMs: 1_000 });
      await schedules(6, 'rated');
      const starts: number[] = [];
      const at = async (now: number) => {
        for (const c of await claim(now)) {
          starts.push(now);
          await finish(c);
        }
      };
      await at(T0 + 10);
      await at(T0 + 600);
      expect(starts).toEqual([T0 + 10, T0 + 10]);
      // The next start may come once the oldest start has left the window (with the margin).
      const ready = T0 + 10 + 1_000 + FLOW_CONTROL_RATE_MARGIN_MS;
      expect(await store().nextDueAt()).toBe(ready);
      await at(ready - 1);
      expect(starts).toHaveLength(2);
      await at(ready);
      await at(ready + 500);
      expect(starts).toEqual([T0 + 10, T0 + 10, ready, ready]);
      for (let i = 0; i < starts.length; i++) {
        const inWindow = starts.filter((s) => s >= starts[i]! && s < starts[i]! + 1_000);
        expect(inWindow.length).toBeLessThanOrEqual(2);
      }
    });

    it('a paused key starts nothing until resumed; a change of limits applies to calls already waiting', async () => {
      await put('p', { parallelism: 1, paused: true });
      await schedules(3, 'p');
      expect(await claim(T0 + 10)).toEqual([]);
      const due = await store().nextDueAt();
      expect(due).toBe(T0 + 10 + FLOW_CONTROL_RECHECK_MS); // not a past instant: no claim loop
      await store().flowControlKeySetPaused({ key: 'p', paused: false, now: T0 + 20 });
      expect(await claim(T0 + 21)).toHaveLength(1);
      expect(await claim(T0 + 22)).toEqual([]);
      await put('p', { parallelism: 3 }, T0 + 30);
      expect(await claim(T0 + 31)).toHaveLength(2);
    });

    it("a receiver's hold (429 or 503 with Retry-After) stops the key until its end; other keys go on", async () => {
      await schedules(3, 'held');
      await schedules(1, 'other', T0 + 50);
      const [a] = await claim(T0 + 10, { limit: 1 });
      expect(a!.flowControlKey).toBe('held');
      await finish(a!, { status: 'Failed', statusCode: 429, flowControlKey: 'held', flowControlHoldUntil: T0 + 5_000 });
      expect(await store().flowControlKeyGet({ key: 'held' })).toMatchObject({ holdUntil: T0 + 5_000, parallelism: null, rate: null });
      expect(keysOf(await claim(T0 + 100))).toEqual(['other']);
      expect(await claim(T0 + 4_999)).toEqual([]);
      expect(await store().nextDueAt()).toBe(T0 + 5_000);
      expect(keysOf(await claim(T0 + 5_000))).toEqual(['held', 'held']);
    });

    it('a retry of a keyed call waits for its key like a first attempt; its attempt records the wait', async () => {
      await put('r', { parallelism: 1 });
      await schedules(2, 'r');
      const [a] = await claim(T0 + 10);
      await retryAt(a!, T0 + 100);
      const [b] = await claim(T0 + 100);
      expect(b).toMatchObject({ scheduledFor: T0 + 1, attempt: 1 }); // the other call took the free slot first
      expect(await claim(T0 + 200)).toEqual([]); // the retry waits: the slot is taken
      await finish(b!, { waitedMs: b!.waitedMs! });
      const [c] = await claim(T0 + 300);
      expect(c).toMatchObject({ executionId: a!.executionId, attempt: 2, waitedMs: 200, flowControlKey: 'r' });
      expect((await store().executionGet({ id: b!.executionId }))?.attempts[0]?.waitedMs).toBe(99);
    });

    it("a call leased again after its node's lease ended keeps its slot, and its start counts against the rate", async () => {
      await put('lease', { parallelism: 1, rate: 10, periodMs: 60_000 });
      await schedules(2, 'lease');
      const [a] = await claim(T0 + 10, { leaseMs: 1_000 });
      const expired = a!.leaseExpiresAt;
      const [again] = await claim(expired, { nodeId: 'node-b' });
      expect(again).toMatchObject({ executionId: a!.executionId, attempt: 2, flowControlKey: 'lease' });
      expect(await claim(expired + 1, { nodeId: 'node-b' })).toEqual([]); // the slot is still the first call's
      const state = await store().flowControlKeyState({ key: 'lease', now: expired + 1, rate: true, periodMs: 60_000 });
      expect(state).toMatchObject({ inFlight: 1, waiting: 1, rateUsed: 2 });
    });

    it('cron occurrences and triggers of a keyed job wait for its key', async () => {
      await put('c', { parallelism: 1 });
      const job = await newCron({ flowControlKey: 'c' });
      await newCron({ flowControlKey: 'c' });
      const items = await claim(T0 + 10);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ jobType: 'cron', flowControlKey: 'c' });
      await store().jobTrigger({ jobType: 'cron', jobId: job.id, id: newId(), now: T0 + 20 });
      await finish(items[0]!);
      const next = await claim(T0 + 30);
      expect(next).toHaveLength(1);
      expect(next[0]!.flowControlKey).toBe('c');
    });
  });
}
