/**
 * Conformance of the flow-control keys (store/contract/flow-control.ts): put creates then
 * replaces (keeping createdAt and the hold), get, the list in byte order, pause and resume, delete,
 * and unknown keys. Registered inside `exerciseStore` (index.ts), so every store runs it against a
 * fresh, migrated database per test. Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

/**
 * Registers the describe block 'flow-control keys' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeFlowControl(current: () => Store): void {
  describe('flow-control keys', () => {
    const store = () => current();
    const limits = { parallelism: 5, rate: 10, periodMs: 1_000, paused: false };

    it('put creates a key, then replaces its limits and keeps when it was created', async () => {
      const first = await store().flowControlKeyPut({ key: 'slack:T1', ...limits, now: T0 });
      expect(first).toEqual({
        created: true,
        value: { key: 'slack:T1', parallelism: 5, rate: 10, periodMs: 1_000, paused: false, holdUntil: null, createdAt: T0, updatedAt: T0 },
      });
      const again = await store().flowControlKeyPut({ key: 'slack:T1', parallelism: null, rate: 3, periodMs: 60_000, paused: true, now: T0 + 5 });
      expect(again).toEqual({
        created: false,
        value: { key: 'slack:T1', parallelism: null, rate: 3, periodMs: 60_000, paused: true, holdUntil: null, createdAt: T0, updatedAt: T0 + 5 },
      });
      // A put in the same millisecond as the create still says it replaced.
      expect((await store().flowControlKeyPut({ key: 'slack:T1', ...limits, now: T0 + 5 })).created).toBe(false);
      expect(await store().flowControlKeyGet({ key: 'slack:T1' })).toEqual({ ...first.value, updatedAt: T0 + 5 });
    });

    it('lists every key in the byte order of their names; get of an unknown key is null', async () => {
      for (const key of ['b', 'B', 'a.1', 'a-1', 'a_1', 'a:1']) await store().flowControlKeyPut({ key, ...limits, now: T0 });
      expect((await store().flowControlKeyList()).map((k) => k.key)).toEqual(['B', 'a-1', 'a.1', 'a:1', 'a_1', 'b']);
      expect(await store().flowControlKeyGet({ key: 'c' })).toBeNull();
      expect(await store().flowControlKeyGet({ key: 'A' })).toBeNull();
    });

    it('pauses and resumes a key, and says null for an unknown one', async () => {
      await store().flowControlKeyPut({ key: 'k', ...limits, now: T0 });
      expect(await store().flowControlKeySetPaused({ key: 'k', paused: true, now: T0 + 1 })).toMatchObject({ paused: true, updatedAt: T0 + 1, rate: 10 });
      expect((await store().flowControlKeyGet({ key: 'k' }))?.paused).toBe(true);
      expect(await store().flowControlKeySetPaused({ key: 'k', paused: false, now: T0 + 2 })).toMatchObject({ paused: false, updatedAt: T0 + 2 });
      expect(await store().flowControlKeySetPaused({ key: 'nope', paused: true, now: T0 })).toBeNull();
      // The revision moved with each change: a put now replaces.
      expect((await store().flowControlKeyPut({ key: 'k', ...limits, now: T0 + 3 })).created).toBe(false);
    });

    it('deletes a key once; a put afterwards creates it again', async () => {
      await store().flowControlKeyPut({ key: 'k', ...limits, now: T0 });
      expect(await store().flowControlKeyDelete({ key: 'k' })).toBe(true);
      expect(await store().flowControlKeyDelete({ key: 'k' })).toBe(false);
      expect(await store().flowControlKeyGet({ key: 'k' })).toBeNull();
      expect(await store().flowControlKeyList()).toEqual([]);
      const back = await store().flowControlKeyPut({ key: 'k', ...limits, now: T0 + 9 });
      expect(back.created).toBe(true);
      expect(back.value.createdAt).toBe(T0 + 9);
    });
  });
}
