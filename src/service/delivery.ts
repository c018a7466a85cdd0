/**
 * How a job's calls are made: its retry policy and the timeout of one attempt.
 * Defaults, limits, the checks of the service, and how a request's partial `retry` is merged.
 *
 * A job always holds complete settings: missing fields take the service's defaults at create
 * (`JobServiceContext.defaults`), and a `PATCH` with a partial `retry` object merges it into the
 * job's stored policy. Which rule of delay the merged policy follows (docs/calls.md, "Outcomes
 * and retries"):
 * - `retry.delaysMs` given: an array sets the steps, null the exponential rule;
 * - else `initialDelayMs` or `maxDelayMs` given: the exponential rule (`delaysMs` null), as such a
 *   request meant before steps existed;
 * - else (nothing, or only `maxAttempts`): the rule of the base (the defaults at create, the
 *   stored policy in a PATCH).
 * At create, a request that asks for the exponential rule takes the delays it does not give from
 * the exponential defaults (1,000 ms and 3,600,000 ms, {@link EXPONENTIAL_RETRY_DEFAULTS}) rather
 * than from a default policy with steps, so it means what it meant before; `maxAttempts` comes
 * from the service's default whatever the rule.
 */
import { DEFAULT_RETRY_POLICY, EXPONENTIAL_RETRY_DEFAULTS } from '../domain/retry-policy.js';
import type { DeliverySettings, RetryPolicy } from '../domain/types.js';
import type { JobServiceContext } from './context.js';
import { Checks, isJsonObject, retryDelaysMessage } from './rules.js';

/** Timeout of one attempt when neither the job nor the configuration says (ms). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Settings a new job takes when the service is given none: the default retry policy (8 attempts
 * over about 27.6 h, DEFAULT_RETRY_POLICY), a 30 s timeout.
 */
export const DEFAULT_DELIVERY: DeliverySettings = { retry: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };

/** The integer fields of a retry policy. */
export type RetryNumberField = 'maxAttempts' | 'initialDelayMs' | 'maxDelayMs';

/** Accepted range of each integer field of a retry policy (inclusive; delays in ms). */
export const RETRY_LIMITS = {
  maxAttempts: { min: 1, max: 20 },
  initialDelayMs: { min: 100, max: 3_600_000 },
  maxDelayMs: { min: 1_000, max: 86_400_000 },
} as const satisfies Record<RetryNumberField, { min: number; max: number }>;

/**
 * Accepted `retry.delaysMs` (besides null): 1–19 steps (one per retry of the largest
 * `maxAttempts`, 20; steps past `maxAttempts − 1` are never used), each an integer of
 * 100–86,400,000 ms (the bounds of `initialDelayMs` at its low end and of `maxDelayMs` at its
 * high end: a step of at most a day).
 */
export const RETRY_DELAYS_LIMITS = {
  steps: { min: 1, max: RETRY_LIMITS.maxAttempts.max - 1 },
  stepMs: { min: RETRY_LIMITS.initialDelayMs.min, max: RETRY_LIMITS.maxDelayMs.max },
} as const;

/** Accepted range of `timeoutMs` (inclusive, ms), as for `PUNCTUAL_REQUEST_TIMEOUT_MS`. */
export const TIMEOUT_MS_LIMITS = { min: 1_000, max: 900_000 } as const;

/** A retry policy as a request gives it: any of its fields. */
export type RetryInput = Partial<RetryPolicy>;

/** The delivery fields of a create or patch request. */
export interface DeliveryInput {
  retry?: RetryInput;
  timeoutMs?: number;
}

const RETRY_NUMBER_FIELDS = Object.keys(RETRY_LIMITS) as RetryNumberField[];
const RETRY_FIELDS: readonly string[] = [...RETRY_NUMBER_FIELDS, 'delaysMs'];

/** The context's defaults, or {@link DEFAULT_DELIVERY}. */
export function deliveryDefaults(ctx: Pick<JobServiceContext, 'defaults'>): DeliverySettings {
  return ctx.defaults ?? DEFAULT_DELIVERY;
}

/**
 * Checks the present delivery fields of a request: `retry` a JSON object with only the fields of
 * a policy, each integer in {@link RETRY_LIMITS}, `delaysMs` null or an array in
 * {@link RETRY_DELAYS_LIMITS} (a faulty step named `/retry/delaysMs/<index>`); `timeoutMs` an
 * integer in {@link TIMEOUT_MS_LIMITS}; and `maxDelayMs ≥ initialDelayMs` of the policy the job
 * will have, `retry` merged into `base` (see {@link checkRetryDelays}).
 * @param base the policy `retry` completes: {@link createRetryBase} at create; null before a patch
 *   has read the job (then the delays are compared only when the request gives both)
 */
