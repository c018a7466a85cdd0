/**
 * The claim's rulebook (src/store/rules/claim.ts) on its own: injected instants and injected cron
 * engines, no database. The conformance suite (test/store/conformance/) holds both stores to the
 * same rules with the real engine.
 */
import { describe, expect, it } from 'vitest';
import type { CronJob, MisfirePolicy, OverlapPolicy } from '../../src/domain/types.js';
import {
  afterInsert,
  aheadOf,
  attemptStart,
  claimClock,
  cronAdvance,
  leaseExpiry,
  MISFIRE_ALL_MAX,
  MISSED_COUNT_MAX,
  newerExecution,
  occurrenceStatus,
  occurrenceStatuses,
  overlapStart,
  pausedEntry,
  planCron,
  type NextOccurrence,
} from '../../src/store/rules/claim.js';

/** 2030-01-01T00:00:00.000Z. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;
const THRESHOLD = 60_000;

function job(o: { nextInvocation?: number; misfire?: MisfirePolicy; overlap?: OverlapPolicy } = {}): CronJob {
  return {
    id: 'job-1',
    name: null,
    expression: '* * * * *',
    timezone: null,
    endpoint: 'https://example.com/',
    data: null,
    status: 'Active',
    nextInvocation: o.nextInvocation ?? T0,
    lastInvocation: null,
    lastStatus: null,
    invocations: 0,
    retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000 },
    timeoutMs: 1000,
    successStatuses: ['2xx'],
    pauseAfterFailures: null,
    pausedReason: null,
    consecutiveFailures: 0,
    tags: [],
    misfire: o.misfire ?? 'once',
    overlap: o.overlap ?? 'allow',
    createdAt: T0 - MINUTE,
    skippedOccurrences: 0,
    method: 'POST' as const, headers: {}, body: null, auth: null, secrets: null,
    startAt: null,
    endAt: null,
    maxInvocations: null,
    jitterMs: 0,
    key: null,
    managedBy: null,
    flowControlKey: null,
  };
}

/** An engine of occurrences at T0 + k·period (k whole), as a real expression gives. */
const every =
  (period: number): NextOccurrence =>
  (_job, after) =>
    T0 + (Math.floor((after - T0) / period) + 1) * period;
const perMinute = every(MINUTE);

describe('claimClock and leaseExpiry', () => {
  it('floors now, rounds the lease margin up, and leases until now + timeout + margin', () => {
    const clock = claimClock({ now: T0 + 0.9, leaseMs: 10.1 });
    expect(clock).toEqual({ now: T0, dueBy: T0, leaseMs: 11 });
    expect(leaseExpiry(clock, 30_000)).toBe(T0 + 30_000 + 11);
  });

  it('claiming ahead: dueBy = now + aheadMs floored (0 when absent, negative or not finite); starts and notBefore never before the due instant', () => {
    const clock = claimClock({ now: T0 + 0.9, leaseMs: 5_000, aheadMs: 100.7 });
    expect(clock).toEqual({ now: T0, dueBy: T0 + 100, leaseMs: 5_000 });
    expect(leaseExpiry(clock, 30_000)).toBe(T0 + 35_000); // from the real now
    for (const aheadMs of [-5, Number.NaN, Infinity]) expect(claimClock({ now: T0, leaseMs: 1, aheadMs }).dueBy).toBe(T0);
    expect(attemptStart(clock, T0 + 40)).toBe(T0 + 40);
    expect(attemptStart(clock, T0 - 40)).toBe(T0);
    expect(aheadOf(clock, T0 + 40)).toEqual({ notBefore: T0 + 40 });
    expect(aheadOf(clock, T0)).toEqual({});
    expect(aheadOf(clock, T0 - 1)).toEqual({});
  });
});

