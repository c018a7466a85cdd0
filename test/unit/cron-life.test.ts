import { describe, expect, it } from 'vitest';
import { lifeNext, windowNext } from '../../src/cron/index.js';
import { InvalidInputError } from '../../src/domain/errors.js';
import type { CronJob, MisfirePolicy } from '../../src/domain/types.js';
import {
  cronAdvance,
  occurrenceDelay,
  occurrenceDue,
  occurrenceStatus,
  occurrenceStatuses,
  overlapStart,
  pausedEntry,
  planCron,
  type NextOccurrence,
} from '../../src/store/rules/claim.js';
import { occurrenceJitterMs } from '../../src/store/rules/cron-life.js';
import { patchCronJob, patchedLife } from '../../src/store/rules/cron-patch.js';

/** 2030-01-01T00:00:00.000Z. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;
const THRESHOLD = 60_000;

function job(o: Partial<CronJob> = {}): CronJob {
  return {
    id: 'job-1',
    name: null,
    expression: '* * * * *',
    timezone: null,
    endpoint: 'https://example.com/',
    data: null,
    status: 'Active',
    nextInvocation: T0,
    lastInvocation: null,
    lastStatus: null,
    invocations: 0,
    retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000 },
    timeoutMs: 1000,
    successStatuses: ['2xx'],
    pauseAfterFailures: null,
    pausedReason: null,
    consecutiveFailures: 0,
    misfire: 'once',
    overlap: 'allow',
    createdAt: T0 - MINUTE,
    skippedOccurrences: 0,
    method: 'POST',
    headers: {},
    body: null,
    auth: null,
    secrets: null,
    startAt: null,
    endAt: null,
    maxInvocations: null,
    jitterMs: 0,
    tags: [],
    key: null,
    managedBy: null,
    flowControlKey: null,
    ...o,
  };
}

/** Occurrences every minute from T0. */
const perMinute: NextOccurrence = (_job, after) => T0 + (Math.floor((after - T0) / MINUTE) + 1) * MINUTE;

describe('the window: windowNext and lifeNext', () => {
  const engine = (after: number) => perMinute(job(), after);
  it('no occurrence before startAt, none at or after endAt', () => {
    expect(windowNext({ startAt: T0 + 10 * MINUTE, endAt: null }, T0, engine)).toBe(T0 + 10 * MINUTE); // startAt itself counts
    expect(windowNext({ startAt: T0 + 10 * MINUTE + 1, endAt: null }, T0, engine)).toBe(T0 + 11 * MINUTE);
    expect(windowNext({ startAt: null, endAt: T0 + 2 * MINUTE }, T0, engine)).toBe(T0 + MINUTE);
    expect(windowNext({ startAt: null, endAt: T0 + 2 * MINUTE }, T0 + MINUTE, engine)).toBe('ended'); // at endAt: none
    expect(windowNext({ startAt: null, endAt: null }, T0, () => null)).toBeNull(); // the engine has none
  });
  it('lifeNext: ended once invocations reach maxInvocations', () => {
    expect(lifeNext({ startAt: null, endAt: null, maxInvocations: 3, invocations: 3 }, T0, engine)).toBe('ended');
    expect(lifeNext({ startAt: null, endAt: null, maxInvocations: 3, invocations: 2 }, T0, engine)).toBe(T0 + MINUTE);
  });
});

describe('planCron and cronAdvance: Completed', () => {
  it('the last occurrence before endAt runs, and the job is Completed (not Paused)', () => {
    const j = job({ endAt: T0 + MINUTE });
    const plan = planCron(j, T0, THRESHOLD, perMinute);
    expect(plan).toMatchObject({ occurrences: [T0], next: null, advances: false, ended: true });
    expect(pausedEntry(j.id, plan)).toBeNull();
    expect(cronAdvance(plan, 1, j.nextInvocation)).toEqual({ nextInvocation: T0, status: 'Completed', invocationsAdded: 1, skippedAdded: 0 });
  });

  it('the occurrence that reaches maxInvocations completes the job', () => {
    const j = job({ maxInvocations: 5, invocations: 4 });
    const plan = planCron(j, T0, THRESHOLD, perMinute);
    expect(plan).toMatchObject({ occurrences: [T0], left: 1, advances: true });
    expect(cronAdvance(plan, 1).status).toBe('Completed');
    expect(pausedEntry(j.id, plan)).toBeNull();
    // Already inserted (a clock set back): nothing counted, the job stays Active.
    expect(cronAdvance(plan, 0)).toMatchObject({ status: 'Active', nextInvocation: T0 + MINUTE });
  });

  it("misfire 'all' records no occurrence beyond maxInvocations nor at or after endAt", () => {
    const limited = planCron(job({ nextInvocation: T0 - 10 * MINUTE, misfire: 'all', maxInvocations: 10, invocations: 7 }), T0, THRESHOLD, perMinute);
    expect(limited.occurrences).toEqual([T0 - 10 * MINUTE, T0 - 9 * MINUTE, T0 - 8 * MINUTE]);
    expect(cronAdvance(limited, 3).status).toBe('Completed');
    const ended = planCron(job({ nextInvocation: T0 - 10 * MINUTE, misfire: 'all', endAt: T0 - 7 * MINUTE }), T0, THRESHOLD, perMinute);
    expect(ended.occurrences).toEqual([T0 - 10 * MINUTE, T0 - 9 * MINUTE, T0 - 8 * MINUTE]);
    expect(ended).toMatchObject({ ended: true, next: null });
    expect(cronAdvance(ended, 3).status).toBe('Completed');
  });

  it.each<MisfirePolicy>(['once', 'skip'])("misfire '%s' counts no missed occurrence at or after endAt", (misfire) => {
    const plan = planCron(job({ nextInvocation: T0 - 10 * MINUTE, misfire, endAt: T0 - 5 * MINUTE }), T0, THRESHOLD, perMinute);
    expect(plan.occurrences).toEqual([T0 - 10 * MINUTE]);
    if (misfire === 'once') expect(plan.missed).toMatchObject({ count: 5, last: T0 - 6 * MINUTE });
    else expect(plan.skipped).toBe(5);
    expect(cronAdvance(plan, 1).status).toBe('Completed');
  });

  it('a job already at its limit (a trigger counted) records nothing and is Completed', () => {
    const plan = planCron(job({ maxInvocations: 2, invocations: 2 }), T0, THRESHOLD, perMinute);
    expect(plan.occurrences).toEqual([]);
    expect(cronAdvance(plan, 0, T0)).toEqual({ nextInvocation: T0, status: 'Completed', invocationsAdded: 0, skippedAdded: 0 });
  });

  it('a broken engine still pauses the job, whatever its window', () => {
    const plan = planCron(job({ endAt: T0 + 10 * MINUTE }), T0, THRESHOLD, () => null);
    expect(plan).toMatchObject({ ended: false, advances: false });
    expect(pausedEntry('job-1', plan)).not.toBeNull();
    expect(cronAdvance(plan, 1).status).toBe('Paused');
  });
});