export function checkDelivery(checks: Checks, input: DeliveryInput, base: RetryPolicy | null): Checks {
  checks.integer('/timeoutMs', input.timeoutMs, TIMEOUT_MS_LIMITS.min, TIMEOUT_MS_LIMITS.max);
  const retry: unknown = input.retry;
  if (retry === undefined) return checks;
  if (!isJsonObject(retry)) return checks.add('/retry', 'must be a JSON object');
  const before = checks.problems.length;
  for (const key of Object.keys(retry)) {
    if (!RETRY_FIELDS.includes(key)) checks.add(`/retry/${key}`, 'is not an allowed field');
  }
  for (const key of RETRY_NUMBER_FIELDS) checks.integer(`/retry/${key}`, retry[key], RETRY_LIMITS[key].min, RETRY_LIMITS[key].max);
  checkRetrySteps(checks, retry.delaysMs);
  if (checks.problems.length > before) return checks;
  const given = retry as RetryInput;
  if (base !== null) return checkRetryDelays(checks, mergeRetry(base, given), given);
  if (given.initialDelayMs === undefined || given.maxDelayMs === undefined) return checks;
  return checkRetryDelays(checks, { initialDelayMs: given.initialDelayMs, maxDelayMs: given.maxDelayMs }, given);
}

/**
 * Checks `retry.delaysMs` when present: null, or an array of {@link RETRY_DELAYS_LIMITS}`.steps`
 * integers, each in `stepMs`. Problems name `/retry/delaysMs` (the array) or
 * `/retry/delaysMs/<index>` (a step).
 */
export function checkRetrySteps(checks: Checks, delays: unknown): Checks {
  if (delays === undefined || delays === null) return checks;
  const { steps, stepMs } = RETRY_DELAYS_LIMITS;
  // In the words of the HTTP layer's schema errors (src/http/problem.ts).
  if (!Array.isArray(delays)) return checks.add('/retry/delaysMs', 'must be an array or null');
  if (delays.length < steps.min) return checks.add('/retry/delaysMs', `must NOT have fewer than ${steps.min} items`);
  if (delays.length > steps.max) return checks.add('/retry/delaysMs', `must NOT have more than ${steps.max} items`);
  delays.forEach((d, i) => checks.integer(`/retry/delaysMs/${i}`, d ?? Number.NaN, stepMs.min, stepMs.max));
  return checks;
}

/**
 * Whether a (checked) partial policy asks for the exponential rule: `delaysMs` null, or
 * `initialDelayMs` / `maxDelayMs` given without `delaysMs`. False for one that gives steps or
 * leaves the rule as it is.
 */
export function asksExponential(given: RetryInput | undefined): boolean {
  if (given === undefined || given === null || typeof given !== 'object') return false;
  if (given.delaysMs !== undefined) return given.delaysMs === null;
  return given.initialDelayMs !== undefined || given.maxDelayMs !== undefined;
}

/**
 * The policy a create request's `retry` completes: `defaults`, or, when the request asks for the
 * exponential rule ({@link asksExponential}) and the defaults have steps, the defaults' attempts
 * with {@link EXPONENTIAL_RETRY_DEFAULTS} and no steps.
 */
export function createRetryBase(defaults: RetryPolicy, given: unknown): RetryPolicy {
  if (!isJsonObject(given) || !asksExponential(given as RetryInput) || !defaults.delaysMs) return defaults;
  return { maxAttempts: defaults.maxAttempts, ...EXPONENTIAL_RETRY_DEFAULTS, delaysMs: null };
}

/**
 * The policy of a new job: the (checked) `retry` of its request merged into
 * {@link createRetryBase} of the service's defaults.
 */
export function createRetry(defaults: RetryPolicy, given: RetryInput | undefined): RetryPolicy {
  return mergeRetry(createRetryBase(defaults, given), given);
}

/**
 * `base` with the fields `patch` gives (a checked partial policy) put over it; `delaysMs` as the
 * rules at the top of this module say (given: taken; exponential asked: null; else the base's).
 * The result always has `delaysMs` (an array or null).
 */
export function mergeRetry(base: RetryPolicy, patch: RetryInput | undefined): RetryPolicy {
  if (patch === undefined) return base;
  const delaysMs = patch.delaysMs !== undefined ? patch.delaysMs : asksExponential(patch) ? null : (base.delaysMs ?? null);
  return {
    maxAttempts: patch.maxAttempts ?? base.maxAttempts,
    initialDelayMs: patch.initialDelayMs ?? base.initialDelayMs,
    maxDelayMs: patch.maxDelayMs ?? base.maxDelayMs,
    delaysMs: delaysMs === null ? null : [...delaysMs],
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
