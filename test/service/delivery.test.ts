import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/domain/errors.js';
import type { RetryPolicy } from '../../src/domain/types.js';
import type { JobServiceContext } from '../../src/service/context.js';
import { createCronJob, updateCronJob } from '../../src/service/cron-jobs.js';
import { DEFAULT_RETRY_DELAYS_MS, DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { checkDelivery, createRetry, DEFAULT_DELIVERY, mergeRetry, type DeliveryInput } from '../../src/service/delivery.js';
import { getExecution, listExecutions, triggerJob } from '../../src/service/executions.js';
import { RULES, Checks } from '../../src/service/rules.js';
import { createSchedule, updateSchedule } from '../../src/service/schedules.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

function problemsOf(input: unknown, base: RetryPolicy | null = DEFAULT_DELIVERY.retry) {
  return checkDelivery(new Checks(), input as DeliveryInput, base).problems;
}

async function rejection(p: Promise<unknown>): Promise<InvalidInputError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidInputError);
  return err as InvalidInputError;
}

describe('checkDelivery', () => {
  it('accepts absent fields and every field at its bounds', () => {
    expect(problemsOf({})).toEqual([]);
    expect(problemsOf({ retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1_000 }, timeoutMs: 1_000 })).toEqual([]);
    expect(problemsOf({ retry: { maxAttempts: 20, initialDelayMs: 3_600_000, maxDelayMs: 86_400_000 }, timeoutMs: 900_000 })).toEqual([]);
  });

  it('names every faulty field, in the words of the HTTP layer', () => {
    expect(problemsOf({ retry: { maxAttempts: 0, initialDelayMs: 1.5, maxDelayMs: '9', x: 1 }, timeoutMs: 900_001 })).toEqual([
      { path: '/timeoutMs', message: 'must be at most 900000' },
      { path: '/retry/x', message: 'is not an allowed field' },
      { path: '/retry/maxAttempts', message: 'must be at least 1' },
      { path: '/retry/initialDelayMs', message: 'must be an integer' },
      { path: '/retry/maxDelayMs', message: 'must be an integer' },
    ]);
    expect(problemsOf({ retry: null })).toEqual([{ path: '/retry', message: 'must be a JSON object' }]);
    expect(problemsOf({ retry: [1] })).toEqual([{ path: '/retry', message: 'must be a JSON object' }]);
  });

  it('compares the delays of the policy the job will have', () => {
    // At create: against the defaults (maxDelayMs 3,600,000 ≥ any valid initialDelayMs).
    expect(problemsOf({ retry: { initialDelayMs: 3_600_000 } })).toEqual([]);
    expect(problemsOf({ retry: { initialDelayMs: 5_000, maxDelayMs: 4_000 } })).toEqual([
      { path: '/retry/maxDelayMs', message: 'must be at least initialDelayMs (5000)' },
    ]);
    // Against a stored policy.
    const stored = { maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 2_000 };
    expect(problemsOf({ retry: { initialDelayMs: 3_000 } }, stored)).toEqual([
      { path: '/retry/maxDelayMs', message: 'is 2000, less than initialDelayMs (3000): send a maxDelayMs of at least 3000 too' },
    ]);
    // Before a patch has read the job: only a pair given together.
    expect(problemsOf({ retry: { initialDelayMs: 3_000 } }, null)).toEqual([]);
    expect(problemsOf({ retry: { initialDelayMs: 3_000, maxDelayMs: 2_000 } }, null)).toHaveLength(1);
  });
});

describe('checkDelivery: retry.delaysMs', () => {
  it('accepts null and 1–19 steps of 100–86,400,000 ms', () => {
    expect(problemsOf({ retry: { delaysMs: null } })).toEqual([]);
    expect(problemsOf({ retry: { delaysMs: [100] } })).toEqual([]);
    expect(problemsOf({ retry: { delaysMs: Array.from({ length: 19 }, () => 86_400_000) } })).toEqual([]);
  });

  it('names the array or the faulty step', () => {
    expect(problemsOf({ retry: { delaysMs: [] } })).toEqual([{ path: '/retry/delaysMs', message: 'must NOT have fewer than 1 items' }]);
    expect(problemsOf({ retry: { delaysMs: Array.from({ length: 20 }, () => 1_000) } })).toEqual([
      { path: '/retry/delaysMs', message: 'must NOT have more than 19 items' },
    ]);
    expect(problemsOf({ retry: { delaysMs: '5s' } })).toEqual([
      { path: '/retry/delaysMs', message: 'must be an array or null' },
    ]);
    expect(problemsOf({ retry: { delaysMs: [5_000, 99, 1.5, 86_400_001, null, '1'] } })).toEqual([
      { path: '/retry/delaysMs/1', message: 'must be at least 100' },
      { path: '/retry/delaysMs/2', message: 'must be an integer' },
      { path: '/retry/delaysMs/3', message: 'must be at most 86400000' },
      { path: '/retry/delaysMs/4', message: 'must be an integer' },
      { path: '/retry/delaysMs/5', message: 'must be an integer' },
    ]);
  });
});

