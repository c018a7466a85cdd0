/**
 * Conformance of `jobTrigger`: a call of a schedule or a cron job now, out of its times, as an
 * execution of its own. Registered inside `exerciseStore` (index.ts), so every store runs it
 * against a fresh, migrated database per test. Time is injected (`now`); only the `Store` interface
 * is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { Store } from '../../../src/store/store.js';
import { NO_REQUEST, RETRY, suiteHelpers, T0, TIMEOUT } from './fixtures.js';

/**
 * Registers the describe block 'jobTrigger' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeTrigger(current: () => Store): void {
  describe('jobTrigger', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish, history } = suiteHelpers(current);

    it('a Pending schedule: a Pending triggered execution due now; the schedule is Running and never fires at its time', async () => {
      const s = await newSchedule({ scheduledAt: T0 + 3_600_000 });
      const id = newId();
      const e = await store().jobTrigger({ jobType: 'schedule', jobId: s.id, id, now: T0 });
      expect(e).toEqual({
        id,
        jobType: 'schedule',
        jobId: s.id,
        scheduledFor: T0,
        status: 'Pending',
        triggered: true,
        backfill: false,
        createdAt: T0,
        startedAt: null,
        finishedAt: null,
        nextAttemptAt: null,
        lateMs: null,
        jitterMs: 0,
        missedOccurrences: null,
        flowControlKey: null,
        waitingFor: null,
        attempts: [],
      });
      expect(await store().executionGet({ id })).toEqual(e);
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Running');
      expect(await store().nextDueAt()).toBe(T0);
      const claimed = await claim(T0, { leaseMs: 50 });
      expect(claimed).toEqual([
        {
          executionId: id,
          jobType: 'schedule',
          jobId: s.id,
          scheduledFor: T0,
          dueAt: T0,
          attempt: 1,
          endpoint: s.endpoint,
          data: s.data,
          retry: RETRY,
          timeoutMs: TIMEOUT,
          ...NO_REQUEST,
          successStatuses: ['2xx'],
          leaseExpiresAt: T0 + TIMEOUT + 50,
        },
      ]);
      expect(await store().executionGet({ id })).toMatchObject({ status: 'Running', startedAt: T0, lateMs: 0 });
      expect(await store().jobTrigger({ jobType: 'schedule', jobId: s.id, id: newId(), now: T0 + 1 })).toBe('not_pending');
      await finish(claimed[0]!);
      expect(await claim(T0 + 3_600_000)).toEqual([]);
      expect((await store().scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
      expect(await store().jobTrigger({ jobType: 'schedule', jobId: s.id, id: newId(), now: T0 + 2 })).toBe('not_pending');
      expect(await history('schedule', s.id)).toHaveLength(1);
    });

    it("an unknown job is 'not_found' (also a job of the other type)", async () => {
      const s = await newSchedule();
      const c = await newCron();
      expect(await store().jobTrigger({ jobType: 'schedule', jobId: newId(), id: newId(), now: T0 })).toBe('not_found');
      expect(await store().jobTrigger({ jobType: 'cron', jobId: newId(), id: newId(), now: T0 })).toBe('not_found');
      expect(await store().jobTrigger({ jobType: 'cron', jobId: s.id, id: newId(), now: T0 })).toBe('not_found');
      expect(await store().jobTrigger({ jobType: 'schedule', jobId: c.id, id: newId(), now: T0 })).toBe('not_found');
      expect(await store().nextDueAt()).toBe(T0);
    });

    it('a cron job triggered twice in the same ms gets two executions, Paused or not, and keeps its schedule', async () => {
      const c = await newCron({ nextInvocation: T0 + 3_600_000 });
      await store().cronUpdate({ id: c.id, status: 'Paused' });
      const [id1, id2] = [newId(), newId()];
      const e1 = await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: id1, now: T0 });
      const e2 = await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: id2, now: T0 });
      for (const e of [e1, e2]) expect(e).toMatchObject({ jobType: 'cron', jobId: c.id, scheduledFor: T0, status: 'Pending', triggered: true });
      expect(await store().cronGet({ id: c.id })).toMatchObject({
        status: 'Paused',
        invocations: 2,
        nextInvocation: T0 + 3_600_000,
        lastInvocation: T0,
        lastStatus: 'Pending',
        skippedOccurrences: 0,
      });
      const claimed = await claim(T0);
      expect(claimed.map((x) => [x.executionId, x.attempt, x.scheduledFor]).sort()).toEqual(
        [
          [id1, 1, T0],
          [id2, 1, T0],
        ].sort(),
      );
      expect((await history('cron', c.id)).map((e) => e.id).sort()).toEqual([id1, id2].sort());
    });

    it('a triggered execution whose job was deleted before its claim is Failed, not called', async () => {
      const c = await newCron({ nextInvocation: T0 + 3_600_000 });
      const id = newId();
      await store().jobTrigger({ jobType: 'cron', jobId: c.id, id, now: T0 });
      await store().cronDelete({ id: c.id });
      expect(await claim(T0)).toEqual([]);
      expect(await store().executionGet({ id })).toMatchObject({ status: 'Failed', finishedAt: T0, startedAt: null });
    });
  });
}
