/**
 * The retry policy a job takes when neither the request nor the configuration gives one. It is
 * pure data shared by the service (defaults filled in at create) and the dispatcher's callers;
 * which attempts are retried and how long to wait are the dispatcher's rules (src/dispatch/retry.ts).
 */
import type { RetryPolicy } from './types.js';

/**
 * The default retry policy: 5 attempts in all, the first retry within about 1,000 ms, every delay
 * capped at 3,600,000 ms (1 h). Delays are in ms.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 3_600_000 };
