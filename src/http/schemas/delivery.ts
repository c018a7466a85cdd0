/**
 * Wire schemas of the delivery settings shared by schedules and cron jobs (docs/calls.md): the
 * retry policy and the timeout of one attempt.
 */
import { Type } from 'typebox';
import type { DeliverySettings, RetryPolicy } from '../../domain/types.js';
import { RETRY_LIMITS, TIMEOUT_MS_LIMITS } from '../../service/delivery.js';
import { RETRY_DELAYS_KEYWORD } from '../ajv.js';

const RETRY_DESCRIPTION = {
  maxAttempts: `Attempts in all, the first included (${RETRY_LIMITS.maxAttempts.min}–${RETRY_LIMITS.maxAttempts.max}).`,
  initialDelayMs:
    `Upper bound of the delay before the first retry, in ms (${RETRY_LIMITS.initialDelayMs.min}–${RETRY_LIMITS.initialDelayMs.max}); ` +
    'it doubles for each further retry, and each delay is drawn at random below its bound (full jitter).',
  maxDelayMs:
    `Cap of every delay, \`Retry-After\` included, in ms (${RETRY_LIMITS.maxDelayMs.min}–${RETRY_LIMITS.maxDelayMs.max}); ` +
    'at least `initialDelayMs`.',
} as const;

const TIMEOUT_DESCRIPTION = `Timeout of one attempt, in ms (${TIMEOUT_MS_LIMITS.min}–${TIMEOUT_MS_LIMITS.max}).`;

/** A retry policy in a response: every field. */
export const RetryPolicySchema = Type.Object(
  {
    maxAttempts: Type.Integer({ description: RETRY_DESCRIPTION.maxAttempts }),
    initialDelayMs: Type.Integer({ description: RETRY_DESCRIPTION.initialDelayMs }),
    maxDelayMs: Type.Integer({ description: RETRY_DESCRIPTION.maxDelayMs }),
  },
  {
    additionalProperties: false,
    title: 'RetryPolicy',
    description: 'How failed attempts are retried: after a connection error, a timeout, a 3xx, 408, 429 or a 5xx.',
  },
);

/** `timeoutMs` in a response. */
export const TimeoutMsSchema = Type.Integer({ description: TIMEOUT_DESCRIPTION });

const bounded = (field: keyof RetryPolicy, defaultValue: string) =>
  Type.Optional(
    Type.Integer({
      minimum: RETRY_LIMITS[field].min,
      maximum: RETRY_LIMITS[field].max,
      description: `${RETRY_DESCRIPTION[field]} ${defaultValue}`,
    }),
  );

/**
 * A retry policy in a request: any of its fields. At create, missing ones take the defaults; in a
 * PATCH they keep the job's values.
 */
export const RetryInputSchema = Type.Object(
  {
    maxAttempts: bounded('maxAttempts', 'Default 5.'),
    initialDelayMs: bounded('initialDelayMs', 'Default 1000.'),
    maxDelayMs: bounded('maxDelayMs', 'Default 3600000.'),
  },
  {
    additionalProperties: false,
    [RETRY_DELAYS_KEYWORD]: true,
    title: 'RetryPolicyInput',
    description:
      'Retry policy (any of its fields). At creation the missing fields take the defaults; in a PATCH they keep the job\'s values.',
  },
);

/** `timeoutMs` in a request. */
export const TimeoutMsInput = Type.Integer({
  minimum: TIMEOUT_MS_LIMITS.min,
  maximum: TIMEOUT_MS_LIMITS.max,
  description: `${TIMEOUT_DESCRIPTION} Default: the service's (\`PUNCTUAL_REQUEST_TIMEOUT_MS\`, 30000).`,
});

/** The wire form of a job's delivery settings. */
export function deliveryToWire(d: DeliverySettings): { retry: RetryPolicy; timeoutMs: number } {
  return {
    retry: { maxAttempts: d.retry.maxAttempts, initialDelayMs: d.retry.initialDelayMs, maxDelayMs: d.retry.maxDelayMs },
    timeoutMs: d.timeoutMs,
  };
}
