/**
 * What counts as success (src/domain/success-statuses.ts, src/dispatch/call/retry.ts `classifyAttempt`,
 * src/dispatch/call/outcome.ts) and what a finished execution does to its cron job
 * (src/store/rules/outcome.ts `cronAfterFinished`): the pure rules, case by case.
 */
import { describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/dispatch/call/deliver.js';
import { attemptOutcome } from '../../src/dispatch/call/outcome.js';
import { classifyAttempt } from '../../src/dispatch/call/retry.js';
import { isListedSuccess, parseSuccessStatuses, successStatusesProblems } from '../../src/domain/success-statuses.js';
import type { ClaimedExecution, SuccessStatus } from '../../src/domain/types.js';
import { cronAfterFinished, type CronFailureState, type FinishedOutcome } from '../../src/store/rules/outcome.js';
import { claimedExecution } from '../support/claims.js';

describe('classifyAttempt with successStatuses', () => {
  it('a listed status succeeds, by code or by class; the default is 2xx', () => {
    expect(classifyAttempt(204)).toBe('succeeded');
    expect(classifyAttempt(302)).toBe('retry');
    expect(classifyAttempt(302, ['2xx', 302])).toBe('succeeded');
    expect(classifyAttempt(404, [404])).toBe('succeeded');
    expect(classifyAttempt(200, [404])).toBe('failed'); // not listed: a 2xx is then an "other" answer
    expect(classifyAttempt(503, ['5xx'])).toBe('succeeded');
    expect(classifyAttempt(null, ['5xx'])).toBe('retry');
  });

  it('unlisted answers keep the retry rules: 3xx, 408, 429, 5xx retried; other 4xx (410 included) failed', () => {
    for (const code of [301, 408, 429, 500, 599]) expect(classifyAttempt(code, ['2xx'])).toBe('retry');
    for (const code of [400, 404, 410, 422]) expect(classifyAttempt(code, ['2xx'])).toBe('failed');
    expect(classifyAttempt(410, ['2xx', 410])).toBe('succeeded');
  });

  it("attemptOutcome uses the claim's list: a listed 302 is Succeeded, an unlisted 500 Retrying", () => {
    const claim = (successStatuses: SuccessStatus[]): ClaimedExecution =>
      claimedExecution({ executionId: 'e', jobType: 'cron', jobId: 'j', endpoint: 'https://example.com/', successStatuses, leaseExpiresAt: 20_000 });
    const result = (statusCode: number): AttemptResult => ({
      statusCode, error: null, responseBody: '', ok: false, refused: false, timedOut: false, startedAt: 10, durationMs: 5, retryAfterMs: null,
      traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1',
    });
    expect(attemptOutcome(claim(['2xx', 302]), result(302), () => 0).status).toBe('Succeeded');
    expect(attemptOutcome(claim(['2xx']), result(500), () => 0).status).toBe('Retrying');
    expect(attemptOutcome(claim(['2xx']), result(410), () => 0)).toMatchObject({ status: 'Failed', statusCode: 410, nextAttemptAt: null });
  });
});

describe('success-statuses.ts', () => {
  it('isListedSuccess matches codes and classes', () => {
    expect(isListedSuccess(201, ['2xx'])).toBe(true);
    expect(isListedSuccess(302, [301, '4xx'])).toBe(false);
    expect(isListedSuccess(451, [301, '4xx'])).toBe(true);
  });

  it('successStatusesProblems names the list or the item', () => {
    expect(successStatusesProblems('/s', ['2xx', 302])).toEqual([]);
    expect(successStatusesProblems('/s', {}).map((p) => p.path)).toEqual(['/s']);
    expect(successStatusesProblems('/s', []).map((p) => p.path)).toEqual(['/s']);
    expect(successStatusesProblems('/s', Array.from({ length: 51 }, (_, i) => 100 + i)).map((p) => p.path)).toEqual(['/s']);
    expect(successStatusesProblems('/s', Array.from({ length: 50 }, (_, i) => 100 + i))).toEqual([]);
    expect(successStatusesProblems('/s', [100, 599, '1xx', '5xx'])).toEqual([]);
    expect(successStatusesProblems('/s', [99, 600, 'xx', '2xx', '2xx', true]).map((p) => p.path)).toEqual(['/s/0', '/s/1', '/s/2', '/s/4', '/s/5']);
  });

  it('parseSuccessStatuses reads a comma-separated flag', () => {
    expect(parseSuccessStatuses('2xx, 302 ,404')).toEqual(['2xx', 302, 404]);
    expect(parseSuccessStatuses('')).toEqual([]);
  });
});

describe('cronAfterFinished (store/rules/outcome.ts)', () => {
  const active = (consecutiveFailures = 0, pauseAfterFailures: number | null = null): CronFailureState => ({
    status: 'Active', consecutiveFailures, pauseAfterFailures,
  });
  const F: FinishedOutcome = { status: 'Failed', gone: false };
  const G: FinishedOutcome = { status: 'Failed', gone: true };
  const S: FinishedOutcome = { status: 'Succeeded', gone: false };

  it('counts failures, resets on success, and pauses at the limit, not before', () => {
    expect(cronAfterFinished(active(0, 3), [F])).toEqual({ consecutiveFailures: 1, pause: null });
    expect(cronAfterFinished(active(1, 3), [F])).toEqual({ consecutiveFailures: 2, pause: null });
    expect(cronAfterFinished(active(2, 3), [F])).toEqual({
      consecutiveFailures: 3,
      pause: { kind: 'failures', reason: 'paused after 3 consecutive failed executions' },
    });
    expect(cronAfterFinished(active(2, 3), [S])).toEqual({ consecutiveFailures: 0, pause: null });
    expect(cronAfterFinished(active(9, null), [F])).toEqual({ consecutiveFailures: 10, pause: null });
  });

  it('a gone failure pauses at once, before the limit; a later success in the batch supersedes earlier failures', () => {
    expect(cronAfterFinished(active(0, null), [G])).toEqual({ consecutiveFailures: 1, pause: { kind: 'gone', reason: 'endpoint answered 410 Gone' } });
    expect(cronAfterFinished(active(0, 1), [G]).pause?.kind).toBe('gone');
    expect(cronAfterFinished(active(5, 2), [G, S])).toEqual({ consecutiveFailures: 0, pause: null });
    expect(cronAfterFinished(active(5, 2), [S, F])).toEqual({ consecutiveFailures: 1, pause: null });
    expect(cronAfterFinished(active(0, 2), [F, F]).pause?.kind).toBe('failures');
  });

  it('a Paused job keeps counting but is not paused again; no trailing failure, no pause', () => {
    expect(cronAfterFinished({ status: 'Paused', consecutiveFailures: 3, pauseAfterFailures: 1 }, [G])).toEqual({ consecutiveFailures: 4, pause: null });
    expect(cronAfterFinished(active(7, 2), [F, S])).toEqual({ consecutiveFailures: 0, pause: null });
  });
});
