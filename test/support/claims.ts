/**
 * The one builder of `ClaimedExecution`s for tests that hand the dispatcher's parts a claim
 * without a store (a call, an outcome, a span, a held call).
 */
import type { ClaimedExecution } from '../../src/domain/types.js';

/**
 * A claimed execution: attempt 1 of a schedule's execution, due and scheduled at 0 (epoch ms),
 * leased until 15,000 ms; a POST to https://example.com/hook with no headers, body, auth or
 * secrets, data `{}`, 3 attempts from 1 s up to 60 s apart, a 10 s timeout, `2xx` a success.
 * The ids are fixed UUIDs, the same on every call.
 * @param over fields that replace the defaults (`notBefore`, `retryBase` and `missedOccurrences`
 *   are present only when given)
 * @returns a new object on every call; `data`, `headers`, `retry` and `successStatuses` are fresh
 */
export function claimedExecution(over: Partial<ClaimedExecution> = {}): ClaimedExecution {
  return {
    executionId: '01a1fded-0000-7000-8000-000000000001',
    jobType: 'schedule',
    jobId: '01a1fded-0000-7000-8000-000000000002',
    scheduledFor: 0,
    dueAt: 0,
    attempt: 1,
    endpoint: 'https://example.com/hook',
    data: {},
    retry: { maxAttempts: 3, initialDelayMs: 1_000, maxDelayMs: 60_000 },
    timeoutMs: 10_000,
    successStatuses: ['2xx'],
    leaseExpiresAt: 15_000,
    method: 'POST',
    headers: {},
    body: null,
    auth: null,
    secrets: null,
    ...over,
  };
}
