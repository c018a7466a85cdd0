/**
 * Conformance of job keys (src/store/rules/job-keys.ts, docs/apply.md): `key` and `managedBy` on
 * schedules and cron jobs, unique per kind, cleared by null, the `key` filter of the lists, and
 * `migrate-store`'s copy of both fields. Registered inside `exerciseStore` (index.ts), so
 * every store runs them against a fresh, migrated database per test. Only the `Store` interface
 * is used.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { ScheduleCreateParams, Store } from '../../../src/store/store.js';
import { cronParams, T0 } from './fixtures.js';

const RETRY = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000, delaysMs: null };

const scheduleParams = (o: Partial<ScheduleCreateParams> = {}): ScheduleCreateParams => ({
  id: newId(),
  name: 'job',
  scheduledAt: T0 + 3_600_000,
  endpoint: 'https://example.com/hook',
  data: {},
  tags: ['a'],
  retry: RETRY,
  timeoutMs: 1_000,
  now: T0,
  ...o,
});

/** Expects `p` to reject with the conflict of a taken key, on `/key`. */
async function expectKeyConflict(p: Promise<unknown>): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConflictError);
  expect((err as ConflictError).errors).toEqual([{ path: '/key', message: expect.stringMatching(/already the key/) }]);
}

/**
 * Registers the key tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeJobKeys(current: () => Store): void {
  describe('job keys', () => {
    const store = () => current();

    it('stores a key and managedBy on both kinds; null when absent', async () => {
      const s = await store().scheduleCreate(scheduleParams({ key: 'billing.reminder:42', managedBy: 'apply' }));
      const plain = await store().scheduleCreate(scheduleParams());
      const c = await store().cronCreate({ ...cronParams(), key: 'nightly-report', managedBy: 'apply' });
      const plainCron = await store().cronCreate(cronParams());
      expect([s.key, s.managedBy, plain.key, plain.managedBy]).toEqual(['billing.reminder:42', 'apply', null, null]);
      expect([c.key, c.managedBy, plainCron.key, plainCron.managedBy]).toEqual(['nightly-report', 'apply', null, null]);
      expect(await store().scheduleGet({ id: s.id })).toEqual(s);
      expect(await store().cronGet({ id: c.id })).toEqual(c);
    });

    it('keeps keys unique per kind: a taken key is a conflict on /key, on create and on update; the other kind may share it', async () => {
      const s = await store().scheduleCreate(scheduleParams({ key: 'k1' }));
      await expectKeyConflict(store().scheduleCreate(scheduleParams({ key: 'k1' })));
      await expectKeyConflict(store().scheduleCreateMany([scheduleParams({ key: 'k9' }), scheduleParams({ key: 'k1' })]));
      expect(await store().schedulePage({ limit: 10, cursor: null, status: null, name: null, tags: [], key: 'k9' })).toEqual({
        schedules: [],
        nextCursor: null,
      });
      const other = await store().scheduleCreate(scheduleParams({ key: 'k2' }));
      await expectKeyConflict(store().scheduleUpdate({ id: other.id, key: 'k1', now: T0 }));
      expect((await store().scheduleGet({ id: other.id }))?.key).toBe('k2');

      const c = await store().cronCreate({ ...cronParams(), key: 'k1' });
      await expectKeyConflict(store().cronCreate({ ...cronParams(), key: 'k1' }));
      const otherCron = await store().cronCreate({ ...cronParams(), key: 'k2' });
      await expectKeyConflict(store().cronUpdate({ id: otherCron.id, key: 'k1' }));
      expect((await store().cronGet({ id: otherCron.id }))?.key).toBe('k2');
      expect([s.key, c.key]).toEqual(['k1', 'k1']);
      // Keys compare exactly: case matters.
      expect((await store().scheduleCreate(scheduleParams({ key: 'K1' }))).key).toBe('K1');
    });

    it('a patch sets, keeps (absent) and clears (null) the key; managedBy never changes; many jobs have none', async () => {
      const s = await store().scheduleCreate(scheduleParams({ key: 'a', managedBy: 'apply' }));
      const renamed = await store().scheduleUpdate({ id: s.id, name: 'renamed', now: T0 });
      expect(renamed).toMatchObject({ key: 'a', managedBy: 'apply', name: 'renamed' });
      expect(await store().scheduleUpdate({ id: s.id, key: 'b', now: T0 })).toMatchObject({ key: 'b', managedBy: 'apply' });
      expect(await store().scheduleUpdate({ id: s.id, key: null, now: T0 })).toMatchObject({ key: null, managedBy: 'apply' });
      await store().scheduleCreate(scheduleParams());
      expect((await store().scheduleCreate(scheduleParams({ key: 'b' }))).key).toBe('b');

      const c = await store().cronCreate({ ...cronParams(), key: 'a', managedBy: 'apply' });
      expect(await store().cronUpdate({ id: c.id, name: 'renamed' })).toMatchObject({ key: 'a', managedBy: 'apply' });
      expect(await store().cronUpdate({ id: c.id, key: 'b' })).toMatchObject({ key: 'b', managedBy: 'apply' });
      expect(await store().cronUpdate({ id: c.id, key: null })).toMatchObject({ key: null, managedBy: 'apply' });
      await store().cronCreate(cronParams());
      expect((await store().cronCreate({ ...cronParams(), key: 'b' })).key).toBe('b');
    });

    it('filters both lists by key, exactly, combined with the other filters', async () => {
      await store().scheduleCreate(scheduleParams({ key: 'x', tags: ['a'] }));
      const y = await store().scheduleCreate(scheduleParams({ key: 'y', tags: ['a', 'b'] }));
      await store().scheduleCreate(scheduleParams({ key: 'yy', tags: ['b'] }));
      const page = (key: string, o: { tags?: string[]; status?: 'Pending' | 'Failed'; name?: string } = {}) =>
        store().schedulePage({ limit: 10, cursor: null, status: o.status ?? null, name: o.name ?? null, tags: o.tags ?? [], key });
      expect((await page('y')).schedules.map((s) => s.id)).toEqual([y.id]);
      expect((await page('y', { tags: ['b', 'a'], status: 'Pending', name: 'JO' })).schedules.map((s) => s.id)).toEqual([y.id]);
      expect((await page('y', { tags: ['c'] })).schedules).toEqual([]);
      expect((await page('y', { status: 'Failed' })).schedules).toEqual([]);
      expect((await page('Y')).schedules).toEqual([]);
      expect(await page('none')).toEqual({ schedules: [], nextCursor: null });

      await store().cronCreate({ ...cronParams(), key: 'x' });
      const cy = await store().cronCreate({ ...cronParams({ name: 'Report' }), key: 'y' });
      const cronPage = (key: string, name: string | null = null) =>
        store().cronPage({ limit: 10, cursor: null, status: null, name, key, tags: [] });
      expect((await cronPage('y')).cronJobs.map((c) => c.id)).toEqual([cy.id]);
      expect((await cronPage('y', 'repo')).cronJobs.map((c) => c.id)).toEqual([cy.id]);
      expect((await cronPage('y', 'other')).cronJobs).toEqual([]);
      expect(await cronPage('z')).toEqual({ cronJobs: [], nextCursor: null });
    });
  });
}
