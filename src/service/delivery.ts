/**
 * How a job's calls are made: its retry policy and the timeout of one attempt.
 * Defaults, limits, the checks of the service, and how a request's partial `retry` is merged.
 *
 * A job always holds complete settings: missing fields take the service's defaults at create
 * (`JobServiceContext.defaults`), and a `PATCH` with a partial `retry` object merges it into the
 * job's stored policy.
 */
import { DEFAULT_RETRY_POLICY } from '../domain/retry-policy.js';
import type { DeliverySettings, RetryPolicy } from '../domain/types.js';
import type { JobServiceContext } from './context.js';
import { Checks, isJsonObject, retryDelaysMessage } from './rules.js';

/** Timeout of one attempt when neither the job nor the configuration says (ms). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Settings a new job takes when the service is given none: 5 attempts, first retry within
 * about 1 s, delays capped at 1 h, a 30 s timeout.
 */
export const DEFAULT_DELIVERY: DeliverySettings = { retry: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };

/** Accepted range of each field of a retry policy (inclusive; delays in ms). */
export const RETRY_LIMITS = {
  maxAttempts: { min: 1, max: 20 },
  initialDelayMs: { min: 100, max: 3_600_000 },
  maxDelayMs: { min: 1_000, max: 86_400_000 },
} as const satisfies Record<keyof RetryPolicy, { min: number; max: number }>;

/** Accepted range of `timeoutMs` (inclusive, ms), as for `PUNCTUAL_REQUEST_TIMEOUT_MS`. */
export const TIMEOUT_MS_LIMITS = { min: 1_000, max: 900_000 } as const;

/** A retry policy as a request gives it: any of its fields. */
export type RetryInput = Partial<RetryPolicy>;

/** The delivery fields of a create or patch request. */
export interface DeliveryInput {
  retry?: RetryInput;
  timeoutMs?: number;
}

const RETRY_FIELDS = Object.keys(RETRY_LIMITS) as (keyof RetryPolicy)[];

/** The context's defaults, or {@link DEFAULT_DELIVERY}. */
export function deliveryDefaults(ctx: Pick<JobServiceContext, 'defaults'>): DeliverySettings {
  return ctx.defaults ?? DEFAULT_DELIVERY;
}

/**
 * Checks the present delivery fields of a request: `retry` a JSON object with only the fields of
 * a policy, each an integer in {@link RETRY_LIMITS}; `timeoutMs` an integer in
 * {@link TIMEOUT_MS_LIMITS}; and `maxDelayMs ≥ initialDelayMs` of the policy the job will have,
 * `retry` merged into `base` (see {@link checkRetryDelays}).
 * @param base the policy `retry` completes: the defaults at create; null before a patch has read
 *   the job (then the delays are compared only when the request gives both)
 */
export function checkDelivery(checks: Checks, input: DeliveryInput, base: RetryPolicy | null): Checks {
  checks.integer('/timeoutMs', input.timeoutMs, TIMEOUT_MS_LIMITS.min, TIMEOUT_MS_LIMITS.max);
  const retry: unknown = input.retry;
  if (retry === undefined) return checks;
  if (!isJsonObject(retry)) return checks.add('/retry', 'must be a JSON object');
  const before = checks.problems.length;
  for (const key of Object.keys(retry)) {
    if (!(RETRY_FIELDS as string[]).includes(key)) checks.add(`/retry/${key}`, 'is not an allowed field');
  }
  for (const key of RETRY_FIELDS) checks.integer(`/retry/${key}`, retry[key], RETRY_LIMITS[key].min, RETRY_LIMITS[key].max);
  if (checks.problems.length > before) return checks;
  const given = retry as RetryInput;
  if (base !== null) return checkRetryDelays(checks, mergeRetry(base, given), given);
  if (given.initialDelayMs === undefined || given.maxDelayMs === undefined) return checks;
  return checkRetryDelays(checks, { initialDelayMs: given.initialDelayMs, maxDelayMs: given.maxDelayMs }, given);
}

/** `base` with the fields `patch` gives (a checked partial policy) put over it. */
export function mergeRetry(base: RetryPolicy, patch: RetryInput | undefined): RetryPolicy {
  if (patch === undefined) return base;
  return {
    maxAttempts: patch.maxAttempts ?? base.maxAttempts,
    initialDelayMs: patch.initialDelayMs ?? base.initialDelayMs,
    maxDelayMs: patch.maxDelayMs ?? base.maxDelayMs,
  };
}

/**
 * Checks `maxDelayMs ≥ initialDelayMs` of the policy a job will have (after defaults or a merge),
 * reported on `/retry/maxDelayMs`.
 * @param given the `retry` object of the request
 */
export function checkRetryDelays(
  checks: Checks,
  effective: Pick<RetryPolicy, 'initialDelayMs' | 'maxDelayMs'>,
  given: RetryInput | undefined,
): Checks {
  const message = retryDelaysMessage(effective.initialDelayMs, effective.maxDelayMs, given?.maxDelayMs !== undefined);
  return message === null ? checks : checks.add('/retry/maxDelayMs', message);
}
