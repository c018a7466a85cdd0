/**
 * Conformance of the bulk actions (`Store.scheduleBulk`, `Store.cronBulk`; rules in
 * src/store/rules/bulk.ts), registered inside `exerciseStore` (index.ts), so every store
 * runs them against a fresh, migrated database per test. Only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { CronJobStatus, ScheduleStatus } from '../../../src/domain/types.js';
import type { JobBulkFilter, Store } from '../../../src/store/store.js';
import { cronParams, T0 } from './fixtures.js';

const HOUR = 3_600_000;
const RETRY = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000, delaysMs: null };

/** A filter with only the keys given. */
function filter<S extends string>(f: Partial<JobBulkFilter<S>>): JobBulkFilter<S> {
  return { tags: f.tags ?? [], statuses: f.statuses ?? null, ids: f.ids ?? null };
}

/**
 * Registers the bulk tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeBulk(current: () => Store): void {
  describe('scheduleBulk and cronBulk', () => {
    const store = () => current();
    let n = 0;
    const schedule = (tags: string[]) =>
      store().scheduleCreate({
        id: newId(),
        name: 'job',
        scheduledAt: T0 + HOUR + n,
        endpoint: 'https://example.com/hook',
        data: {},
        tags,
        retry: RETRY,
        timeoutMs: 1_000,
        now: T0 + n++,
      });
    const cron = (tags: string[]) => store().cronCreate(cronParams({ tags, now: T0 + n++ }));
    const scheduleIds = async () => (await store().scheduleList()).map((s) => s.id);
    const cronState = async () => (await store().cronList()).map((c) => [c.id, c.status, c.nextInvocation]);
    const cronBulk = (f: Partial<JobBulkFilter<CronJobStatus>>, action: 'pause' | 'resume' | 'delete', dryRun = false, now = T0) =>
      store().cronBulk({ filter: filter(f), action, dryRun, now });
    const scheduleBulk = (f: Partial<JobBulkFilter<ScheduleStatus>>, dryRun = false) =>
      store().scheduleBulk({ filter: filter(f), action: 'delete', dryRun });

    it('schedules: delete by tags (every one), any status, Running too; the executions stay; nothing else touched', async () => {
      const a = await schedule(['campaign-7', 'eu']);
      const b = await schedule(['campaign-7']);
      const c = await schedule(['campaign-7', 'eu', 'x']);
      const other = await schedule(['eu']);
      // a becomes Running, with an execution (the earliest due).
      const [claimed] = (await store().claimDue({ now: T0 + 2 * HOUR, limit: 1, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 86_400_000 })).claimed;
      expect(claimed?.jobId).toBe(a.id);
      const before = await scheduleIds();

      expect(await scheduleBulk({ tags: ['eu', 'campaign-7'] }, true)).toEqual({ count: 2, wakeAt: null });
      expect(await scheduleIds()).toEqual(before); // a dry run changes nothing
      expect(await scheduleBulk({ tags: ['eu', 'campaign-7'] })).toEqual({ count: 2, wakeAt: null });
      expect(await scheduleIds()).toEqual([b.id, other.id]);
      expect(await store().executionGet({ id: claimed!.executionId })).toMatchObject({ jobId: a.id });
      // The tag entries went with them: a list by tag no longer finds them.
      const page = await store().schedulePage({ limit: 10, cursor: null, status: null, name: null, tags: ['campaign-7'] });
      expect(page.schedules.map((s) => s.id)).toEqual([b.id]);
      expect(c.id).not.toBe(b.id);
    });

    it('schedules: status (any of a list) and ids combine with tags by AND', async () => {
      const a = await schedule(['t']);
      const b = await schedule(['t']);
      const c = await schedule(['u']);
      expect(await scheduleBulk({ ids: [a.id, c.id], tags: ['t'] }, true)).toEqual({ count: 1, wakeAt: null });
      expect(await scheduleBulk({ statuses: ['Succeeded', 'Failed'], tags: ['t'] }, true)).toEqual({ count: 0, wakeAt: null });
      expect(await scheduleBulk({ statuses: ['Pending'], ids: [b.id, c.id, newId()] })).toEqual({ count: 2, wakeAt: null });
      expect(await scheduleIds()).toEqual([a.id]);
      expect(await scheduleBulk({ ids: [] })).toEqual({ count: 0, wakeAt: null }); // an empty list matches nothing
      expect(await scheduleIds()).toEqual([a.id]);
    });

    it('an empty filter is refused and touches nothing', async () => {
      await schedule(['t']);
      await cron(['t']);
      const s = await scheduleIds();
      const c = await cronState();
      await expect(scheduleBulk({})).rejects.toThrow();
      for (const action of ['pause', 'resume', 'delete'] as const) await expect(cronBulk({}, action)).rejects.toThrow();
      expect(await scheduleIds()).toEqual(s);
      expect(await cronState()).toEqual(c);
    });

    it('cron: pause counts the Active jobs it pauses; a dry run changes nothing; jobs outside the filter untouched', async () => {
      const a = await cron(['nightly', 'eu']);
      const b = await cron(['nightly']);
      const c = await cron(['nightly', 'eu']);
      const other = await cron(['eu']);
      await store().cronUpdate({ id: c.id, status: 'Paused' });
      const before = await cronState();
      expect(await cronBulk({ tags: ['eu', 'nightly'] }, 'pause', true)).toEqual({ count: 1, wakeAt: null });
      expect(await cronState()).toEqual(before);
      expect(await cronBulk({ tags: ['nightly'] }, 'pause')).toEqual({ count: 2, wakeAt: null }); // c was Paused already
      const after = new Map((await store().cronList()).map((j) => [j.id, j.status]));
      expect([...after]).toEqual([[a.id, 'Paused'], [b.id, 'Paused'], [c.id, 'Paused'], [other.id, 'Active']]);
      expect(await cronBulk({ tags: ['nightly'] }, 'pause')).toEqual({ count: 0, wakeAt: null });
    });

    it('cron: resume recomputes nextInvocation after now, as a single resume; ids and tags are AND', async () => {
      const a = await cron(['nightly']);
      const b = await cron(['nightly']);
      const other = await cron(['nightly']);
      for (const j of [a, b, other]) await store().cronUpdate({ id: j.id, status: 'Paused', pausedReason: 'maintenance' });
      const now = T0 + 10 * HOUR + 1; // the stored nextInvocation (T0 + 1 h) is long past
      expect(await cronBulk({ tags: ['nightly'], ids: [a.id, b.id] }, 'resume', true, now)).toEqual({ count: 2, wakeAt: null });
      expect((await store().cronGet({ id: a.id }))!.status).toBe('Paused');
      const r = await cronBulk({ tags: ['nightly'], ids: [a.id, b.id] }, 'resume', false, now);
      expect(r).toEqual({ count: 2, wakeAt: T0 + 10 * HOUR + 60_000 });
      for (const id of [a.id, b.id]) {
        expect(await store().cronGet({ id })).toMatchObject({
          status: 'Active',
          nextInvocation: T0 + 10 * HOUR + 60_000,
          pausedReason: null,
          consecutiveFailures: 0,
        });
      }
      expect(await store().cronGet({ id: other.id })).toMatchObject({ status: 'Paused', pausedReason: 'maintenance', nextInvocation: T0 + HOUR });
      expect(await cronBulk({ ids: [a.id] }, 'resume', false, now)).toEqual({ count: 0, wakeAt: null }); // already Active
    });

    it('cron: delete by status and tags; the tag entries go with the jobs', async () => {
      const a = await cron(['x']);
      const b = await cron(['x']);
      const c = await cron(['y']);
      await store().cronUpdate({ id: b.id, status: 'Paused' });
      expect(await cronBulk({ statuses: ['Paused'], tags: ['x'] }, 'delete', true)).toEqual({ count: 1, wakeAt: null });
      expect(await cronBulk({ statuses: ['Paused', 'Active'], tags: ['x'] }, 'delete')).toEqual({ count: 2, wakeAt: null });
      expect((await store().cronList()).map((j) => j.id)).toEqual([c.id]);
      const page = await store().cronPage({ limit: 10, cursor: null, status: null, name: null, tags: ['x'] });
      expect(page.cronJobs).toEqual([]);
      expect(a.id).not.toBe(c.id);
    });
  });
}