describe('mergeRetry', () => {
  it('puts the fields given over the base', () => {
    const base = { maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 3_600_000, delaysMs: null };
    expect(mergeRetry(base, undefined)).toBe(base);
    expect(mergeRetry(base, {})).toEqual(base);
    expect(mergeRetry(base, { maxDelayMs: 10_000 })).toEqual({ ...base, maxDelayMs: 10_000 });
    expect(mergeRetry(base, { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1_000 })).toEqual({
      maxAttempts: 1,
      initialDelayMs: 100,
      maxDelayMs: 1_000,
      delaysMs: null,
    });
    // A policy stored before steps existed (no delaysMs) reads as exponential.
    expect(mergeRetry({ maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 3_600_000 }, { maxAttempts: 2 })).toEqual({ ...base, maxAttempts: 2 });
  });

  it('chooses the rule: delaysMs given wins; initialDelayMs or maxDelayMs alone mean exponential; else the base\'s', () => {
    const steps = DEFAULT_RETRY_POLICY;
    expect(mergeRetry(steps, { maxAttempts: 3 })).toEqual({ ...steps, maxAttempts: 3 });
    expect(mergeRetry(steps, { maxDelayMs: 60_000 })).toEqual({ ...steps, maxDelayMs: 60_000, delaysMs: null });
    expect(mergeRetry(steps, { initialDelayMs: 500 })).toEqual({ ...steps, initialDelayMs: 500, delaysMs: null });
    expect(mergeRetry(steps, { delaysMs: null })).toEqual({ ...steps, delaysMs: null });
    expect(mergeRetry(steps, { initialDelayMs: 500, delaysMs: [1_000] })).toEqual({ ...steps, initialDelayMs: 500, delaysMs: [1_000] });
    const exponential = { maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 3_600_000, delaysMs: null };
    expect(mergeRetry(exponential, { delaysMs: [2_000, 4_000] })).toEqual({ ...exponential, delaysMs: [2_000, 4_000] });
  });

  it('at create, an exponential request takes the exponential defaults, not those of the steps', () => {
    expect(createRetry(DEFAULT_RETRY_POLICY, undefined)).toEqual(DEFAULT_RETRY_POLICY);
    expect(createRetry(DEFAULT_RETRY_POLICY, { maxAttempts: 3 })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 3 });
    // As before steps existed: 1,000 ms, capped at 3,600,000 ms; the attempts are the service's default.
    expect(createRetry(DEFAULT_RETRY_POLICY, { initialDelayMs: 500 })).toEqual({
      maxAttempts: 8,
      initialDelayMs: 500,
      maxDelayMs: 3_600_000,
      delaysMs: null,
    });
    expect(createRetry(DEFAULT_RETRY_POLICY, { delaysMs: null, maxAttempts: 5 })).toEqual({
      maxAttempts: 5,
      initialDelayMs: 1_000,
      maxDelayMs: 3_600_000,
      delaysMs: null,
    });
    expect(createRetry(DEFAULT_RETRY_POLICY, { delaysMs: [1_000, 2_000] })).toEqual({ ...DEFAULT_RETRY_POLICY, delaysMs: [1_000, 2_000] });
    expect(DEFAULT_RETRY_POLICY.delaysMs).toEqual([...DEFAULT_RETRY_DELAYS_MS]);
  });
});

describe('rules', () => {
  it.each([
    ['1', true],
    ['20', true],
    ['100', true],
    ['0', false],
    ['101', false],
    ['1.0', false],
    [' 5', false],
    ['', false],
  ])('page limit %j valid: %s', (text, ok) => {
    expect(RULES['page-limit'](text) === null).toBe(ok);
  });

  it('Checks.integer skips an absent value and words each problem', () => {
    const c = new Checks().integer('/a', undefined, 1, 2).integer('/b', 0, 1, 2).integer('/c', 3, 1, 2).integer('/d', NaN, 1, 2);
    expect(c.problems).toEqual([
      { path: '/b', message: 'must be at least 1' },
      { path: '/c', message: 'must be at most 2' },
      { path: '/d', message: 'must be an integer' },
    ]);
  });
});

