/**
 * Conformance of the idempotency records (`Store.idempotencyBegin`, `idempotencyFinish`,
 * `idempotencyAbandon`, `idempotencyPrune`; src/store/contract/idempotency.ts), registered inside
 * `exerciseStore` (index.ts): every store runs them against a fresh, migrated database per
 * test. Only the `Store` interface is used; time is `T0` plus offsets.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import { IDEMPOTENCY_ABANDON_MS, IDEMPOTENCY_RETENTION_MS } from '../../../src/store/rules/idempotency.js';
import type { IdempotencyRef } from '../../../src/store/contract/idempotency.js';
import type { Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const FP = 'a'.repeat(64);
const OTHER_FP = 'b'.repeat(64);

/**
 * Registers the idempotency tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeIdempotency(current: () => Store): void {
  describe('idempotency records', () => {
    let ref: IdempotencyRef;
    const newKey = async (): Promise<string> =>
      (await current().apiKeyCreate({ id: newId(), name: 'k', status: 'Enabled', digest: randomBytes(32).toString('hex'), now: T0 })).id;

    beforeEach(async () => {
      ref = { apiKeyId: await newKey(), method: 'POST', path: '/schedules', key: 'order-1042' };
    });

    it('begin: new, then running while unfinished; finish keeps the answer, which begin then gives', async () => {
      const s = current();
      expect(await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 })).toEqual({ state: 'new', startedAt: T0 });
      expect(await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 + 10 })).toEqual({ state: 'running' });
      expect(await s.idempotencyFinish({ ...ref, startedAt: T0, status: 201, body: '{"id":"x"}' })).toBe(true);
      expect(await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 + 20 })).toEqual({ state: 'done', status: 201, body: '{"id":"x"}' });
      // Finished once: a second finish or an abandon changes nothing.
      expect(await s.idempotencyFinish({ ...ref, startedAt: T0, status: 400, body: '{}' })).toBe(false);
      expect(await s.idempotencyAbandon({ ...ref, startedAt: T0 })).toBe(false);
      expect(await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 + 30 })).toEqual({ state: 'done', status: 201, body: '{"id":"x"}' });
    });

    it('begin: another fingerprint is a mismatch, running or done', async () => {
      const s = current();
      await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 });
      expect(await s.idempotencyBegin({ ...ref, fingerprint: OTHER_FP, now: T0 + 1 })).toEqual({ state: 'mismatch' });
      await s.idempotencyFinish({ ...ref, startedAt: T0, status: 400, body: '{"status":400}' });
      expect(await s.idempotencyBegin({ ...ref, fingerprint: OTHER_FP, now: T0 + 2 })).toEqual({ state: 'mismatch' });
      expect(await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 + 3 })).toEqual({ state: 'done', status: 400, body: '{"status":400}' });
    });

    it('records are apart by API key, method, path and key', async () => {
      const s = current();
      await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 });
      const others: IdempotencyRef[] = [
        { ...ref, apiKeyId: await newKey() },
        { ...ref, method: 'PUT' },
        { ...ref, path: '/cron' },
        { ...ref, key: 'order-1043' },
        { ...ref, key: 'ORDER-1042' },
      ];
      for (const other of others) expect(await s.idempotencyBegin({ ...other, fingerprint: FP, now: T0 })).toEqual({ state: 'new', startedAt: T0 });
    });

    it('of concurrent begins of one record, exactly one is new', async () => {
      const s = current();
      const results = await Promise.all(Array.from({ length: 8 }, () => s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 })));
      expect(results.filter((r) => r.state === 'new')).toHaveLength(1);
      expect(results.filter((r) => r.state === 'running')).toHaveLength(7);
    });

    it('abandon deletes a running record, so the key is free at once', async () => {
      const s = current();
      await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 });
      expect(await s.idempotencyAbandon({ ...ref, startedAt: T0 + 1 })).toBe(false); // not this run
      expect(await s.idempotencyAbandon({ ...ref, startedAt: T0 })).toBe(true);
      expect(await s.idempotencyBegin({ ...ref, fingerprint: OTHER_FP, now: T0 + 5 })).toEqual({ state: 'new', startedAt: T0 + 5 });
    });

    it('a record running for IDEMPOTENCY_ABANDON_MS is taken over; the old run can then neither finish nor abandon it', async () => {
      const s = current();
      await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 });
      expect(await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 + IDEMPOTENCY_ABANDON_MS - 1 })).toEqual({ state: 'running' });
      const later = T0 + IDEMPOTENCY_ABANDON_MS;
      expect(await s.idempotencyBegin({ ...ref, fingerprint: OTHER_FP, now: later })).toEqual({ state: 'new', startedAt: later });
      expect(await s.idempotencyFinish({ ...ref, startedAt: T0, status: 201, body: 'old' })).toBe(false);
      expect(await s.idempotencyAbandon({ ...ref, startedAt: T0 })).toBe(false);
      expect(await s.idempotencyFinish({ ...ref, startedAt: later, status: 202, body: 'new' })).toBe(true);
      expect(await s.idempotencyBegin({ ...ref, fingerprint: OTHER_FP, now: later + 1 })).toEqual({ state: 'done', status: 202, body: 'new' });
    });

    it('a done record expires after IDEMPOTENCY_RETENTION_MS, pruned or not', async () => {
      const s = current();
      await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 });
      await s.idempotencyFinish({ ...ref, startedAt: T0, status: 201, body: 'x' });
      expect((await s.idempotencyBegin({ ...ref, fingerprint: OTHER_FP, now: T0 + IDEMPOTENCY_RETENTION_MS - 1 })).state).toBe('mismatch');
      const later = T0 + IDEMPOTENCY_RETENTION_MS;
      expect(await s.idempotencyBegin({ ...ref, fingerprint: OTHER_FP, now: later })).toEqual({ state: 'new', startedAt: later });
    });

    it('prune deletes records started before `before`, oldest first, at most `limit` a call', async () => {
      const s = current();
      for (let i = 0; i < 5; i++) await s.idempotencyBegin({ ...ref, key: `k${i}`, fingerprint: FP, now: T0 + i });
      await s.idempotencyFinish({ ...ref, key: 'k0', startedAt: T0, status: 201, body: 'x' });
      expect(await s.idempotencyPrune({ before: T0 + 3, limit: 2 })).toBe(2);
      // k0 and k1 are gone: their keys are new again; k2 is still there.
      expect((await s.idempotencyBegin({ ...ref, key: 'k0', fingerprint: FP, now: T0 + 10 })).state).toBe('new');
      expect((await s.idempotencyBegin({ ...ref, key: 'k2', fingerprint: FP, now: T0 + 10 })).state).toBe('running');
      expect(await s.idempotencyPrune({ before: T0 + 3, limit: 10 })).toBe(1);
      expect(await s.idempotencyPrune({ before: T0 + 3, limit: 10 })).toBe(0);
      expect((await s.idempotencyBegin({ ...ref, key: 'k2', fingerprint: FP, now: T0 + 10 })).state).toBe('new');
      expect((await s.idempotencyBegin({ ...ref, key: 'k4', fingerprint: FP, now: T0 + 10 })).state).toBe('running');
    });

    it('deleting the API key deletes its records', async () => {
      const s = current();
      await s.idempotencyBegin({ ...ref, fingerprint: FP, now: T0 });
      expect(await s.apiKeyDelete({ id: ref.apiKeyId })).toBe(true);
      expect(await s.idempotencyPrune({ before: T0 + 1, limit: 10 })).toBe(0);
    });
  });
}
