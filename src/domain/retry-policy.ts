/**
 * The retry policies a job takes when neither the request nor the configuration gives one. Pure
 * data shared by the service (defaults filled in at create) and the configuration; which attempts
 * are retried and how long to wait are the dispatcher's rules (src/dispatch/call/retry.ts).
 */
import type { RetryPolicy } from './types.js';

/**
 * The steps of the default policy, in ms: the delays before retries 1–7 (5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h, 10 h), the schedule Standard Webhooks recommends ("Retry schedule"): 8 attempts over
 * about 27.6 h (5 s + 5 min + 30 min + 2 h + 5 h + 10 h + 10 h = 99,305 s), so that a receiver down
 * for up to a day still gets the call.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

/**
 * The exponential settings a policy takes when a request asks for the exponential rule without
 * giving them: first retry within 1,000 ms, every delay capped at 3,600,000 ms (1 h), the policy
 * every job had before explicit steps existed.
 */
export const EXPONENTIAL_RETRY_DEFAULTS = { initialDelayMs: 1_000, maxDelayMs: 3_600_000 } as const;

/**
 * `maxDelayMs` of a policy with steps when the request does not give it: 43,200,000 ms (12 h), the
 * longest default step (10 h) with its largest jitter (× 1.2), so a `Retry-After` is honoured up to
 * as long as the policy itself would wait.
 */
export const STEPS_MAX_DELAY_MS = 43_200_000;

/**
 * The default retry policy: 8 attempts in all, at once then after the steps of
 * {@link DEFAULT_RETRY_DELAYS_MS} (each × a jitter factor in [0.8, 1.2), so the first retry comes
 * after 4–6 s), `Retry-After` honoured up to 12 h. `initialDelayMs` is kept for a later switch to
 * the exponential rule and unused while `delaysMs` is set.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: DEFAULT_RETRY_DELAYS_MS.length + 1,
  initialDelayMs: EXPONENTIAL_RETRY_DEFAULTS.initialDelayMs,
  maxDelayMs: STEPS_MAX_DELAY_MS,
  delaysMs: [...DEFAULT_RETRY_DELAYS_MS],
};

/**
 * The exponential policy every job had before explicit steps: 5 attempts, first retry within
 * 1,000 ms, delays capped at 3,600,000 ms (1 h), `delaysMs` null. What rows stored before the steps
 * read back as (their columns' defaults).
 */
export const EXPONENTIAL_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, ...EXPONENTIAL_RETRY_DEFAULTS, delaysMs: null };