describe('services with a real store', () => {
  let dir: string;
  let store: Store;
  let ctx: JobServiceContext;
  let woken: number[];
  const clock = { t: T0, now() { return this.t; } };

  beforeEach(async () => {
    clock.t = T0;
    woken = [];
    dir = await mkdtemp(join(tmpdir(), 'punctual-service-delivery-'));
    await copyMigratedSqlite(join(dir, 'test.db'));
    store = await openStore('file:' + join(dir, 'test.db'));
    await store.migrate(); // nothing to do: the copy is migrated
    ctx = { store, clock, wake: (at) => woken.push(at) };
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const schedule = { name: 's', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/' };
  const cron = { expression: '0 * * * *', endpoint: 'https://example.com/' };

  it('new jobs take DEFAULT_DELIVERY when the context has no defaults, else the context\'s', async () => {
    expect(await createSchedule(ctx, schedule)).toMatchObject(DEFAULT_DELIVERY);
    expect(await createCronJob(ctx, cron)).toMatchObject({ ...DEFAULT_DELIVERY, misfire: 'once', overlap: 'allow' });
    const defaults = { retry: { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 5_000 }, timeoutMs: 2_000 };
    expect(await createSchedule({ ...ctx, defaults }, { ...schedule, retry: { maxAttempts: 1 } })).toMatchObject({
      retry: { maxAttempts: 1, initialDelayMs: 200, maxDelayMs: 5_000, delaysMs: null },
      timeoutMs: 2_000,
    });
    // The context's maxDelayMs is what a lone initialDelayMs is compared with.
    const err = await rejection(createCronJob({ ...ctx, defaults }, { ...cron, retry: { initialDelayMs: 6_000 } }));
    expect(err.errors.map((e) => e.path)).toEqual(['/retry/maxDelayMs']);
  });

  it('checks the fields of callers other than HTTP, all at once, before writing', async () => {
    const err = await rejection(
      createCronJob(ctx, { ...cron, misfire: 'sometimes' as never, overlap: null as never, timeoutMs: '1' as never, retry: { y: 1 } as never }),
    );
    expect(err.errors.map((e) => e.path)).toEqual(['/misfire', '/overlap', '/timeoutMs', '/retry/y']);
    expect(await store.cronList()).toEqual([]);
  });

  it('a patch merges retry into the stored policy (schedules and cron jobs)', async () => {
    const s = await createSchedule(ctx, { ...schedule, retry: { maxAttempts: 2 } });
    expect(s.retry).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 2 });
    // initialDelayMs alone switches the stored steps to the exponential rule; the rest is kept.
    expect((await updateSchedule(ctx, s.id, { retry: { initialDelayMs: 400 } })).retry).toEqual({
      maxAttempts: 2,
      initialDelayMs: 400,
      maxDelayMs: 43_200_000,
      delaysMs: null,
    });
    expect((await updateSchedule(ctx, s.id, { retry: { delaysMs: [700, 800] } })).retry).toEqual({
      maxAttempts: 2,
      initialDelayMs: 400,
      maxDelayMs: 43_200_000,
      delaysMs: [700, 800],
    });
    expect((await updateSchedule(ctx, s.id, { retry: { maxAttempts: 4 } })).retry.delaysMs).toEqual([700, 800]);
    const j = await createCronJob(ctx, { ...cron, retry: { maxDelayMs: 1_000 } });
    expect(j.retry).toEqual({ maxAttempts: 8, initialDelayMs: 1_000, maxDelayMs: 1_000, delaysMs: null });
    await rejection(updateCronJob(ctx, j.id, { retry: { initialDelayMs: 1_001 } }));
    expect((await updateCronJob(ctx, j.id, { retry: { initialDelayMs: 1_000 }, overlap: 'skip' })).retry).toEqual({
      maxAttempts: 8,
      initialDelayMs: 1_000,
      maxDelayMs: 1_000,
      delaysMs: null,
    });
    expect((await updateCronJob(ctx, j.id, { retry: { delaysMs: [60_000] } })).retry.delaysMs).toEqual([60_000]);
    expect((await updateCronJob(ctx, j.id, { retry: { delaysMs: null } })).retry.delaysMs).toBeNull();
  });

  it('executions: limit checked with the prefix given; unknown and non-UUID ids give empty pages and null', async () => {
    const err = await rejection(listExecutions(ctx, 'cron', 'x', { limit: 0 }, '/query'));
    expect(err.errors).toEqual([{ path: '/query/limit', message: 'must be a whole number from 1 to 100' }]);
    expect(await listExecutions(ctx, 'cron', 'x')).toEqual({ executions: [], nextCursor: null });
    expect(await getExecution(ctx, 'x')).toBeNull();
  });

  it('triggerJob wakes the dispatcher for now and names the kind of job when the id is unknown', async () => {
    const j = await createCronJob(ctx, cron);
    woken = [];
    clock.t = T0 + 99;
    const e = await triggerJob(ctx, 'cron', j.id);
    expect(e).toMatchObject({ jobId: j.id, scheduledFor: T0 + 99, triggered: true, status: 'Pending' });
    expect(woken).toEqual([T0 + 99]);
    expect(await getExecution(ctx, e.id)).toEqual(e);
    await expect(triggerJob(ctx, 'cron', 'x')).rejects.toThrow('No cron job has this id.');
    await expect(triggerJob(ctx, 'schedule', j.id)).rejects.toThrow('No schedule has this id.');
  });
});