describe('planCron: misfire', () => {
  it('no misfire: o1 runs and the job advances from o1, even when claimed a little late', () => {
    const seen: number[] = [];
    const engine: NextOccurrence = (_j, after) => (seen.push(after), after + 1000);
    const plan = planCron(job({ nextInvocation: T0 }), T0 + 800, THRESHOLD, engine);
    expect(plan).toEqual({
      occurrences: [T0],
      misfire: false,
      skipAll: false,
      next: T0 + 1000,
      advances: true,
      ended: false,
      left: null,
      missed: null,
      skipped: 0,
    });
    expect(seen).toEqual([T0]);
  });

  it('exactly the threshold late is no misfire; one ms more is', () => {
    const hourly = every(3_600_000);
    expect(planCron(job(), T0 + THRESHOLD, THRESHOLD, hourly).misfire).toBe(false);
    expect(planCron(job(), T0 + THRESHOLD + 1, THRESHOLD, hourly).misfire).toBe(true);
  });

  it('o2 also due is a misfire however small the delay', () => {
    const plan = planCron(job(), T0 + 2500, THRESHOLD, every(1000));
    expect(plan).toMatchObject({ occurrences: [T0], misfire: true, next: T0 + 3000, advances: true });
  });

  it("'once': o1 alone, standing for every missed occurrence (count, first, last), then the next after now", () => {
    const plan = planCron(job({ nextInvocation: T0 - 10 * MINUTE }), T0 + 1, THRESHOLD, perMinute);
    expect(plan).toEqual({
      occurrences: [T0 - 10 * MINUTE],
      misfire: true,
      skipAll: false,
      next: T0 + MINUTE,
      advances: true,
      ended: false,
      left: null,
      missed: { count: 11, first: T0 - 10 * MINUTE, last: T0, capped: false },
      skipped: 0,
    });
  });

  it("'once': a single late occurrence stands only for itself (no missed record)", () => {
    const plan = planCron(job({ nextInvocation: T0 - 10 * MINUTE }), T0 - 1, THRESHOLD, every(3_600_000));
    expect(plan).toMatchObject({ misfire: true, missed: null, skipped: 0, next: T0 });
    // o2 due as well: two occurrences, the least a record holds.
    const two = planCron(job({ nextInvocation: T0 - MINUTE }), T0 + 59_000, THRESHOLD, perMinute);
    expect(two).toMatchObject({ missed: { count: 2, first: T0 - MINUTE, last: T0, capped: false }, next: T0 + MINUTE });
  });

  it("'skip': o1 alone, recorded Skipped (skipAll), counting every occurrence dropped", () => {
    const plan = planCron(job({ nextInvocation: T0 - 10 * MINUTE, misfire: 'skip' }), T0, THRESHOLD, perMinute);
    expect(plan).toMatchObject({ occurrences: [T0 - 10 * MINUTE], skipAll: true, next: T0 + MINUTE, missed: null, skipped: 11 });
    expect(cronAdvance(plan, 1)).toEqual({ nextInvocation: T0 + MINUTE, status: 'Active', invocationsAdded: 1, skippedAdded: 11 });
    // o1 already had its execution (claimed again): nothing inserted, nothing counted twice.
    expect(cronAdvance(plan, 0)).toMatchObject({ invocationsAdded: 0, skippedAdded: 0 });
    // One late occurrence alone is one skipped.
    const one = planCron(job({ nextInvocation: T0 - 10 * MINUTE, misfire: 'skip' }), T0 - 1, THRESHOLD, every(3_600_000));
    expect(one).toMatchObject({ skipAll: true, skipped: 1 });
  });

  it(`the count stops at MISSED_COUNT_MAX (${MISSED_COUNT_MAX}), flagged capped; last stays exact, the engine asked a bounded number of times`, () => {
    expect(MISSED_COUNT_MAX).toBe(1000);
    const o1 = T0 - 365 * 24 * 60 * MINUTE; // a year of minutes missed: 525,601 occurrences
    let calls = 0;
    const counting: NextOccurrence = (j, after) => (calls++, perMinute(j, after));
    const plan = planCron(job({ nextInvocation: o1 }), T0 + 30_000, THRESHOLD, counting);
    expect(plan).toMatchObject({ missed: { count: 1000, first: o1, last: T0, capped: true }, next: T0 + MINUTE, advances: true });
    expect(calls).toBeLessThan(MISSED_COUNT_MAX + 60);
    const skip = planCron(job({ nextInvocation: o1, misfire: 'skip' }), T0 + 30_000, THRESHOLD, perMinute);
    expect(skip).toMatchObject({ skipped: 1000, next: T0 + MINUTE });
    // Exactly the cap: counted in full, not capped.
    const exact = planCron(job({ nextInvocation: T0 - 999 * MINUTE }), T0, THRESHOLD, perMinute);
    expect(exact.missed).toEqual({ count: 1000, first: T0 - 999 * MINUTE, last: T0, capped: false });
  });

  it('the count stops where the engine breaks (null, or not increasing), and the job goes on from next after now', () => {
    const stops: NextOccurrence = (_j, after) => (after < T0 - 2 * MINUTE ? after + MINUTE : after >= T0 ? T0 + MINUTE : T0 - 5 * MINUTE);
    const plan = planCron(job({ nextInvocation: T0 - 4 * MINUTE }), T0, THRESHOLD, stops);
    expect(plan).toMatchObject({ missed: { count: 3, first: T0 - 4 * MINUTE, last: T0 - 2 * MINUTE, capped: false }, next: T0 + MINUTE });
  });

  it("'all' records no missed count: each occurrence has its own execution", () => {
    const plan = planCron(job({ nextInvocation: T0 - 4 * MINUTE, misfire: 'all' }), T0 + 1, THRESHOLD, perMinute);
    expect(plan).toMatchObject({ missed: null, skipped: 0 });
  });

  it("'all': every due occurrence, oldest first, then the next after now", () => {
    const plan = planCron(job({ nextInvocation: T0 - 4 * MINUTE, misfire: 'all' }), T0 + 1, THRESHOLD, perMinute);
    expect(plan.occurrences).toEqual([T0 - 4 * MINUTE, T0 - 3 * MINUTE, T0 - 2 * MINUTE, T0 - MINUTE, T0]);
    expect(plan).toMatchObject({ misfire: true, skipAll: false, next: T0 + MINUTE, advances: true });
  });

  it(`'all' stops at MISFIRE_ALL_MAX (${MISFIRE_ALL_MAX}) occurrences, the oldest, and goes on after now`, () => {
    const o1 = T0 - 1500 * MINUTE;
    const plan = planCron(job({ nextInvocation: o1, misfire: 'all' }), T0, THRESHOLD, perMinute);
    expect(MISFIRE_ALL_MAX).toBe(1000);
    expect(plan.occurrences).toEqual(Array.from({ length: 1000 }, (_, i) => o1 + i * MINUTE));
    expect(plan).toMatchObject({ next: T0 + MINUTE, advances: true });
  });

  it('rounds the engine up to whole ms (never early)', () => {
    const plan = planCron(job(), T0, THRESHOLD, () => T0 + 1000.2);
    expect(plan.next).toBe(T0 + 1001);
  });
});

