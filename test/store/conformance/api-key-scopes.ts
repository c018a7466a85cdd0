/**
 * Conformance of the scopes, expiry and rotation of API keys (`apiKeyCreate`, `apiKeyUpdate`,
 * `apiKeyRotate`, `apiKeyFindByDigest`, `apiKeyEnsure`; src/store/store.ts), registered inside
 * `exerciseStore` (index.ts), so every store runs them against a fresh, migrated database.
 * Time is injected; only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { Store } from '../../../src/store/store.js';
import { digestOf, T0 } from './fixtures.js';

/** Registers the tests; `store` gives the store of the running test. */
export function describeKeys(store: () => Store): void {
  describe('API key scopes, expiry and rotation', () => {
    it('create stores scopes (deduplicated, in the order of the list) and expiresAt; update changes, clears or keeps them', async () => {
      const s = store();
      const k = await s.apiKeyCreate({
        id: newId(),
        name: 'k',
        status: 'Enabled',
        digest: digestOf('k'),
        scopes: ['metrics:read', 'jobs:read', 'metrics:read'],
        expiresAt: T0 + 60_000,
        now: T0,
      });
      expect(k).toMatchObject({ scopes: ['jobs:read', 'metrics:read'], expiresAt: T0 + 60_000, previousTokenExpiresAt: null });
      expect(await s.apiKeyGet({ id: k.id })).toEqual(k);
      expect(await s.apiKeyUpdate({ id: k.id, name: 'n' })).toEqual({ ...k, name: 'n' });
      const u = await s.apiKeyUpdate({ id: k.id, scopes: ['keys:manage'], expiresAt: null });
      expect(u).toEqual({ ...k, name: 'n', scopes: ['keys:manage'], expiresAt: null });
      expect(await s.apiKeyUpdate({ id: k.id, expiresAt: T0 + 5 })).toEqual({ ...u, expiresAt: T0 + 5 });
      expect((await s.apiKeyList())[0]).toEqual({ ...u, expiresAt: T0 + 5 });
    });

    it('rotate: the new digest finds the key as current, the old as previous with its grace; a second rotation forgets the first token', async () => {
      const s = store();
      const k = await s.apiKeyCreate({ id: newId(), name: 'r', status: 'Enabled', digest: digestOf('t1'), scopes: ['jobs:read'], now: T0 });
      const r1 = await s.apiKeyRotate({ id: k.id, digest: digestOf('t2'), previousExpiresAt: T0 + 3_600_000 });
      expect(r1).toEqual({ ...k, previousTokenExpiresAt: T0 + 3_600_000 });
      expect(await s.apiKeyFindByDigest({ digest: digestOf('t2') })).toEqual({ key: r1, token: 'current' });
      expect(await s.apiKeyFindByDigest({ digest: digestOf('t1') })).toEqual({ key: r1, token: 'previous' });

      const r2 = await s.apiKeyRotate({ id: k.id, digest: digestOf('t3'), previousExpiresAt: T0 + 10 });
      expect(await s.apiKeyFindByDigest({ digest: digestOf('t1') })).toBeNull();
      expect(await s.apiKeyFindByDigest({ digest: digestOf('t2') })).toEqual({ key: r2, token: 'previous' });
      expect(await s.apiKeyFindByDigest({ digest: digestOf('t3') })).toEqual({ key: r2, token: 'current' });
      expect(await s.apiKeyRotate({ id: newId(), digest: digestOf('t4'), previousExpiresAt: T0 })).toBeNull();
    });

    it('lastUsed stays per key across a rotation', async () => {
      const s = store();
      const k = await s.apiKeyCreate({ id: newId(), name: 'u', status: 'Enabled', digest: digestOf('u1'), now: T0 });
      await s.apiKeyTouch({ lastUsed: new Map([[k.id, T0 + 1000]]) });
      const r = await s.apiKeyRotate({ id: k.id, digest: digestOf('u2'), previousExpiresAt: T0 + 2000 });
      expect(r?.lastUsed).toBe(T0 + 1000);
    });

    it('ensure gives the bootstrap key every scope and no expiry, also when it had fewer', async () => {
      const s = store();
      const k = await s.apiKeyCreate({
        id: newId(),
        name: 'x',
        status: 'Disabled',
        digest: digestOf('boot'),
        scopes: ['jobs:read'],
        expiresAt: T0 + 1,
        now: T0,
      });
      const all = ['jobs:read', 'jobs:write', 'keys:manage', 'metrics:read'] as const;
      const e = await s.apiKeyEnsure({ id: newId(), name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), scopes: all, expiresAt: null, now: T0 });
      expect(e).toEqual({ ...k, name: 'bootstrap', status: 'Enabled', scopes: [...all], expiresAt: null });
    });
  });
}
