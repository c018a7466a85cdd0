import { describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/dispatch/call/deliver.js';
import { attemptOutcome } from '../../src/dispatch/call/outcome.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { claimedExecution } from '../support/claims.js';

const T0 = Date.UTC(2030, 0, 1);

function claim(attempt: number, maxAttempts = 3): ClaimedExecution {
  return claimedExecution({
    executionId: 'e1',
    jobId: 'j1',
    scheduledFor: T0,
    dueAt: T0,
    attempt,
    retry: { maxAttempts, initialDelayMs: 1_000, maxDelayMs: 60_000 },
    leaseExpiresAt: T0 + 15_000,
  });
}

function result(o: Partial<AttemptResult>): AttemptResult {
  return {
    statusCode: 200,
    error: null,
    responseBody: 'ok',
    ok: true,
    refused: false,
    timedOut: false,
    startedAt: T0 + 10,
    durationMs: 40,
    retryAfterMs: null,
    traceId: '0123456789abcdef0123456789abcdef',
    spanId: '0123456789abcdef',
    ...o,
  };
}

const half = () => 0.5;

describe('attemptOutcome', () => {
  it('records a 2xx as Succeeded, with the attempt as it went', () => {
    expect(attemptOutcome(claim(1), result({ statusCode: 204, responseBody: '' }), half)).toEqual({
      executionId: 'e1',
      attempt: 1,
      status: 'Succeeded',
      nextAttemptAt: null,
      startedAt: T0 + 10,
      durationMs: 40,
      statusCode: 204,
      error: null,
      responseBody: '',
      method: 'POST',
      url: claim(1).endpoint,
      traceId: '0123456789abcdef0123456789abcdef',
      spanId: '0123456789abcdef',
    });
  });

  it('retries a retryable failure with attempts left, after the full-jitter backoff from the end of the attempt', () => {
    // attempt 2: ceiling min(60 s, 1 s · 2^1) = 2 s; random 0.5 → 1 s after T0 + 50.
    const o = attemptOutcome(claim(2), result({ statusCode: 503, ok: false, error: 'HTTP 503' }), half);
    expect(o).toMatchObject({ status: 'Retrying', nextAttemptAt: T0 + 50 + 1_000, statusCode: 503, error: 'HTTP 503' });
    // No answer at all (a timeout) is retried too.
    expect(attemptOutcome(claim(1), result({ statusCode: null, ok: false, timedOut: true }), () => 0)).toMatchObject({
      status: 'Retrying',
      nextAttemptAt: T0 + 50,
    });
  });

  it("honours the receiver's Retry-After, capped at the policy's maxDelayMs", () => {
    expect(attemptOutcome(claim(1), result({ statusCode: 429, ok: false, retryAfterMs: 5_000 }), half).nextAttemptAt).toBe(T0 + 50 + 5_000);
    expect(attemptOutcome(claim(1), result({ statusCode: 429, ok: false, retryAfterMs: 3_600_000 }), half).nextAttemptAt).toBe(T0 + 50 + 60_000);
  });

  it('fails a retryable failure on the last attempt, and a refusal (4xx) at once', () => {
    expect(attemptOutcome(claim(3), result({ statusCode: 500, ok: false }), half)).toMatchObject({ status: 'Failed', nextAttemptAt: null });
    expect(attemptOutcome(claim(1), result({ statusCode: 404, ok: false }), half)).toMatchObject({ status: 'Failed', nextAttemptAt: null });
  });

  it('counts a replayed execution\'s attempts within its fresh budget (attempt − retryBase), for the decision and the backoff', () => {
    // Replayed after 3 attempts: attempt 5 is the 2nd of the new budget of 3 (ceiling 2 s; random 0.5 → 1 s).
    const replayed = { ...claim(5), retryBase: 3 };
    expect(attemptOutcome(replayed, result({ statusCode: 503, ok: false }), half)).toMatchObject({
      attempt: 5,
      status: 'Retrying',
      nextAttemptAt: T0 + 50 + 1_000,
    });
    expect(attemptOutcome({ ...claim(6), retryBase: 3 }, result({ statusCode: 503, ok: false }), half)).toMatchObject({ status: 'Failed' });
    // Without the base the same attempt would be past the budget.
    expect(attemptOutcome(claim(5), result({ statusCode: 503, ok: false }), half)).toMatchObject({ status: 'Failed' });
  });

  it('never retries a destination the SSRF guard refused, whatever its status', () => {
    const o = attemptOutcome(claim(1), result({ statusCode: null, ok: false, refused: true, error: 'refused' }), half);
    expect(o).toMatchObject({ status: 'Failed', nextAttemptAt: null, error: 'refused' });
  });

  it('a keyed call answered 429 or 503 with Retry-After holds its key until then (capped at maxDelayMs); nothing else does', () => {
    const keyed = { ...claim(1), flowControlKey: 'api', waitedMs: 70 };
    const at = T0 + 50; // the attempt's end
    expect(attemptOutcome(keyed, result({ statusCode: 429, ok: false, retryAfterMs: 2_000 }), half)).toMatchObject({
      flowControlKey: 'api',
      flowControlHoldUntil: at + 2_000,
      waitedMs: 70,
    });
    expect(attemptOutcome(keyed, result({ statusCode: 503, ok: false, retryAfterMs: 3_600_000 }), half).flowControlHoldUntil).toBe(at + 60_000);
    for (const r of [
      result({ statusCode: 429, ok: false }), // no Retry-After
      result({ statusCode: 500, ok: false, retryAfterMs: 2_000 }), // not 429 or 503
    ]) {
      expect(attemptOutcome(keyed, r, half).flowControlHoldUntil).toBeUndefined();
    }
    // A 429 the job counts as a success holds nothing.
    const listed = { ...keyed, successStatuses: ['2xx' as const, 429] };
    expect(attemptOutcome(listed, result({ statusCode: 429, ok: false, retryAfterMs: 2_000 }), half).flowControlHoldUntil).toBeUndefined();
    // Without a key: no flow-control fields at all.
    expect(attemptOutcome(claim(1), result({ statusCode: 429, ok: false, retryAfterMs: 2_000 }), half)).not.toHaveProperty('flowControlKey');
  });
});
