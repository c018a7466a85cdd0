/**
 * Conformance of the life of a store itself: `migrate` (idempotent, keeping the data), `ping`, and
 * `close` (after which every operation is `StoreUnavailableError`). Registered inside
 * `exerciseStore` (index.ts), so every store runs it against a fresh, migrated database per test.
 * Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { Store } from '../../../src/store/store.js';
import { digestOf, T0 } from './fixtures.js';

/**
 * Registers the describe block 'migrate, ping, close' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeLifecycle(current: () => Store): void {
  describe('migrate, ping, close', () => {
    const store = () => current();

    it('migrate is idempotent and keeps the data', async () => {
      const k = await store().apiKeyCreate({ id: newId(), name: 'k', status: 'Enabled', digest: digestOf('t'), now: T0 });
      await store().migrate();
      await store().migrate();
      expect(await store().apiKeyGet({ id: k.id })).toEqual(k);
    });

    it('ping resolves on a working store', async () => {
      await expect(store().ping()).resolves.toBeUndefined();
    });

    it('after close, the store refuses work with StoreUnavailableError; close again is harmless', async () => {
      await store().close();
      await expect(store().ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store().scheduleList()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store().close()).resolves.toBeUndefined();
    });
  });
}
