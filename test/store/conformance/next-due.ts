/**
 * Conformance of `nextDueAt`: the earliest instant anything is due (Pending schedules, Active cron
 * occurrences, waiting executions, leases), null when nothing waits. Registered inside
 * `exerciseStore` (index.ts), so every store runs it against a fresh, migrated database per test.
 * Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { suiteHelpers, T0, TIMEOUT } from './fixtures.js';

/**
 * Registers the describe block 'nextDueAt' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeNextDue(current: () => Store): void {
  describe('nextDueAt', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish, retryAt } = suiteHelpers(current);

    it('is null when nothing waits', async () => {
      expect(await store().nextDueAt()).toBeNull();
    });

    it('is the earliest Pending schedule, following updates and deletes', async () => {
      const a = await newSchedule({ scheduledAt: T0 + 500 });
      const b = await newSchedule({ scheduledAt: T0 + 300 });
      expect(await store().nextDueAt()).toBe(T0 + 300);
      await store().scheduleUpdate({ now: T0, id: a.id, scheduledAt: T0 + 100 });
      expect(await store().nextDueAt()).toBe(T0 + 100);
      await store().scheduleDelete({ id: a.id });
      expect(await store().nextDueAt()).toBe(T0 + 300);
      await store().scheduleDelete({ id: b.id });
      expect(await store().nextDueAt()).toBeNull();
    });

    it('is the earliest Active cron occurrence; Paused jobs do not count', async () => {
      const a = await newCron({ nextInvocation: T0 + 700 });
      await newCron({ nextInvocation: T0 + 900 });
      expect(await store().nextDueAt()).toBe(T0 + 700);
      await store().cronUpdate({ id: a.id, status: 'Paused' });
      expect(await store().nextDueAt()).toBe(T0 + 900);
    });

    it('counts the lease of a running execution until it finishes', async () => {
      await newSchedule({ scheduledAt: T0 });
      const [a] = await claim(T0, { leaseMs: 5000 });
      expect(await store().nextDueAt()).toBe(T0 + TIMEOUT + 5000);
      await finish(a!);
      expect(await store().nextDueAt()).toBeNull();
    });

    it('is the minimum across the four kinds', async () => {
      await newSchedule({ scheduledAt: T0 });
      await claim(T0, { leaseMs: 300 }); // lease due at T0 + 1300
      await newSchedule({ scheduledAt: T0 + 1400 });
      const c = await newCron({ nextInvocation: T0 + 200 });
      await newSchedule({ scheduledAt: T0 + 1 });
      const [r] = await claim(T0 + 1);
      await retryAt(r!, T0 + 250); // waiting, due at T0 + 250
      expect(await store().nextDueAt()).toBe(T0 + 200);
      await store().cronDelete({ id: c.id });
      expect(await store().nextDueAt()).toBe(T0 + 250);
      await claim(T0 + 250, { leaseMs: 10_000 });
      expect(await store().nextDueAt()).toBe(T0 + 1300);
    });

    it('reports a past instant while due work waits (claim is then worth calling at once)', async () => {
      await newSchedule({ scheduledAt: T0 - 5000 });
      expect(await store().nextDueAt()).toBe(T0 - 5000);
    });
  });
}
