/**
 * Conformance of `settingGetOrCreate` and `settingGet`: a setting created once and read by every
 * later and concurrent caller; a create that throws stores nothing. Registered inside
 * `exerciseStore` (index.ts), so every store runs it against a fresh, migrated database per test.
 * Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';

/**
 * Registers the describe block 'settingGetOrCreate' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeSettings(current: () => Store): void {
  describe('settingGetOrCreate', () => {
    const store = () => current();

    it('creates the value once; later calls read it without calling create', async () => {
      let calls = 0;
      const create = (v: string) => () => {
        calls++;
        return v;
      };
      expect(await store().settingGetOrCreate({ key: 'signing-secret', create: create('first') })).toBe('first');
      expect(await store().settingGetOrCreate({ key: 'signing-secret', create: create('second') })).toBe('first');
      expect(calls).toBe(1);
      expect(await store().settingGetOrCreate({ key: 'other', create: create('x') })).toBe('x');
    });

    it('settingGet reads a value, or null when absent, and creates nothing', async () => {
      expect(await store().settingGet({ key: 'absent' })).toBeNull();
      expect(await store().settingGet({ key: 'absent' })).toBeNull();
      await store().settingGetOrCreate({ key: 'present', create: () => 'v' });
      expect(await store().settingGet({ key: 'present' })).toBe('v');
    });

    it('concurrent calls agree on one value', async () => {
      const values = await Promise.all(
        ['a', 'b', 'c', 'd'].map((v) => store().settingGetOrCreate({ key: 'k', create: () => `value-${v}` })),
      );
      expect(new Set(values).size).toBe(1);
      expect(await store().settingGetOrCreate({ key: 'k', create: () => 'late' })).toBe(values[0]);
    });

    it('a create that throws stores nothing and rejects with its error', async () => {
      const boom = new Error('no entropy');
      await expect(
        store().settingGetOrCreate({
          key: 'k',
          create: () => {
            throw boom;
          },
        }),
      ).rejects.toBe(boom);
      expect(await store().settingGetOrCreate({ key: 'k', create: () => 'v' })).toBe('v');
    });
  });
}
