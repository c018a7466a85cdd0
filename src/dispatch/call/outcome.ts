/**
 * What an attempt's result means for its execution: the outcome the dispatcher records. Pure: no
 * clock, no store; the jitter comes from the `random` given.
 */
import type { AttemptOutcome, ClaimedExecution } from '../../domain/types.js';
import type { AttemptResult } from './deliver.js';
import { classifyAttempt, retryDelayMs } from './retry.js';

/**
 * The outcome of one attempt of `claim`:
 * - `Succeeded` on a status `claim.successStatuses` lists (`2xx` by default);
 * - `Retrying` after a retryable failure (retry.ts: no answer, 3xx, 408, 429, 5xx not listed) while
 *   the attempt's number within its budget (`claim.attempt - claim.retryBase`, see
 *   `ClaimedExecution.retryBase`) is below `claim.retry.maxAttempts`, with `nextAttemptAt` = the
 *   attempt's end (`startedAt + durationMs`, epoch ms UTC) + the policy's delay (its steps or
 *   exponential backoff, with jitter), or the receiver's
 *   `Retry-After` capped at `retry.maxDelayMs` (see {@link retryDelayMs});
 * - `Failed` otherwise (a 410 among them: its cron job is paused by the store, store/rules/outcome.ts). A destination the SSRF guard refused (`result.refused`) fails at once and
 *   is never retried: the guard would refuse it again.
 * @param random uniform in [0, 1), for the backoff's jitter
 */
export function attemptOutcome(claim: ClaimedExecution, result: AttemptResult, random: () => number): AttemptOutcome {
  const verdict = result.refused ? 'failed' : classifyAttempt(result.statusCode, claim.successStatuses);
  // The attempt's number within its budget: a replay starts a fresh one (claim.retryBase).
  const inBudget = claim.attempt - (claim.retryBase ?? 0);
  const retry = verdict === 'retry' && inBudget < claim.retry.maxAttempts;
  const finishedAt = result.startedAt + result.durationMs;
  return {
    executionId: claim.executionId,
    attempt: claim.attempt,
    status: verdict === 'succeeded' ? 'Succeeded' : retry ? 'Retrying' : 'Failed',
    nextAttemptAt: retry ? finishedAt + retryDelayMs(inBudget, claim.retry, result.retryAfterMs, random) : null,
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    statusCode: result.statusCode,
    error: result.error,
    responseBody: result.responseBody,
    method: claim.method,
    url: claim.endpoint,
    traceId: result.traceId,
    spanId: result.spanId,
    ...(claim.waitedMs !== undefined && { waitedMs: claim.waitedMs }),
    ...flowControlOf(claim, result, finishedAt, verdict === 'succeeded'),
  };
}

/** The answers that slow a flow-control key when they carry `Retry-After` (RFC 9110 §10.2.3): 429 Too Many Requests and 503 Service Unavailable. */
export const FLOW_CONTROL_HOLD_STATUSES: readonly number[] = [429, 503];

/**
 * The flow-control fields of an outcome: the claim's key, and for a 429 or 503 with `Retry-After`
 * the end of the key's hold, the attempt's end plus the delay asked, capped at the job's
 * `retry.maxDelayMs` as a retry's is (docs/flow-control.md, "429 and 503").
 */
function flowControlOf(
  claim: ClaimedExecution,
  result: AttemptResult,
  finishedAt: number,
  succeeded: boolean,
): Pick<AttemptOutcome, 'flowControlKey' | 'flowControlHoldUntil'> {
  if (claim.flowControlKey === undefined) return {};
  // A 429 or 503 the job lists among its successStatuses is a success: it holds nothing.
  const hold =
    !succeeded && result.statusCode !== null && FLOW_CONTROL_HOLD_STATUSES.includes(result.statusCode) && result.retryAfterMs !== null
      ? finishedAt + Math.min(Math.max(0, result.retryAfterMs), claim.retry.maxDelayMs)
      : undefined;
  return { flowControlKey: claim.flowControlKey, ...(hold !== undefined && hold > finishedAt && { flowControlHoldUntil: Math.ceil(hold) }) };
}
