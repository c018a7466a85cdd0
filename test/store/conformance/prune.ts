/**
 * Conformance of `executionsPrune`: finished executions older than `before` deleted with their
 * attempts, oldest first, at most `limit`. Registered inside `exerciseStore` (index.ts), so every
 * store runs it against a fresh, migrated database per test. Time is injected (`now`); only the
 * `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { suiteHelpers, T0 } from './fixtures.js';

/**
 * Registers the describe block 'executionsPrune' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describePrune(current: () => Store): void {
  describe('executionsPrune', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish, retryAt, history } = suiteHelpers(current);

    it('deletes only finished executions older than `before`, oldest first, at most `limit`, with their attempts', async () => {
      const done = async (at: number, o: Partial<AttemptOutcome> = {}) => {
        await newSchedule({ scheduledAt: at });
        const [x] = await claim(at);
        await finish(x!, { startedAt: at, durationMs: 10, ...o });
        return x!.executionId;
      };
      const old1 = await done(T0); // finished T0 + 10
      const old2 = await done(T0 + 100, { status: 'Failed', statusCode: 404 }); // T0 + 110
      const recent = await done(T0 + 10_000);
      await newSchedule({ scheduledAt: T0 + 200 });
      const [running] = await claim(T0 + 200);
      await newSchedule({ scheduledAt: T0 + 300 });
      const [retrying] = await claim(T0 + 300);
      await retryAt(retrying!, T0 + 1_000_000);
      // A cron job: its older execution goes, its newest (lastInvocation) stays.
      const c = await newCron({ nextInvocation: T0 });
      const [c1] = await claim(T0);
      await finish(c1!, { startedAt: T0, durationMs: 50 }); // finished T0 + 50
      const [c2] = await claim(T0 + 60_000);
      await finish(c2!, { startedAt: T0 + 60_000, durationMs: 1 });

      expect(await store().executionsPrune({ before: T0 + 5000, limit: 1 })).toBe(1);
      expect(await store().executionGet({ id: old1 })).toBeNull();
      expect(await store().executionGet({ id: old2 })).not.toBeNull();
      expect(await store().executionsPrune({ before: T0 + 5000, limit: 100 })).toBe(2); // old2, c1
      expect(await store().executionsPrune({ before: T0 + 5000, limit: 100 })).toBe(0);
      for (const id of [old1, old2, c1!.executionId]) expect(await store().executionGet({ id })).toBeNull();
      for (const id of [recent, running!.executionId, retrying!.executionId, c2!.executionId]) expect(await store().executionGet({ id })).not.toBeNull();
      expect(await store().cronGet({ id: c.id })).toMatchObject({ lastInvocation: T0 + 60_000, lastStatus: 'Succeeded' });
      // Far in the future every finished one is old, except each cron job's newest.
      expect(await store().executionsPrune({ before: T0 + 86_400_000, limit: 100 })).toBe(1); // recent
      expect((await history('cron', c.id)).map((e) => e.id)).toEqual([c2!.executionId]);
      expect(await store().executionsPrune({ before: T0 + 86_400_000, limit: 100 })).toBe(0);
      // Once the cron job is gone, its last execution may go too.
      await store().cronDelete({ id: c.id });
      expect(await store().executionsPrune({ before: T0 + 86_400_000, limit: 100 })).toBe(1);
    });

    it('a limit of 0, or nothing to prune, deletes nothing', async () => {
      await newSchedule({ scheduledAt: T0 });
      const [x] = await claim(T0);
      await finish(x!);
      expect(await store().executionsPrune({ before: T0 + 1000, limit: 0 })).toBe(0);
      expect(await store().executionsPrune({ before: T0, limit: 10 })).toBe(0);
      expect(await store().executionsPrune({ before: T0 + 1000, limit: 10 })).toBe(1);
    });
  });
}
