/**
 * The plan of `punctual apply` (src/cli/apply-plan.ts, docs/apply.md): what is compared, what is
 * sent, and what prune deletes, on jobs and flow-control keys as the API answers them. Pure; the command itself runs
 * against a live server in test/cli/apply.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { planApply, planLine } from '../../src/cli/apply-plan.js';
import type { CronJob, FlowControlKey, Schedule } from '../../src/client/index.js';

const cronJob = (o: Partial<CronJob> = {}): CronJob => ({
  id: 'c1', expression: '0 3 * * *', name: null, invocations: 0, timezone: null, status: 'Active', endpoint: 'https://e.example/c',
  data: null, createdAt: '2026-01-01T00:00:00.000Z', nextInvocation: '2026-01-02T03:00:00.000Z',
  retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 60000, delaysMs: null }, timeoutMs: 30000,
  method: 'POST', headers: {}, body: null, secretHeaderNames: [], auth: null, signingSecretSet: false,
  misfire: 'once', overlap: 'allow', lastInvocation: null, lastStatus: null, skippedOccurrences: 0,
  successStatuses: ['2xx'], pauseAfterFailures: null, pausedReason: null, consecutiveFailures: 0, key: 'k', managedBy: 'apply',
  tags: [], startAt: null, endAt: null, maxInvocations: null, jitterMs: 0, flowControlKey: null,
  ...o,
});
const schedule = (o: Partial<Schedule> = {}): Schedule => ({
  id: 's1', name: 'S', scheduledAt: '2030-01-01T00:00:00.000Z', runsImmediately: false, status: 'Pending', endpoint: 'https://e.example/s',
  data: {}, tags: [], createdAt: '2026-01-01T00:00:00.000Z', retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 60000, delaysMs: null },
  timeoutMs: 30000, method: 'POST', headers: {}, body: null, secretHeaderNames: [], auth: null, signingSecretSet: false,
  successStatuses: ['2xx'], key: 's', managedBy: 'apply', flowControlKey: null, ...o,
});
const flowKey = (o: Partial<FlowControlKey> = {}): FlowControlKey => ({
  key: 'api', configured: true, parallelism: null, rate: 5, period: 1000, paused: false, holdUntil: null, waiting: 0, inFlight: 0,
  rateUsed: 0, oldestWaitingSince: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', ...o,
});
const plan = (
  file: { cron?: object[]; schedules?: object[]; flowControlKeys?: object[] },
  cron: CronJob[] = [],
  schedules: Schedule[] = [],
  o = { prune: false, rotateSecrets: false },
  keys: FlowControlKey[] = [],
) =>
  planApply(
    { cron: (file.cron ?? []) as never, schedules: (file.schedules ?? []) as never, flowControlKeys: (file.flowControlKeys ?? []) as never },
    {
      cron: new Map(cron.map((c) => [c.key!, c])),
      schedules: new Map(schedules.map((s) => [s.key!, s])),
      flowControlKeys: new Map(keys.map((k) => [k.key, k])),
    },
    o,
  );

describe('planApply', () => {
  const base = { key: 'k', expression: '0 3 * * *', endpoint: 'https://e.example/c' };

  it('nothing for a job as the file says; an absent field is its default, retry and timeoutMs only when given', () => {
    expect(plan({ cron: [base] }, [cronJob({ retry: { maxAttempts: 9, initialDelayMs: 1, maxDelayMs: 2, delaysMs: [1] }, timeoutMs: 5000 })])).toEqual([]);
    const [a] = plan({ cron: [{ ...base, retry: { maxAttempts: 5, maxDelayMs: 120000 } }] }, [cronJob({ name: 'old', overlap: 'skip' })]);
    expect(a).toMatchObject({ op: 'update', id: 'c1', body: { name: null, overlap: 'allow', retry: { maxAttempts: 5, maxDelayMs: 120000 } } });
    expect(planLine(a!)).toBe('~ update cron k: name "old" → null, overlap "skip" → "allow", retry {"maxAttempts":5,"maxDelayMs":60000} → {"maxAttempts":5,"maxDelayMs":120000}');
    // Properties of an object compare whatever their order; instants whatever their form.
    expect(plan({ cron: [{ ...base, data: { b: 1, a: 2 } }] }, [cronJob({ data: { a: 2, b: 1 } })])).toEqual([]);
    expect(plan({ schedules: [{ key: 's', name: 'S', scheduledAt: '2030-01-01T01:00:00+01:00', endpoint: 'https://e.example/s' }] }, [], [schedule()])).toEqual([]);
  });

  it('sends secrets on create, when their public part differs, and all of them with rotateSecrets', () => {
    const secret = { ...base, secretHeaders: { 'X-Key': 'v' }, auth: { type: 'basic', username: 'u', password: 'p' } };
    expect(plan({ cron: [secret] })).toEqual([{ op: 'create', kind: 'cron', key: 'k', index: 0, body: { ...secret, managedBy: 'apply' } }]);
    const stored = cronJob({ secretHeaderNames: ['X-Key'], auth: { type: 'basic', username: 'u' } });
    expect(plan({ cron: [secret] }, [stored])).toEqual([]);
    const [renamed] = plan({ cron: [{ ...secret, auth: { type: 'basic', username: 'w', password: 'p' } }] }, [stored]);
    expect(renamed).toMatchObject({ body: { auth: { type: 'basic', username: 'w', password: 'p' } } });
    expect(Object.keys((renamed as { body: object }).body)).toEqual(['auth']);
    const [removed] = plan({ cron: [base] }, [stored]);
    expect(removed).toMatchObject({ body: { secretHeaders: null, auth: null } });
    const [rotated] = plan({ cron: [secret] }, [stored], [], { prune: false, rotateSecrets: true });
    expect(rotated).toMatchObject({ body: { secretHeaders: { 'X-Key': 'v' }, auth: secret.auth } });
    expect(planLine(rotated!)).toBe('~ update cron k: secretHeaders secret → rotated, auth secret → rotated');
    expect(planLine(renamed!)).not.toContain('"p"');
  });

  it('leaves a schedule that ran; prune deletes only managed jobs, schedules only while Pending', () => {
    const file = { schedules: [{ key: 's', name: 'T', scheduledAt: '2030-01-01T00:00:00Z', endpoint: 'https://e.example/s' }] };
    expect(plan(file, [], [schedule({ status: 'Succeeded' })])).toEqual([
      { op: 'keep', kind: 'schedule', key: 's', reason: 'Succeeded: a schedule that ran is left alone' },
    ]);
    const cron = [cronJob({ key: 'gone' }), cronJob({ key: 'hand', managedBy: null, id: 'c2' })];
    const schedules = [schedule({ key: 'old', id: 's2' }), schedule({ key: 'ran', status: 'Failed', id: 's3' })];
    expect(plan({}, cron, schedules)).toEqual([]);
    expect(plan({}, cron, schedules, { prune: true, rotateSecrets: false })).toEqual([
      { op: 'delete', kind: 'cron', key: 'gone', id: 'c1' },
      { op: 'delete', kind: 'schedule', key: 'old', id: 's2' },
    ]);
  });

  it('flow-control keys: create when not configured, update the limits that differ, nothing when as the file says; first', () => {
    const job = { ...base, flowControlKey: 'api' };
    // Absent, or only named by jobs (configured false): created, before the jobs.
    for (const keys of [[], [flowKey({ configured: false, rate: null, rateUsed: null })]]) {
      const steps = plan({ cron: [job], flowControlKeys: [{ key: 'api', rate: 5 }] }, [], [], undefined, keys);
      expect(steps.map((a) => [a.op, a.kind, a.key])).toEqual([['create', 'flow-control-key', 'api'], ['create', 'cron', 'k']]);
      expect(steps[0]).toEqual({ op: 'create', kind: 'flow-control-key', key: 'api', index: 0, body: { rate: 5 } });
      expect(planLine(steps[0]!)).toBe('+ create flow-control-key api');
    }
    // As the file says: an absent period is 1000 ms, an absent parallelism none.
    expect(plan({ flowControlKeys: [{ key: 'api', rate: 5 }] }, [], [], undefined, [flowKey()])).toEqual([]);
    expect(plan({ flowControlKeys: [{ key: 'api', rate: 5, period: 1000, parallelism: null }] }, [], [], undefined, [flowKey()])).toEqual([]);
    const [changed] = plan({ flowControlKeys: [{ key: 'x', parallelism: 2 }, { key: 'api', rate: 10, period: 60000 }] }, [], [], undefined, [
      flowKey(),
      flowKey({ key: 'x', parallelism: 2, rate: null }),
    ]);
    expect(changed).toEqual({
      op: 'update', kind: 'flow-control-key', key: 'api', index: 1, body: { rate: 10, period: 60000, paused: false },
      changes: [{ field: 'rate', before: '5', after: '10' }, { field: 'period', before: '1000', after: '60000' }],
    });
    expect(planLine(changed!)).toBe('~ update flow-control-key api: rate 5 → 10, period 1000 → 60000');
    // A limit the file removes is none.
    expect(plan({ flowControlKeys: [{ key: 'api', parallelism: 3 }] }, [], [], undefined, [flowKey()])[0]).toMatchObject({
      body: { parallelism: 3 }, changes: [{ field: 'parallelism', before: 'null', after: '3' }, { field: 'rate', before: '5', after: 'null' }],
    });
  });

  it('flow-control keys: a pause the file leaves out stays as it is, one it gives is set; prune never deletes a key', () => {
    const paused = flowKey({ paused: true });
    expect(plan({ flowControlKeys: [{ key: 'api', rate: 5 }] }, [], [], undefined, [paused])).toEqual([]);
    // Another limit changes: the PUT keeps the pause.
    expect(plan({ flowControlKeys: [{ key: 'api', rate: 6 }] }, [], [], undefined, [paused])[0]).toMatchObject({ body: { rate: 6, paused: true } });
    expect(plan({ flowControlKeys: [{ key: 'api', rate: 5, paused: false }] }, [], [], undefined, [paused])[0]).toMatchObject({
      body: { rate: 5, paused: false }, changes: [{ field: 'paused', before: 'true', after: 'false' }],
    });
    expect(plan({}, [], [], { prune: true, rotateSecrets: false }, [flowKey(), flowKey({ key: 'other' })])).toEqual([]);
  });

  it("a job's flowControlKey is compared, null when the file leaves it out", () => {
    expect(plan({ cron: [{ ...base, flowControlKey: 'api' }] }, [cronJob({ flowControlKey: 'api' })])).toEqual([]);
    const [removed] = plan({ cron: [base] }, [cronJob({ flowControlKey: 'api' })]);
    expect(removed).toMatchObject({ op: 'update', body: { flowControlKey: null } });
    expect(planLine(removed!)).toBe('~ update cron k: flowControlKey "api" → null');
    const [set] = plan({ schedules: [{ key: 's', name: 'S', scheduledAt: '2030-01-01T00:00:00Z', endpoint: 'https://e.example/s', flowControlKey: 'b' }] }, [], [schedule()]);
    expect(set).toMatchObject({ op: 'update', kind: 'schedule', body: { flowControlKey: 'b' } });
  });
});
