/**
 * Conformance of cron jobs: create, get, list, update and delete (their start, end and limits are
 * life.ts, misfire and overlap cron-policies.ts). Registered inside `exerciseStore` (index.ts), so
 * every store runs it against a fresh, migrated database per test. Time is injected (`now`); only
 * the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { CronJob } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { CRON_REQUEST, RETRY, suiteHelpers, T0, TIMEOUT, uuid } from './fixtures.js';

/**
 * Registers the describe block 'cron jobs' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeCronJobs(current: () => Store): void {
  describe('cron jobs', () => {
    const store = () => current();
    const { claim, newCron } = suiteHelpers(current);

    it('create stores an Active job with 0 invocations; get returns the same', async () => {
      const id = newId();
      const c = await store().cronCreate({
        id,
        expression: '0 9 * * 1-5',
        name: 'weekdays',
        timezone: 'America/New_York',
        endpoint: 'https://example.com/c',
        data: { k: [1, { v: 'w' }] },
        nextInvocation: T0 + 3_600_000,
        retry: { maxAttempts: 20, initialDelayMs: 10, maxDelayMs: 20, delaysMs: null },
        timeoutMs: 1000,
        misfire: 'all',
        overlap: 'skip',
        ...CRON_REQUEST,
        successStatuses: ['4xx', 200],
        pauseAfterFailures: 3,
        tags: ['nightly', 'eu'],
        now: T0,
      });
      expect(c).toEqual({
        id,
        expression: '0 9 * * 1-5',
        name: 'weekdays',
        invocations: 0,
        timezone: 'America/New_York',
        status: 'Active',
        endpoint: 'https://example.com/c',
        data: { k: [1, { v: 'w' }] },
        createdAt: T0,
        nextInvocation: T0 + 3_600_000,
        retry: { maxAttempts: 20, initialDelayMs: 10, maxDelayMs: 20, delaysMs: null },
        timeoutMs: 1000,
        misfire: 'all',
        overlap: 'skip',
        lastInvocation: null,
        lastStatus: null,
        skippedOccurrences: 0,
        ...CRON_REQUEST,
        successStatuses: ['4xx', 200],
        pauseAfterFailures: 3,
        pausedReason: null,
        consecutiveFailures: 0,
        startAt: null,
        endAt: null,
        maxInvocations: null,
        jitterMs: 0,
        tags: ['nightly', 'eu'],
        key: null,
        managedBy: null,
        flowControlKey: null,
      });
      expect(await store().cronGet({ id })).toEqual(c);
    });

    it('null name, timezone and data stay null', async () => {
      const c = await store().cronCreate({
        id: newId(),
        expression: '* * * * *',
        name: null,
        timezone: null,
        endpoint: 'https://example.com/c',
        data: null,
        nextInvocation: T0,
        retry: RETRY,
        timeoutMs: TIMEOUT,
        misfire: 'skip',
        overlap: 'allow',
        now: T0,
      });
      expect(await store().cronGet({ id: c.id })).toMatchObject({ name: null, timezone: null, data: null, misfire: 'skip' });
    });

    it('get of an unknown id is null', async () => {
      expect(await store().cronGet({ id: newId() })).toBeNull();
    });

    it('list is empty at first, then oldest first whatever the id order', async () => {
      expect(await store().cronList()).toEqual([]);
      await newCron({ id: uuid(2), now: T0 + 1 });
      await newCron({ id: uuid(3), now: T0 + 2 });
      await newCron({ id: uuid(1), now: T0 + 3 });
      expect((await store().cronList()).map((c) => c.id)).toEqual([uuid(2), uuid(3), uuid(1)]);
    });

    it('update is partial: absent fields keep their values, null sets null', async () => {
      const c = await newCron();
      let expected: CronJob = { ...c, expression: '*/5 * * * *' };
      expect(await store().cronUpdate({ id: c.id, expression: '*/5 * * * *' })).toEqual(expected);
      expected = { ...expected, name: null, timezone: null };
      expect(await store().cronUpdate({ id: c.id, name: null, timezone: null })).toEqual(expected);
      expected = { ...expected, data: null };
      expect(await store().cronUpdate({ id: c.id, data: null })).toEqual(expected);
      expected = { ...expected, data: { again: 1 }, name: 'n', timezone: 'Asia/Tokyo', endpoint: 'http://e.example/' };
      expect(
        await store().cronUpdate({ id: c.id, data: { again: 1 }, name: 'n', timezone: 'Asia/Tokyo', endpoint: 'http://e.example/' }),
      ).toEqual(expected);
      expected = { ...expected, retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 6, delaysMs: null }, timeoutMs: 2500 };
      expect(await store().cronUpdate({ id: c.id, retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 6, delaysMs: null }, timeoutMs: 2500 })).toEqual(expected);
      expected = { ...expected, misfire: 'all' };
      expect(await store().cronUpdate({ id: c.id, misfire: 'all' })).toEqual(expected);
      expected = { ...expected, overlap: 'skip' };
      expect(await store().cronUpdate({ id: c.id, overlap: 'skip' })).toEqual(expected);
      expect(await store().cronUpdate({ id: c.id })).toEqual(expected);
      expect(await store().cronGet({ id: c.id })).toEqual(expected);
    });

    it('update moves status between Active and Paused', async () => {
      const c = await newCron();
      expect((await store().cronUpdate({ id: c.id, status: 'Paused' }))?.status).toBe('Paused');
      expect((await store().cronGet({ id: c.id }))?.status).toBe('Paused');
      expect((await store().cronUpdate({ id: c.id, status: 'Active' }))?.status).toBe('Active');
    });

    it('update with recomputeAfter stores the next occurrence of the job as patched after that instant', async () => {
      const c = await newCron({ nextInvocation: T0 });
      // Noon in UTC (the patched zone), not in Europe/Paris (the stored one, an hour ahead in January).
      const u = await store().cronUpdate({ id: c.id, expression: '0 12 * * *', timezone: null, recomputeAfter: T0 });
      expect(u).toEqual({ ...c, expression: '0 12 * * *', timezone: null, nextInvocation: T0 + 12 * 3_600_000 });
      expect(await store().cronGet({ id: c.id })).toEqual(u);
      // The stored expression and zone when the patch leaves them: noon in Paris is 11:00 UTC.
      const v = await store().cronUpdate({ id: c.id, timezone: 'Europe/Paris', recomputeAfter: T0 });
      expect(v?.nextInvocation).toBe(T0 + 11 * 3_600_000);
    });

    it('update without recomputeAfter keeps nextInvocation', async () => {
      const c = await newCron({ nextInvocation: T0 + 42 });
      expect((await store().cronUpdate({ id: c.id, expression: '1 2 3 4 5' }))?.nextInvocation).toBe(T0 + 42);
    });

    it('an update whose job has no occurrence after recomputeAfter fails and changes nothing', async () => {
      const c = await newCron();
      for (const expression of ['0 0 31 2 *', 'nope']) {
        const err = await store().cronUpdate({ id: c.id, expression, recomputeAfter: T0 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InvalidInputError);
        expect((err as InvalidInputError).errors).toEqual([{ path: '/expression', message: 'has no occurrence after now' }]);
        expect(await store().cronGet({ id: c.id })).toEqual(c);
      }
    });

    it('update of an unknown id is null', async () => {
      expect(await store().cronUpdate({ id: newId(), name: 'x', recomputeAfter: T0 })).toBeNull();
    });

    it('delete answers true, then false; a deleted job is never claimed', async () => {
      const c = await newCron({ nextInvocation: T0 });
      expect(await store().cronDelete({ id: c.id })).toBe(true);
      expect(await store().cronDelete({ id: c.id })).toBe(false);
      expect(await store().cronGet({ id: c.id })).toBeNull();
      expect(await claim(T0 + 1000)).toEqual([]);
      expect(await store().nextDueAt()).toBeNull();
    });
  });
}
