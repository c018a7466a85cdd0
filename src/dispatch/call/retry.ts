/**
 * Which attempts are retried, and when. The default policy is DEFAULT_RETRY_POLICY of
 * src/domain/retry-policy.ts.
 *
 * Success: a status the job lists in `successStatuses` (src/domain/success-statuses.ts; `2xx`
 * unless it says). Otherwise retried: no answer (connection or DNS error, timeout), a 3xx
 * (redirects are not followed), 408, 429 and every 5xx. Any other 4xx means the receiver refused
 * the call: the execution fails at once (a 410 also pauses a cron job: src/store/rules/outcome.ts).
 * The delay before retry n follows one of two rules of the job's policy:
 * - steps (`delaysMs` set; the default, after Standard Webhooks' "Retry schedule"):
 *   `floor(step · (0.8 + 0.4 · random))` with `step = delaysMs[n − 1]`, the last step repeated
 *   past the end: a jitter of ±20 % (factor in [0.8, 1.2)) that spreads the retries of many jobs
 *   failing together, and keeps the default first retry (5 s) within 4–6 s;
 * - exponential (`delaysMs` null) with "full jitter" (AWS Architecture Blog, "Exponential Backoff
 *   and Jitter", 2015): `random(0, min(maxDelay, initialDelay · 2^(n−1)))`.
 * Either way a `Retry-After` answer (RFC 9110 §10.2.3) replaces the computed delay, honoured up to
 * `maxDelayMs`.
 */

import { DEFAULT_SUCCESS_STATUSES, isListedSuccess } from '../../domain/success-statuses.js';
import type { RetryPolicy, SuccessStatus } from '../../domain/types.js';

/** What to do after an attempt. */
export type AttemptVerdict = 'succeeded' | 'retry' | 'failed';

/**
 * Classifies an attempt by its HTTP status (`null`: no answer came).
 * @param successStatuses the job's list of what counts as success (default `['2xx']`)
 * @returns `succeeded` for a listed status; else `retry` for no answer, 3xx, 408, 429, 5xx;
 *   `failed` otherwise
 */
export function classifyAttempt(
  statusCode: number | null,
  successStatuses: readonly SuccessStatus[] = DEFAULT_SUCCESS_STATUSES,
): AttemptVerdict {
  if (statusCode === null) return 'retry';
  if (isListedSuccess(statusCode, successStatuses)) return 'succeeded';
  if (statusCode >= 300 && statusCode < 400) return 'retry';
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500) return 'retry';
  return 'failed';
}

/** Smallest jitter factor of a step: a step's delay is at least 80 % of it. */
export const STEP_JITTER_MIN = 0.8;
/** Width of a step's jitter factor: the factor is uniform in [0.8, 1.2). */
export const STEP_JITTER_SPAN = 0.4;

/**
 * Delay before attempt `attempt + 1`, after attempt number `attempt` (1-based, within the
 * policy's budget) failed.
 * @param retryAfterMs delay asked by the receiver's `Retry-After`, or null
 * @param random uniform in [0, 1); injectable for tests
 * @returns ms to wait (an integer ≥ 0): `Retry-After` capped at `policy.maxDelayMs`; else with
 *   steps `[0.8 · step, 1.2 · step)`; else exponential, in `[0, min(maxDelayMs, initialDelayMs · 2^(attempt−1)))`
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs: number | null = null,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== null) return Math.min(Math.max(0, retryAfterMs), policy.maxDelayMs);
  const steps = policy.delaysMs;
  if (steps && steps.length > 0) {
    const step = steps[Math.min(Math.max(attempt, 1), steps.length) - 1]!;
    return Math.floor(step * (STEP_JITTER_MIN + STEP_JITTER_SPAN * random()));
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt - 1, 52));
  return Math.floor(random() * ceiling);
}

/**
 * Parses a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 * @param nowMs epoch ms (UTC) the date form is measured from
 * @returns ms to wait (≥ 0), or null when absent or unparseable
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}
