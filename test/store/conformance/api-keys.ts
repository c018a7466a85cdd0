/**
 * Conformance of API keys: create, get, list, update, delete, `apiKeyFindByDigest` and
 * `apiKeyTouch` (their scopes, expiry and rotation are api-key-scopes.ts). Registered inside
 * `exerciseStore` (index.ts), so every store runs it against a fresh, migrated database per test.
 * Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { Store } from '../../../src/store/store.js';
import { digestOf, T0, uuid } from './fixtures.js';

/**
 * Registers the describe block 'API keys' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeApiKeys(current: () => Store): void {
  describe('API keys', () => {
    const store = () => current();

    it('create returns the key without any secret, never used; get returns the same', async () => {
      const id = newId();
      const k = await store().apiKeyCreate({ id, name: 'ci', status: 'Enabled', digest: digestOf('tok'), now: T0 });
      expect(k).toEqual({
        id,
        name: 'ci',
        status: 'Enabled',
        createdAt: T0,
        lastUsed: null,
        scopes: ['jobs:read', 'jobs:write', 'keys:manage', 'metrics:read'],
        expiresAt: null,
        previousTokenExpiresAt: null,
      });
      expect(await store().apiKeyGet({ id })).toEqual(k);
    });

    it('create keeps a Disabled status', async () => {
      const k = await store().apiKeyCreate({ id: newId(), name: 'off', status: 'Disabled', digest: digestOf('x'), now: T0 });
      expect(k.status).toBe('Disabled');
    });

    it('get of an unknown id is null', async () => {
      expect(await store().apiKeyGet({ id: newId() })).toBeNull();
    });

    it('list is empty at first, then oldest first whatever the id order', async () => {
      expect(await store().apiKeyList()).toEqual([]);
      for (const [i, n] of [3, 1, 2].entries()) {
        await store().apiKeyCreate({ id: uuid(10 - n), name: `k${n}`, status: 'Enabled', digest: digestOf(`t${n}`), now: T0 + n * 1000 + i });
      }
      expect((await store().apiKeyList()).map((k) => k.name)).toEqual(['k1', 'k2', 'k3']);
    });

    it('update changes only the fields given', async () => {
      const k = await store().apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
      expect(await store().apiKeyUpdate({ id: k.id, name: 'b' })).toEqual({ ...k, name: 'b' });
      expect(await store().apiKeyUpdate({ id: k.id, status: 'Disabled' })).toEqual({ ...k, name: 'b', status: 'Disabled' });
      expect(await store().apiKeyUpdate({ id: k.id })).toEqual({ ...k, name: 'b', status: 'Disabled' });
      expect(await store().apiKeyUpdate({ id: k.id, name: 'c', status: 'Enabled' })).toEqual({ ...k, name: 'c' });
      expect(await store().apiKeyGet({ id: k.id })).toEqual({ ...k, name: 'c' });
    });

    it('update of an unknown id is null', async () => {
      expect(await store().apiKeyUpdate({ id: newId(), name: 'x' })).toBeNull();
    });

    it('delete answers true, then false; the key is gone, also by digest', async () => {
      const k = await store().apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
      expect(await store().apiKeyDelete({ id: k.id })).toBe(true);
      expect(await store().apiKeyDelete({ id: k.id })).toBe(false);
      expect(await store().apiKeyGet({ id: k.id })).toBeNull();
      expect(await store().apiKeyFindByDigest({ digest: digestOf('a') })).toBeNull();
      expect(await store().apiKeyList()).toEqual([]);
    });

    it('findByDigest finds the key of a digest, Disabled ones included; an unknown digest is null', async () => {
      const a = await store().apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
      const b = await store().apiKeyCreate({ id: newId(), name: 'b', status: 'Disabled', digest: digestOf('b'), now: T0 });
      expect(await store().apiKeyFindByDigest({ digest: digestOf('a') })).toEqual({ key: a, token: 'current' });
      expect(await store().apiKeyFindByDigest({ digest: digestOf('b') })).toEqual({ key: b, token: 'current' });
      expect(await store().apiKeyFindByDigest({ digest: digestOf('c') })).toBeNull();
    });

    it('touch sets lastUsed of several keys in one call, only ever forward, ignoring unknown ids', async () => {
      const a = await store().apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
      const b = await store().apiKeyCreate({ id: newId(), name: 'b', status: 'Enabled', digest: digestOf('b'), now: T0 });
      await store().apiKeyTouch({ lastUsed: new Map([[a.id, T0 + 5000], [b.id, T0 + 7000], [newId(), T0]]) });
      expect((await store().apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
      expect((await store().apiKeyGet({ id: b.id }))?.lastUsed).toBe(T0 + 7000);
      await store().apiKeyTouch({ lastUsed: new Map([[a.id, T0 + 4000], [b.id, T0 + 8000]]) });
      expect((await store().apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
      expect((await store().apiKeyGet({ id: b.id }))?.lastUsed).toBe(T0 + 8000);
      await store().apiKeyTouch({ lastUsed: new Map() });
      expect((await store().apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
    });

    it('ensure creates an Enabled key with the given id and name when no key has the digest', async () => {
      const id = newId();
      const k = await store().apiKeyEnsure({ id, name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 });
      expect(k).toEqual({ id, name: 'bootstrap', status: 'Enabled', createdAt: T0, lastUsed: null, scopes: ['jobs:read', 'jobs:write', 'keys:manage', 'metrics:read'], expiresAt: null, previousTokenExpiresAt: null });
      expect(await store().apiKeyFindByDigest({ digest: digestOf('boot') })).toEqual({ key: k, token: 'current' });
    });

    it('ensure re-enables and renames the key that has the digest, keeping its id, createdAt and lastUsed', async () => {
      const k = await store().apiKeyCreate({ id: newId(), name: 'old', status: 'Disabled', digest: digestOf('boot'), now: T0 });
      await store().apiKeyTouch({ lastUsed: new Map([[k.id, T0 + 1]]) });
      const e = await store().apiKeyEnsure({ id: newId(), name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 + 99 });
      expect(e).toEqual({ id: k.id, name: 'bootstrap', status: 'Enabled', createdAt: T0, lastUsed: T0 + 1, scopes: ['jobs:read', 'jobs:write', 'keys:manage', 'metrics:read'], expiresAt: null, previousTokenExpiresAt: null });
      const again = await store().apiKeyEnsure({ id: newId(), name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 + 200 });
      expect(again).toEqual(e);
      expect(await store().apiKeyList()).toEqual([e]);
    });
  });
}
