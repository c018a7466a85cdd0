/**
 * Conformance of the batch operations (`Store.scheduleCreateMany`, src/store/contract/batch.ts) and
 * of the group commit of creates (src/store/group-commit.ts: concurrent creates share one
 * transaction), registered inside `exerciseStore` (index.ts): every store runs them against
 * a fresh, migrated database per test. Only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { Schedule } from '../../../src/domain/types.js';
import type { Store, ScheduleCreateParams } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const params = (n: number, o: Partial<ScheduleCreateParams> = {}): ScheduleCreateParams => ({
  id: newId(),
  name: `job ${n}`,
  scheduledAt: T0 + 1_000 * (50 - n),
  endpoint: `https://example.com/hook/${n}`,
  data: { n },
  tags: [`t${n % 3}`],
  retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000, delaysMs: null },
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

/** Names of the fulfilled results' rows, or `rejected`, by promise. */
function outcomes(settled: PromiseSettledResult<Schedule | Schedule[]>[]): (string[] | 'rejected')[] {
  return settled.map((s) => (s.status === 'rejected' ? 'rejected' : [s.value].flat().map((x) => x.name)));
}

/** Names of the stored schedules, sorted. */
async function storedNames(store: Store): Promise<string[]> {
  return (await store.scheduleList()).map((s) => s.name).sort();
}

/**
 * Registers the tests of creates made concurrently (started in one turn of the event loop, so
 * written in one group): each caller gets its own rows, and a unit the database refuses fails
 * alone. The refusal is real: an id already taken (the primary key).
 * @param current the store of the running test
 */
export function describeGroupCommit(current: () => Store): void {
  describe('concurrent creates (group commit)', () => {
    it('answers each of 200 concurrent creates, single and batch, with its own rows, all stored', async () => {
      const singles = Array.from({ length: 150 }, (_, i) => params(i, { name: `single ${i}` }));
      const batches = Array.from({ length: 10 }, (_, b) => Array.from({ length: 5 }, (_, i) => params(i, { name: `batch ${b}.${i}` })));
      const [one, many] = await Promise.all([
        Promise.all(singles.map((p) => current().scheduleCreate(p))),
        Promise.all(batches.map((b) => current().scheduleCreateMany(b))),
      ]);
      for (const [i, s] of one.entries()) expect([s.id, s.name, s.data]).toEqual([singles[i]!.id, `single ${i}`, singles[i]!.data]);
      for (const [b, rows] of many.entries()) {
        expect(rows.map((s) => [s.id, s.name])).toEqual(batches[b]!.map((p) => [p.id, p.name]));
      }
      const stored = await current().scheduleList();
      expect(stored).toHaveLength(200);
      for (const s of [...one, ...many.flat()]) expect(await current().scheduleGet({ id: s.id })).toEqual(s);
    });

    it('fails only the unit the database refuses; the others of its group are stored', async () => {
      const taken = await current().scheduleCreate(params(0, { name: 'taken' }));
      const settled = await Promise.allSettled<Schedule | Schedule[]>([
        current().scheduleCreate(params(1, { name: 'a' })),
        current().scheduleCreate(params(2, { name: 'dup', id: taken.id })),
        current().scheduleCreateMany([params(3, { name: 'b1' }), params(4, { name: 'b2' })]),
        current().scheduleCreate(params(5, { name: 'c' })),
      ]);
      expect(outcomes(settled)).toEqual([['a'], 'rejected', ['b1', 'b2'], ['c']]);
      expect(await storedNames(current())).toEqual(['a', 'b1', 'b2', 'c', 'taken']);
      expect((await current().scheduleGet({ id: taken.id }))?.name).toBe('taken');
    });

    it('keeps a batch all or nothing inside a group', async () => {
      const taken = await current().scheduleCreate(params(0, { name: 'taken' }));
      const settled = await Promise.allSettled<Schedule | Schedule[]>([
        current().scheduleCreate(params(1, { name: 'a' })),
        current().scheduleCreateMany([params(2, { name: 'x1' }), params(3, { name: 'x2', id: taken.id }), params(4, { name: 'x3' })]),
        current().scheduleCreateMany([params(5, { name: 'y1' }), params(6, { name: 'y2' })]),
      ]);
      expect(outcomes(settled)).toEqual([['a'], 'rejected', ['y1', 'y2']]);
      expect(await storedNames(current())).toEqual(['a', 'taken', 'y1', 'y2']);
    });

    it('of two concurrent creates with one new id, stores the first and refuses the second', async () => {
      const id = newId();
      const settled = await Promise.allSettled<Schedule | Schedule[]>([
        current().scheduleCreate(params(1, { name: 'first', id })),
        current().scheduleCreate(params(2, { name: 'other' })),
        current().scheduleCreate(params(3, { name: 'second', id })),
      ]);
      expect(outcomes(settled)).toEqual([['first'], ['other'], 'rejected']);
      expect((await current().scheduleGet({ id }))?.name).toBe('first');
    });
  });
}
