/**
 * Conformance of the batch operations (`Store.scheduleCreateMany`, src/store/store-batch.ts),
 * registered inside `exerciseStore` (conformance.ts): every store runs them against a fresh,
 * migrated database per test. Only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import type { Store, ScheduleCreateParams } from '../../src/store/store.js';

/** 2030-01-01T00:00:00.000Z, as conformance.ts. */
const T0 = Date.UTC(2030, 0, 1);

const params = (n: number, o: Partial<ScheduleCreateParams> = {}): ScheduleCreateParams => ({
  id: newId(),
  name: `job ${n}`,
  scheduledAt: T0 + 1_000 * (50 - n),
  endpoint: `https://example.com/hook/${n}`,
  data: { n },
  tags: [`t${n % 3}`],
  retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000 },
  timeoutMs: 1_000,
  method: n % 2 === 0 ? 'PUT' : 'POST',
  headers: { 'X-N': String(n) },
  now: T0 - 60_000,
  ...o,
});

/**
 * Registers the batch tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeBatch(current: () => Store): void {
  describe('scheduleCreateMany', () => {
    it('stores every schedule as scheduleCreate would, and answers them in the order given', async () => {
      const batch = Array.from({ length: 40 }, (_, i) => params(i));
      const created = await current().scheduleCreateMany(batch);
      expect(created.map((s) => s.id)).toEqual(batch.map((p) => p.id));
      // Due as any schedule: the earliest of the batch is the next due.
      expect(await current().nextDueAt()).toBe(T0 + 1_000 * (50 - 39));
      const one = await current().scheduleCreate(params(99));
      for (const [i, s] of created.entries()) {
        expect(s).toEqual({ ...one, id: batch[i]!.id, name: `job ${i}`, scheduledAt: T0 + 1_000 * (50 - i), dueAt: T0 + 1_000 * (50 - i),
          endpoint: `https://example.com/hook/${i}`, data: { n: i }, tags: [`t${i % 3}`], method: i % 2 === 0 ? 'PUT' : 'POST', headers: { 'X-N': String(i) } });
        expect(await current().scheduleGet({ id: s.id })).toEqual(s);
      }
    });

    it('is all or nothing: one row the database refuses stores none of the batch', async () => {
      const taken = await current().scheduleCreate(params(1));
      const batch = [params(2), params(3), { ...params(4), id: taken.id }, params(5)];
      await expect(current().scheduleCreateMany(batch)).rejects.toThrow();
      for (const p of batch.filter((b) => b.id !== taken.id)) expect(await current().scheduleGet({ id: p.id })).toBeNull();
      expect((await current().scheduleList()).map((s) => s.id)).toEqual([taken.id]);
    });

    it('an empty batch stores nothing', async () => {
      expect(await current().scheduleCreateMany([])).toEqual([]);
      expect(await current().scheduleList()).toEqual([]);
    });

    it('takes 1,000 schedules in one call', async () => {
      const batch = Array.from({ length: 1_000 }, (_, i) => params(i, { tags: [] }));
      const created = await current().scheduleCreateMany(batch);
      expect(created).toHaveLength(1_000);
      expect((await current().scheduleList()).length).toBe(1_000);
    });
  });
}
