/**
 * Conformance of `dueCount` (the due-but-unclaimed gauge, by source) and `executionRetryingCount`.
 * Registered inside `exerciseStore` (index.ts), so every store runs it against a fresh, migrated
 * database per test. Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { Store } from '../../../src/store/store.js';
import { suiteHelpers, T0, TIMEOUT } from './fixtures.js';

/**
 * Registers the describe block 'dueCount' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeDueCount(current: () => Store): void {
  describe('dueCount', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish, retryAt } = suiteHelpers(current);

    const NONE = { schedule: 0, cron: 0, waiting: 0, lease: 0 };

    it('is zero for every source when nothing waits', async () => {
      expect(await store().dueCount({ now: T0, limit: 100 })).toEqual(NONE);
    });

    it('counts Pending schedules and Active cron jobs due at now (inclusive); later, Paused and claimed ones do not count', async () => {
      await newSchedule({ scheduledAt: T0 - 1000 });
      await newSchedule({ scheduledAt: T0 });
      await newSchedule({ scheduledAt: T0 + 1 });
      await newCron({ nextInvocation: T0 - 120_000 }); // missed several occurrences: still one job due
      const paused = await newCron({ nextInvocation: T0 });
      await store().cronUpdate({ id: paused.id, status: 'Paused' });
      await newCron({ nextInvocation: T0 + 1 });
      expect(await store().dueCount({ now: T0, limit: 100 })).toEqual({ ...NONE, schedule: 2, cron: 1 });
      expect(await store().dueCount({ now: T0 + 1, limit: 100 })).toEqual({ ...NONE, schedule: 3, cron: 2 });
      expect(await store().dueCount({ now: T0 - 1001, limit: 100 })).toEqual({ ...NONE, cron: 1 });
      expect(await store().dueCount({ now: T0 - 120_001, limit: 100 })).toEqual(NONE);

      await claim(T0, { leaseMs: 10_000 }); // claimed work is Running under a live lease: not due
      expect(await store().dueCount({ now: T0, limit: 100 })).toEqual(NONE);
      expect(await store().dueCount({ now: T0 + 1, limit: 100 })).toEqual({ ...NONE, schedule: 1, cron: 1 });
    });

    it('counts waiting executions (retries, triggers) once their attempt is due, and expired leases', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0, { leaseMs: 1000 }); // lease expires at T0 + TIMEOUT + 1000
      await newSchedule({ scheduledAt: T0 + 10 });
      const [r] = await claim(T0 + 10);
      await retryAt(r!, T0 + 500);
      const later = await newSchedule({ scheduledAt: T0 + 3_600_000 });
      await store().jobTrigger({ jobType: 'schedule', jobId: later.id, id: newId(), now: T0 + 20 });

      expect(await store().dueCount({ now: T0 + 20, limit: 100 })).toEqual({ ...NONE, waiting: 1 });
      expect(await store().dueCount({ now: T0 + 500, limit: 100 })).toEqual({ ...NONE, waiting: 2 });
      expect(await store().dueCount({ now: T0 + TIMEOUT + 999, limit: 100 })).toEqual({ ...NONE, waiting: 2 });
      expect(await store().dueCount({ now: T0 + TIMEOUT + 1000, limit: 100 })).toEqual({ ...NONE, waiting: 2, lease: 1 });

      await finish(a!); // the lease holder's outcome: no longer Running
      expect(await store().dueCount({ now: T0 + TIMEOUT + 1000, limit: 100 })).toEqual({ ...NONE, waiting: 2 });
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
    });

    it('executionRetryingCount counts Retrying executions by job type, due or not, up to limit', async () => {
      expect(await store().executionRetryingCount({ limit: 100 })).toEqual({ schedule: 0, cron: 0 });
      for (let i = 0; i < 3; i++) await newSchedule({ scheduledAt: T0 - i });
      const c = await newCron({ nextInvocation: T0 });
      const claimed = await claim(T0);
      const schedules = claimed.filter((x) => x.jobType === 'schedule');
      await retryAt(schedules[0]!, T0 + 86_400_000); // not due for a day: still waiting
      await retryAt(schedules[1]!, T0 + 1);
      await retryAt(claimed.find((x) => x.jobId === c.id)!, T0 + 86_400_000);
      const later = await newSchedule({ scheduledAt: T0 + 3_600_000 });
      await store().jobTrigger({ jobType: 'schedule', jobId: later.id, id: newId(), now: T0 }); // Pending, not a retry
      expect(await store().executionRetryingCount({ limit: 100 })).toEqual({ schedule: 2, cron: 1 });
      expect(await store().executionRetryingCount({ limit: 1 })).toEqual({ schedule: 1, cron: 1 });
      await claim(T0 + 1); // the due retry runs again: Running, no longer waiting
      expect(await store().executionRetryingCount({ limit: 100 })).toEqual({ schedule: 1, cron: 1 });
    });

    it('stops counting each source at limit', async () => {
      for (let i = 0; i < 5; i++) await newSchedule({ scheduledAt: T0 - i });
      for (let i = 0; i < 4; i++) await newCron({ nextInvocation: T0 - i });
      expect(await store().dueCount({ now: T0, limit: 3 })).toEqual({ ...NONE, schedule: 3, cron: 3 });
      expect(await store().dueCount({ now: T0, limit: 1 })).toEqual({ ...NONE, schedule: 1, cron: 1 });
      expect(await store().dueCount({ now: T0, limit: 1000 })).toEqual({ ...NONE, schedule: 5, cron: 4 });
    });

    it('only reads: the work it counts is still claimed afterwards', async () => {
      await newSchedule({ scheduledAt: T0 });
      await newCron({ nextInvocation: T0 });
      await store().dueCount({ now: T0, limit: 100 });
      expect(await store().nextDueAt()).toBe(T0);
      expect(await claim(T0)).toHaveLength(2);
      expect(await store().dueCount({ now: T0, limit: 100 })).toEqual(NONE);
    });
  });
}
