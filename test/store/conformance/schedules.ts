/**
 * Conformance of one-time schedules: create, get, list, update (only while Pending) and delete.
 * Registered inside `exerciseStore` (index.ts), so every store runs it against a fresh, migrated
 * database per test. Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { Store } from '../../../src/store/store.js';
import { REQUEST, suiteHelpers, T0, uuid } from './fixtures.js';

/**
 * Registers the describe block 'schedules' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeSchedules(current: () => Store): void {
  describe('schedules', () => {
    const store = () => current();
    const { claim, newSchedule } = suiteHelpers(current);

    it('create stores a Pending schedule with every field; get returns the same', async () => {
      const id = newId();
      const data = { nested: { list: [1, 'two', null, true], n: 1.5 }, unicode: 'é 🎉' };
      const s = await store().scheduleCreate({
        id,
        name: 'report',
        scheduledAt: T0 + 123,
        endpoint: 'https://example.com/r?q=1',
        data,
        tags: ['x', 'y'],
        retry: { maxAttempts: 7, initialDelayMs: 250, maxDelayMs: 90_000, delaysMs: null },
        timeoutMs: 4_500,
        ...REQUEST,
        successStatuses: [302, '2xx'],
        now: T0,
      });
      expect(s).toEqual({
        id,
        name: 'report',
        scheduledAt: T0 + 123,
        status: 'Pending',
        endpoint: 'https://example.com/r?q=1',
        data,
        tags: ['x', 'y'],
        createdAt: T0,
        retry: { maxAttempts: 7, initialDelayMs: 250, maxDelayMs: 90_000, delaysMs: null },
        timeoutMs: 4_500,
        dueAt: T0 + 123,
        ...REQUEST,
        successStatuses: [302, '2xx'],
        key: null,
        managedBy: null,
        flowControlKey: null,
      });
      expect(await store().scheduleGet({ id })).toEqual(s);
    });

    it('no data and no tags read back as {} and []', async () => {
      const s = await newSchedule({ data: {}, tags: [] });
      expect((await store().scheduleGet({ id: s.id }))).toMatchObject({ data: {}, tags: [] });
    });

    it('get of an unknown id is null', async () => {
      expect(await store().scheduleGet({ id: newId() })).toBeNull();
    });

    it('list is empty at first, then oldest first whatever the id order', async () => {
      expect(await store().scheduleList()).toEqual([]);
      await newSchedule({ id: uuid(3), now: T0 + 1 });
      await newSchedule({ id: uuid(1), now: T0 + 3 });
      await newSchedule({ id: uuid(2), now: T0 + 2 });
      expect((await store().scheduleList()).map((s) => s.id)).toEqual([uuid(3), uuid(2), uuid(1)]);
    });

    it('update is partial: absent fields keep their values', async () => {
      const s = await newSchedule();
      let expected = { ...s, name: 'renamed' };
      expect(await store().scheduleUpdate({ now: T0, id: s.id, name: 'renamed' })).toEqual(expected);
      expected = { ...expected, scheduledAt: T0 + 5000, dueAt: T0 + 5000 };
      expect(await store().scheduleUpdate({ now: T0, id: s.id, scheduledAt: T0 + 5000 })).toEqual(expected);
      expected = { ...expected, endpoint: 'http://other.example/x' };
      expect(await store().scheduleUpdate({ now: T0, id: s.id, endpoint: 'http://other.example/x' })).toEqual(expected);
      expected = { ...expected, data: { replaced: true } };
      expect(await store().scheduleUpdate({ now: T0, id: s.id, data: { replaced: true } })).toEqual(expected);
      expected = { ...expected, tags: [] };
      expect(await store().scheduleUpdate({ now: T0, id: s.id, tags: [] })).toEqual(expected);
      expected = { ...expected, retry: { maxAttempts: 1, initialDelayMs: 2000, maxDelayMs: 2000, delaysMs: null } };
      expect(await store().scheduleUpdate({ now: T0, id: s.id, retry: { maxAttempts: 1, initialDelayMs: 2000, maxDelayMs: 2000, delaysMs: null } })).toEqual(expected);
      expected = { ...expected, timeoutMs: 900_000 };
      expect(await store().scheduleUpdate({ now: T0, id: s.id, timeoutMs: 900_000 })).toEqual(expected);
      expect(await store().scheduleUpdate({ now: T0, id: s.id })).toEqual(expected);
      expect(await store().scheduleGet({ id: s.id })).toEqual(expected);
    });

    it("update of an unknown id is 'not_found'", async () => {
      expect(await store().scheduleUpdate({ now: T0, id: newId(), name: 'x' })).toBe('not_found');
    });

    it("update of a schedule no longer Pending is 'not_pending' and changes nothing", async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      await claim(T0);
      const running = await store().scheduleGet({ id: s.id });
      expect(running?.status).toBe('Running');
      expect(await store().scheduleUpdate({ now: T0, id: s.id, name: 'late', scheduledAt: T0 + 9999 })).toBe('not_pending');
      expect(await store().scheduleGet({ id: s.id })).toEqual(running);
    });

    it('delete answers true, then false; a deleted schedule is never claimed', async () => {
      const s = await newSchedule({ scheduledAt: T0 });
      expect(await store().scheduleDelete({ id: s.id })).toBe(true);
      expect(await store().scheduleDelete({ id: s.id })).toBe(false);
      expect(await store().scheduleGet({ id: s.id })).toBeNull();
      expect(await claim(T0 + 1000)).toEqual([]);
      expect(await store().nextDueAt()).toBeNull();
    });
  });
}