describe('planCron: a broken engine pauses the job; its occurrence still runs', () => {
  it('returns null: no further occurrence', () => {
    const plan = planCron(job(), T0, THRESHOLD, () => null);
    expect(plan).toEqual({ occurrences: [T0], misfire: false, skipAll: false, next: null, advances: false, ended: false, left: null, missed: null, skipped: 0 });
    expect(cronAdvance(plan, 1)).toEqual({ nextInvocation: T0, status: 'Paused', invocationsAdded: 1, skippedAdded: 0 });
    expect(pausedEntry('job-1', plan)).toEqual({ id: 'job-1', next: null });
  });

  it('throws: the first error is kept, and the claim goes on', () => {
    const boom = new Error('engine broke');
    let calls = 0;
    const plan = planCron(job({ nextInvocation: T0 - 10 * MINUTE }), T0, THRESHOLD, () => {
      calls++;
      throw calls === 1 ? boom : new Error('second');
    });
    expect(plan).toMatchObject({ occurrences: [T0 - 10 * MINUTE], misfire: true, next: null, advances: false, error: boom });
    expect(pausedEntry('job-1', plan)).toEqual({ id: 'job-1', next: null, error: boom });
  });

  it('returns an instant not after now (the job would be due again at once, forever)', () => {
    const plan = planCron(job(), T0, THRESHOLD, (_j, after) => after);
    expect(plan).toMatchObject({ occurrences: [T0], next: T0, advances: false });
    expect(cronAdvance(plan, 1)).toMatchObject({ nextInvocation: T0, status: 'Paused' });
  });

  it('returns something else than a finite number: taken as none', () => {
    for (const bad of [Number.NaN, Infinity, '123' as unknown as number, undefined as unknown as number]) {
      expect(planCron(job(), T0, THRESHOLD, () => bad)).toMatchObject({ next: null, advances: false });
    }
  });

  it("does not increase during an 'all' walk: the walk stops there and the job is paused at its last occurrence", () => {
    const engine: NextOccurrence = (_j, after) => (after < T0 - 2 * MINUTE ? after + MINUTE : T0 - 5 * MINUTE);
    const plan = planCron(job({ nextInvocation: T0 - 4 * MINUTE, misfire: 'all' }), T0, THRESHOLD, engine);
    expect(plan.occurrences).toEqual([T0 - 4 * MINUTE, T0 - 3 * MINUTE, T0 - 2 * MINUTE]);
    expect(plan).toMatchObject({ next: T0 - 5 * MINUTE, advances: false });
    expect(cronAdvance(plan, 3)).toEqual({ nextInvocation: T0 - 2 * MINUTE, status: 'Paused', invocationsAdded: 3, skippedAdded: 0 });
  });

  it('an engine that works gives no paused entry, and the job stays Active at next', () => {
    const plan = planCron(job(), T0, THRESHOLD, perMinute);
    expect(pausedEntry('job-1', plan)).toBeNull();
    expect(cronAdvance(plan, 1)).toEqual({ nextInvocation: T0 + MINUTE, status: 'Active', invocationsAdded: 1, skippedAdded: 0 });
  });
});

