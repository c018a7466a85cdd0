/**
 * Conformance of the executions list across jobs (`Store.executionSearch`) and of replays
 * (`Store.executionReplay`, `Store.executionsReplay`), registered inside `exerciseStore`
 * (index.ts), so every store runs them against a fresh, migrated database per test. Only the
 * `Store` interface is used: the executions are made by claims, triggers and outcomes.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { AttemptOutcome, ClaimedExecution, Execution, ExecutionStatus, JobType } from '../../../src/domain/types.js';
import type { ExecutionFilter } from '../../../src/store/sql/execution-search.js';
import type { Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const MIN = 60_000;
const RETRY = { maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 3_600_000 };
const FAR = T0 + 365 * 24 * 3_600_000;

/** What each schedule's execution becomes, in the order of their instants (T0 + 1 min, + 2 min, …). */
const SCHEDULE_FATES = ['Succeeded', 'Failed', 'Retrying', 'Failed', 'Running', 'Failed', 'Succeeded'] as const;

const NO_FILTER: ExecutionFilter = { statuses: [], jobType: null, jobId: null, from: null, to: null };

/**
 * Registers the tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeExecutionSearch(current: () => Store): void {
  describe('executionSearch, executionReplay, executionsReplay', () => {
    const store = () => current();

    const claim = async (now: number, limit = 100): Promise<ClaimedExecution[]> =>
      (await store().claimDue({ now, limit, nodeId: 'node-a', leaseMs: 3_600_000, misfireThresholdMs: 3_600_000 })).claimed;

    const outcome = (c: ClaimedExecution, status: AttemptOutcome['status']): AttemptOutcome => ({
      executionId: c.executionId,
      attempt: c.attempt,
      status,
      nextAttemptAt: status === 'Retrying' ? FAR : null,
      startedAt: c.scheduledFor + 3,
      durationMs: 12,
      statusCode: status === 'Succeeded' ? 200 : 500,
      error: status === 'Succeeded' ? null : 'HTTP 500',
      responseBody: null,
    });

    const finish = (c: ClaimedExecution, status: AttemptOutcome['status']) =>
      store().executionsFinish({ nodeId: 'node-a', outcomes: [outcome(c, status)] });

    /**
     * Seven schedules (one execution each, of every status but Pending and Skipped) and two cron
     * jobs with triggered executions (Pending, Failed, Succeeded), interleaved in time.
     * @returns the ids of the jobs
     */
    async function seed(): Promise<{ schedules: string[]; crons: string[] }> {
      const schedules: string[] = [];
      for (let i = 0; i < SCHEDULE_FATES.length; i++) {
        const id = newId();
        schedules.push(id);
        await store().scheduleCreate({
          id,
          name: `s${i}`,
          scheduledAt: T0 + (i + 1) * MIN,
          endpoint: 'https://example.com/hook',
          data: {},
          tags: [],
          retry: RETRY,
          timeoutMs: 1_000,
          now: T0 - MIN,
        });
      }
      const claimed = await claim(T0 + 10 * MIN);
      expect(claimed).toHaveLength(SCHEDULE_FATES.length);
      for (const c of claimed) {
        const fate = SCHEDULE_FATES[schedules.indexOf(c.jobId)]!;
        if (fate !== 'Running') await finish(c, fate);
      }
      const crons: string[] = [];
      for (let j = 0; j < 2; j++) {
        const id = newId();
        crons.push(id);
        await store().cronCreate({
          id,
          expression: '0 0 1 1 *',
          name: `c${j}`,
          timezone: null,
          endpoint: 'https://example.com/cron',
          data: null,
          nextInvocation: FAR,
          retry: RETRY,
          timeoutMs: 1_000,
          misfire: 'once',
          overlap: 'allow',
          now: T0 - MIN,
        });
      }
      // Triggers at T0 + 30 s, + 1.5 min, …: between the schedules' instants.
      for (let k = 0; k < 6; k++) {
        const r = await store().jobTrigger({ jobType: 'cron', jobId: crons[k % 2]!, id: newId(), now: T0 + 30_000 + k * MIN });
        expect(r).not.toBe('not_found');
      }
      // The two earliest triggered runs are claimed: one fails, one succeeds; four stay Pending.
      const [a, b] = await claim(T0 + 11 * MIN, 2);
      await finish(a!, 'Failed');
      await finish(b!, 'Succeeded');
      return { schedules, crons };
    }

    /** Every execution of the jobs, by the per-job list. */
    async function everything(jobs: { schedules: string[]; crons: string[] }): Promise<Execution[]> {
      const all: Execution[] = [];
      const each = async (jobType: JobType, jobId: string) =>
        all.push(...(await store().executionList({ jobType, jobId, limit: 100, cursor: null })).executions);
      for (const id of jobs.schedules) await each('schedule', id);
      for (const id of jobs.crons) await each('cron', id);
      return all;
    }

    /** The expected ids of a filter: the oracle, in list order. */
    function expected(all: Execution[], f: ExecutionFilter): string[] {
      return all
        .filter(
          (e) =>
            (f.statuses.length === 0 || f.statuses.includes(e.status)) &&
            (f.jobType === null || e.jobType === f.jobType) &&
            (f.jobId === null || e.jobId === f.jobId) &&
            (f.from === null || e.scheduledFor >= f.from) &&
            (f.to === null || e.scheduledFor < f.to),
        )
        .sort((x, y) => y.scheduledFor - x.scheduledFor || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0))
        .map((e) => e.id);
    }

    /** Every page of a search, `limit` at a time: the ids in order, and the sizes of the pages. */
    async function walk(f: ExecutionFilter, limit: number): Promise<{ ids: string[]; sizes: number[] }> {
      const ids: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const page: { executions: Execution[]; nextCursor: string | null } = await store().executionSearch({ ...f, limit, cursor });
        ids.push(...page.executions.map((e) => e.id));
        sizes.push(page.executions.length);
        cursor = page.nextCursor;
        expect(sizes.length).toBeLessThan(100);
      } while (cursor !== null);
      return { ids, sizes };
    }

    it('pages every filter and combination in the order of the list, each execution once', async () => {
      const jobs = await seed();
      const all = await everything(jobs);
      expect(all).toHaveLength(SCHEDULE_FATES.length + 6);
      const statuses = (...s: ExecutionStatus[]) => s;
      const filters: Array<Partial<ExecutionFilter>> = [
        {},
        { statuses: statuses('Failed') },
        { statuses: statuses('Failed', 'Retrying', 'Pending') },
        { statuses: statuses('Failed', 'Failed') },
        { statuses: statuses('Skipped') },
        { jobType: 'cron' },
        { jobType: 'schedule' },
        { jobType: 'schedule', jobId: jobs.schedules[1]! },
        { jobId: jobs.crons[0]! },
        { jobType: 'schedule', jobId: jobs.crons[0]! },
        { jobId: jobs.crons[1]!, statuses: statuses('Pending') },
        { from: T0 + 2 * MIN, to: T0 + 5 * MIN },
        { from: T0 + 2 * MIN },
        { to: T0 + 2 * MIN },
        { statuses: statuses('Failed'), from: T0 + 2 * MIN, to: T0 + 6 * MIN },
        { statuses: statuses('Failed', 'Succeeded'), jobType: 'cron' },
        { jobType: 'cron', jobId: jobs.crons[0]!, from: T0 + MIN, to: T0 + 3 * MIN },
        { from: T0 + 5 * MIN, to: T0 + 2 * MIN },
      ];
      for (const partial of filters) {
        const f = { ...NO_FILTER, ...partial };
        const want = expected(all, f);
        for (const limit of [1, 2, 5, 100]) {
          const { ids, sizes } = await walk(f, limit);
          expect({ f, limit, ids }).toEqual({ f, limit, ids: want });
          // Full pages but the last (which may be empty only when the list is).
          expect(sizes.slice(0, -1).every((n) => n === limit)).toBe(true);
        }
      }
      // The rows are whole executions, with their attempts.
      const [failed] = (await store().executionSearch({ ...NO_FILTER, statuses: ['Failed'], limit: 1, cursor: null })).executions;
      expect(failed).toEqual(await store().executionGet({ id: failed!.id }));
      expect(failed!.attempts).toHaveLength(1);
    });

    it('refuses a cursor it did not make, on /query/cursor', async () => {
      const err = await store().executionSearch({ ...NO_FILTER, limit: 10, cursor: 'bogus!' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as InvalidInputError).errors[0]!.path).toBe('/query/cursor');
    });

    it('replays one Failed execution: Retrying due now, a fresh budget, attempt numbers continue, its schedule Running', async () => {
      const jobs = await seed();
      const id = jobs.schedules[1]!;
      const [before] = (await store().executionList({ jobType: 'schedule', jobId: id, limit: 1, cursor: null })).executions;
      expect(before!.status).toBe('Failed');
      const now = T0 + 20 * MIN;
      const replayed = await store().executionReplay({ id: before!.id, now });
      expect(replayed).toMatchObject({ id: before!.id, status: 'Retrying', finishedAt: null, startedAt: before!.startedAt });
      expect((await store().scheduleGet({ id }))!.status).toBe('Running');
      expect(await store().nextDueAt()).toBeLessThanOrEqual(now);
      const claimed = (await claim(now)).filter((c) => c.executionId === before!.id);
      expect(claimed).toHaveLength(1);
      expect(claimed[0]).toMatchObject({ attempt: 2, retryBase: 1, retry: RETRY });
      await finish(claimed[0]!, 'Succeeded');
      const after = await store().executionGet({ id: before!.id });
      expect(after!.status).toBe('Succeeded');
      expect(after!.attempts.map((a) => a.number)).toEqual([1, 2]);
      expect((await store().scheduleGet({ id }))!.status).toBe('Succeeded');
    });

    it('refuses to replay what is not Failed, an unknown id, and an execution whose job was deleted, changing nothing', async () => {
      const jobs = await seed();
      const all = await everything(jobs);
      for (const e of all.filter((x) => x.status !== 'Failed')) {
        expect(await store().executionReplay({ id: e.id, now: T0 + 20 * MIN })).toBe('not_failed');
      }
      expect(await store().executionReplay({ id: newId(), now: T0 + 20 * MIN })).toBe('not_found');
      const gone = jobs.schedules[3]!;
      const [failed] = (await store().executionList({ jobType: 'schedule', jobId: gone, limit: 1, cursor: null })).executions;
      expect(await store().scheduleDelete({ id: gone })).toBe(true);
      expect(await store().executionReplay({ id: failed!.id, now: T0 + 20 * MIN })).toBe('job_deleted');
      expect(await everything(jobs)).toEqual(all);
      expect(await store().executionGet({ id: failed!.id })).toEqual(failed);
    });

    it('replays many in one call: only the Failed executions within the filter, newest first, at most the limit', async () => {
      const jobs = await seed();
      const all = await everything(jobs);
      const failedSchedules = expected(all, { ...NO_FILTER, statuses: ['Failed'], jobType: 'schedule' });
      expect(failedSchedules).toHaveLength(3);
      const now = T0 + 20 * MIN;
      // At most the limit: the newest first.
      expect(await store().executionsReplay({ jobType: 'schedule', jobId: null, from: null, to: null, now, limit: 1 })).toBe(1);
      expect((await store().executionGet({ id: failedSchedules[0]! }))!.status).toBe('Retrying');
      expect(await store().executionsReplay({ jobType: 'schedule', jobId: null, from: null, to: null, now, limit: 10_000 })).toBe(2);
      const after = await everything(jobs);
      for (const e of after) {
        const was = all.find((x) => x.id === e.id)!;
        if (failedSchedules.includes(e.id)) expect(e).toMatchObject({ status: 'Retrying', finishedAt: null });
        else expect(e).toEqual(was);
      }
      for (const [i, fate] of SCHEDULE_FATES.entries()) {
        const s = await store().scheduleGet({ id: jobs.schedules[i]! });
        expect(s!.status).toBe(fate === 'Failed' || fate === 'Retrying' ? 'Running' : fate);
      }
      // Nothing Failed of schedules is left; a time window and a job select within the cron jobs.
      expect(await store().executionsReplay({ jobType: 'schedule', jobId: null, from: null, to: null, now, limit: 10_000 })).toBe(0);
      const cronFailed = expected(after, { ...NO_FILTER, statuses: ['Failed'], jobType: 'cron' });
      expect(cronFailed).toHaveLength(1);
      const scheduledFor = after.find((e) => e.id === cronFailed[0])!.scheduledFor;
      const window = { jobType: null, jobId: null, now, limit: 10_000 };
      expect(await store().executionsReplay({ ...window, from: scheduledFor + 1, to: null })).toBe(0);
      expect(await store().executionsReplay({ ...window, from: null, to: scheduledFor })).toBe(0);
      expect(await store().executionsReplay({ ...window, jobId: jobs.crons[1]!, from: null, to: null })).toBe(0);
      expect(await store().executionsReplay({ ...window, jobId: jobs.crons[0]!, from: scheduledFor, to: scheduledFor + 1 })).toBe(1);
      const claimed = (await claim(now)).filter((c) => c.executionId === cronFailed[0]);
      expect(claimed[0]).toMatchObject({ attempt: 2, retryBase: 1 });
    });

    it('a bulk replay skips the failures of deleted jobs', async () => {
      const jobs = await seed();
      await store().scheduleDelete({ id: jobs.schedules[1]! });
      const now = T0 + 20 * MIN;
      expect(await store().executionsReplay({ jobType: 'schedule', jobId: null, from: null, to: null, now, limit: 10_000 })).toBe(2);
    });
  });
}
