/**
 * Conformance of `executionGet` and `executionList`: one execution, and a job's executions page by
 * page (the search across jobs is execution-search.ts). Registered inside `exerciseStore`
 * (index.ts), so every store runs it against a fresh, migrated database per test. Time is injected
 * (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { Store } from '../../../src/store/store.js';
import { suiteHelpers, T0, uuid } from './fixtures.js';

/**
 * Registers the describe block 'executionGet and executionList' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeExecutionReads(current: () => Store): void {
  describe('executionGet and executionList', () => {
    const store = () => current();
    const { claim, newSchedule, newCron, finish } = suiteHelpers(current);

    it('get of an unknown id is null', async () => {
      expect(await store().executionGet({ id: newId() })).toBeNull();
    });

    it('pages newest first (scheduledFor, then id) with an opaque cursor; nextCursor is null on the last page', async () => {
      const c = await newCron({ nextInvocation: T0 });
      const occurrences: string[] = [];
      for (let i = 0; i < 5; i++) {
        const [x] = await claim(T0 + i * 60_000);
        occurrences.push(x!.executionId);
        await finish(x!, { startedAt: T0 + i * 60_000 + 1, responseBody: `r${i}` });
      }
      // Two triggers at the instant of the 5th occurrence: ties broken by id, descending.
      for (const n of [1, 2]) await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: uuid(n), now: T0 + 240_000 });
      const expected = [occurrences[4]!, uuid(2), uuid(1), occurrences[3]!, occurrences[2]!, occurrences[1]!, occurrences[0]!];

      const p1 = await store().executionList({ jobType: 'cron', jobId: c.id, limit: 3, cursor: null });
      const p2 = await store().executionList({ jobType: 'cron', jobId: c.id, limit: 3, cursor: p1.nextCursor });
      const p3 = await store().executionList({ jobType: 'cron', jobId: c.id, limit: 3, cursor: p2.nextCursor });
      expect([p1, p2, p3].map((p) => p.executions.length)).toEqual([3, 3, 1]);
      expect(typeof p1.nextCursor).toBe('string');
      expect(typeof p2.nextCursor).toBe('string');
      expect(p3.nextCursor).toBeNull();
      expect([...p1.executions, ...p2.executions, ...p3.executions].map((e) => e.id)).toEqual(expected);
      // Attempts come with the page.
      expect(p1.executions[0]).toMatchObject({ status: 'Succeeded', attempts: [{ number: 1, responseBody: 'r4' }] });
      expect(p1.executions[1]).toMatchObject({ status: 'Pending', triggered: true, attempts: [] });
      expect(p3.executions[0]).toEqual(await store().executionGet({ id: occurrences[0]! }));
      // A page that ends exactly at the last execution has no next page.
      expect((await store().executionList({ jobType: 'cron', jobId: c.id, limit: 7, cursor: null })).nextCursor).toBeNull();
      expect((await store().executionList({ jobType: 'cron', jobId: c.id, limit: 6, cursor: null })).nextCursor).not.toBeNull();
    });

    it("a cursor this store did not make is InvalidInputError on '/query/cursor'", async () => {
      const c = await newCron();
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      for (const cursor of ['', 'not a cursor!', 'AAAA', b64({}), b64([1]), b64(['x', 'y']), b64([1.5, 'a']), b64([1, '']), b64([1, 'a', 2])]) {
        const err = await store().executionList({ jobType: 'cron', jobId: c.id, limit: 10, cursor }).catch((e: unknown) => e);
        expect(err, cursor).toBeInstanceOf(InvalidInputError);
        expect((err as InvalidInputError).errors.map((e) => e.path)).toEqual(['/query/cursor']);
      }
    });

    it('a job without executions, or unknown, gives an empty page', async () => {
      const s = await newSchedule({ scheduledAt: T0 + 1000 });
      expect(await store().executionList({ jobType: 'schedule', jobId: s.id, limit: 20, cursor: null })).toEqual({ executions: [], nextCursor: null });
      expect(await store().executionList({ jobType: 'cron', jobId: newId(), limit: 20, cursor: null })).toEqual({ executions: [], nextCursor: null });
    });

    it("lists only that job's executions", async () => {
      const a = await newSchedule({ scheduledAt: T0 });
      const b = await newSchedule({ scheduledAt: T0 });
      const claimed = await claim(T0);
      const ofA = await store().executionList({ jobType: 'schedule', jobId: a.id, limit: 20, cursor: null });
      expect(ofA.executions.map((e) => e.id)).toEqual([claimed.find((x) => x.jobId === a.id)!.executionId]);
      expect((await store().executionList({ jobType: 'cron', jobId: b.id, limit: 20, cursor: null })).executions).toEqual([]);
    });
  });
}