describe('occurrence statuses: overlap and room', () => {
  const allPlan = (overlap: OverlapPolicy) =>
    planCron(job({ nextInvocation: T0 - 2 * MINUTE, misfire: 'all', overlap }), T0, THRESHOLD, perMinute);
  const never = () => {
    throw new Error('inProgress must not be asked');
  };

  it("Running while there is room, then Pending (overlap 'allow')", () => {
    expect(occurrenceStatuses(allPlan('allow'), 'allow', never, 2, () => false)).toEqual([
      { scheduledFor: T0 - 2 * MINUTE, status: 'Running', dueAt: null, nextAttemptAt: null },
      { scheduledFor: T0 - MINUTE, status: 'Running', dueAt: null, nextAttemptAt: null },
      { scheduledFor: T0, status: 'Pending', dueAt: null, nextAttemptAt: T0 },
    ]);
  });

  it("overlap 'skip': the first runs, the others are Skipped; with one in progress, all are Skipped", () => {
    expect(occurrenceStatuses(allPlan('skip'), 'skip', () => false, 10, () => false).map((x) => x.status)).toEqual([
      'Running',
      'Skipped',
      'Skipped',
    ]);
    expect(occurrenceStatuses(allPlan('skip'), 'skip', () => true, 10, () => false).map((x) => x.status)).toEqual([
      'Skipped',
      'Skipped',
      'Skipped',
    ]);
    // No room: the first is Pending, which still counts as in progress for the rest.
    expect(occurrenceStatuses(allPlan('skip'), 'skip', () => false, 0, () => false).map((x) => x.status)).toEqual([
      'Pending',
      'Skipped',
      'Skipped',
    ]);
  });

  it("misfire 'skip' records Skipped without asking whether one is in progress", () => {
    const plan = planCron(job({ nextInvocation: T0 - 10 * MINUTE, misfire: 'skip', overlap: 'skip' }), T0, THRESHOLD, perMinute);
    expect(occurrenceStatuses(plan, 'skip', never, 10, () => false)).toEqual([
      { scheduledFor: T0 - 10 * MINUTE, status: 'Skipped', dueAt: null, nextAttemptAt: null },
    ]);
  });

  it('an occurrence that already has its execution is left out and uses no room nor overlap', () => {
    const out = occurrenceStatuses(allPlan('skip'), 'skip', () => false, 1, (o) => o === T0 - 2 * MINUTE);
    expect(out).toEqual([
      { scheduledFor: T0 - MINUTE, status: 'Running', dueAt: null, nextAttemptAt: null },
      { scheduledFor: T0, status: 'Skipped', dueAt: null, nextAttemptAt: null },
    ]);
  });

  it('step by step, as a store that learns of existing executions from each insert', () => {
    let s = overlapStart(allPlan('skip'), 'skip', () => false);
    expect(occurrenceStatus(s, 1)).toBe('Running');
    s = afterInsert(s, 'Skipped'); // a Skipped insert changes nothing
    expect(occurrenceStatus(s, 1)).toBe('Running');
    s = afterInsert(s, 'Running');
    expect(occurrenceStatus(s, 1)).toBe('Skipped');
    const allow = overlapStart(allPlan('allow'), 'allow', never);
    expect(afterInsert(allow, 'Running')).toBe(allow);
  });
});

describe('newerExecution: by scheduledFor, then id', () => {
  it('keeps the later occurrence, breaks ties by id, and a null side loses', () => {
    const a = { scheduledFor: T0, id: 'b' };
    const later = { scheduledFor: T0 + 1, id: 'a' };
    const sameLaterId = { scheduledFor: T0, id: 'c' };
    expect(newerExecution(a, later)).toBe(later);
    expect(newerExecution(later, a)).toBe(later);
    expect(newerExecution(a, sameLaterId)).toBe(sameLaterId);
    expect(newerExecution(sameLaterId, a)).toBe(sameLaterId);
    expect(newerExecution(null, a)).toBe(a);
    expect(newerExecution(a, null)).toBe(a);
    expect(newerExecution(null, null)).toBeNull();
    // A previous execution whose occurrence is unknown (pruned) is older than any.
    expect(newerExecution({ scheduledFor: -Infinity, id: 'z' }, { scheduledFor: T0 - 1e12, id: 'a' })).toMatchObject({ id: 'a' });
  });
});