describe('jitter', () => {
  it('is fixed per occurrence: the same job and instant give the same delay, on any node, after any restart', () => {
    const a = occurrenceJitterMs('019aa5c2-7a10-7e41-9c55-0b8d2e6f1a23', T0, 600_000);
    // A pure function of (id, instant, jitterMs): what another process computes is this value.
    expect(occurrenceJitterMs('019aa5c2-7a10-7e41-9c55-0b8d2e6f1a23', T0, 600_000)).toBe(a);
    expect(occurrenceJitterMs('019aa5c2-7a10-7e41-9c55-0b8d2e6f1a24', T0, 600_000)).not.toBe(a);
    expect(occurrenceJitterMs('job-1', T0, 0)).toBe(0);
  });

  it('spreads 1,000 occurrences roughly uniformly over [0, jitterMs), never reaching it', () => {
    const jitterMs = 10_000;
    const deciles = new Array<number>(10).fill(0);
    for (let k = 0; k < 1000; k++) {
      const d = occurrenceJitterMs('019aa5c2-7a10-7e41-9c55-0b8d2e6f1a23', T0 + k * MINUTE, jitterMs);
      expect(Number.isInteger(d) && d >= 0 && d < jitterMs).toBe(true);
      deciles[Math.floor(d / (jitterMs / 10))]!++;
    }
    for (const n of deciles) {
      expect(n).toBeGreaterThanOrEqual(50);
      expect(n).toBeLessThanOrEqual(150);
    }
  });

  it('a delayed occurrence is inserted Pending, due at its instant plus its delay (never earlier); Skipped ones are not delayed', () => {
    const j = job({ jitterMs: 60_000 });
    const d = occurrenceDelay(j, T0);
    expect(d).toBeGreaterThan(0);
    const s = overlapStart(planCron(j, T0, THRESHOLD, perMinute), 'allow', () => false);
    expect(occurrenceStatus(s, 10, d)).toBe('Pending');
    expect(occurrenceDue(T0, 'Pending', d)).toEqual({ dueAt: T0 + d, nextAttemptAt: T0 + d });
    expect(occurrenceDue(T0, 'Skipped', d)).toEqual({ dueAt: null, nextAttemptAt: null });
    const plan = planCron(job({ jitterMs: 60_000, nextInvocation: T0 - 2 * MINUTE, misfire: 'all' }), T0, THRESHOLD, perMinute);
    for (const x of occurrenceStatuses(plan, 'allow', () => false, 10, () => false, (o) => occurrenceDelay(j, o))) {
      expect(x.status).toBe('Pending');
      expect(x.nextAttemptAt).toBe(x.scheduledFor + occurrenceDelay(j, x.scheduledFor));
      expect(x.nextAttemptAt! >= x.scheduledFor).toBe(true);
    }
  });
});

describe('patchedLife', () => {
  const at = (iso: string) => Date.parse(iso);
  it('an Active job whose new endAt leaves no occurrence becomes Completed; with status Active it is refused at /status', () => {
    const current = job({ expression: '0 * * * *', createdAt: at('2030-01-01T00:00:00Z') });
    const p = { id: current.id, endAt: at('2030-01-01T10:30:00Z'), recomputeAfter: at('2030-01-01T11:00:00Z') };
    expect(patchedLife(patchCronJob(current, p), p).status).toBe('Completed');
    const active = { ...p, status: 'Active' as const };
    expect(() => patchedLife(patchCronJob(current, active), active)).toThrow(InvalidInputError);
    try {
      patchedLife(patchCronJob(current, active), active);
    } catch (err) {
      expect((err as InvalidInputError).errors[0]!.path).toBe('/status');
    }
  });

  it('a Completed job given a later endAt and status Active is Active again at its next occurrence; without Active it stays Completed', () => {
    const current = job({ expression: '0 * * * *', status: 'Completed', endAt: at('2030-01-01T10:30:00Z') });
    const p = { id: current.id, endAt: at('2030-01-02T00:00:00Z'), status: 'Active' as const, recomputeAfter: at('2030-01-01T11:00:00Z') };
    expect(patchedLife(patchCronJob(current, p), p)).toEqual({ status: 'Active', nextInvocation: at('2030-01-01T12:00:00Z') });
    const q = { id: current.id, endAt: at('2030-01-02T00:00:00Z') };
    expect(patchedLife(patchCronJob(current, q), q).status).toBe('Completed');
  });
});
