/**
 * Wire schemas of the delivery settings shared by schedules and cron jobs (docs/calls.md): the
 * retry policy, the timeout of one attempt, and the request of the calls (method, headers, body).
 */
import { Type } from 'typebox';
import { HTTP_METHODS } from '../../domain/enums.js';
import { MAX_HEADER_VALUE_BYTES, MAX_JOB_HEADERS } from '../../domain/headers.js';
import type { DeliverySettings, HttpMethod, JobRequest, RetryPolicy } from '../../domain/types.js';
import { DEFAULT_RETRY_DELAYS_MS, STEPS_MAX_DELAY_MS } from '../../domain/retry-policy.js';
import { RETRY_DELAYS_LIMITS, RETRY_LIMITS, TIMEOUT_MS_LIMITS, type RetryNumberField } from '../../service/delivery.js';
import { DEFAULT_LIMITS } from '../../service/limits.js';
import { CHECK_KEYWORD, RETRY_DELAYS_KEYWORD } from '../ajv.js';
import { Nullable, RuleString, StringEnum } from './common.js';
import { secretInputFields, secretsToWire, secretWireFields, type SecretsWire } from './secrets.js';

const RETRY_DESCRIPTION = {
  maxAttempts: `Attempts in all, the first included (${RETRY_LIMITS.maxAttempts.min}–${RETRY_LIMITS.maxAttempts.max}).`,
  initialDelayMs:
    `Exponential rule (when \`delaysMs\` is null): upper bound of the delay before the first retry, in ms (${RETRY_LIMITS.initialDelayMs.min}–${RETRY_LIMITS.initialDelayMs.max}); ` +
    'it doubles for each further retry, and each delay is drawn at random below its bound (full jitter). Unused while `delaysMs` is set.',
  maxDelayMs:
    `Cap of the exponential delays and of a receiver's \`Retry-After\`, in ms (${RETRY_LIMITS.maxDelayMs.min}–${RETRY_LIMITS.maxDelayMs.max}); ` +
    'at least `initialDelayMs`. Steps of `delaysMs` are not capped by it.',
  delaysMs:
    `Explicit steps: the delay before retry n is \`delaysMs[n-1]\` in ms, the last step repeated when \`maxAttempts\` needs more, ` +
    `each multiplied by a random factor in [0.8, 1.2) (jitter). ${RETRY_DELAYS_LIMITS.steps.min}–${RETRY_DELAYS_LIMITS.steps.max} steps of ` +
    `${RETRY_DELAYS_LIMITS.stepMs.min}–${RETRY_DELAYS_LIMITS.stepMs.max} ms. Null: the exponential rule of \`initialDelayMs\` and \`maxDelayMs\`.`,
} as const;

const TIMEOUT_DESCRIPTION = `Timeout of one attempt, in ms (${TIMEOUT_MS_LIMITS.min}–${TIMEOUT_MS_LIMITS.max}).`;

/** A retry policy in a response: every field. */
export const RetryPolicySchema = Type.Object(
  {
    maxAttempts: Type.Integer({ description: RETRY_DESCRIPTION.maxAttempts }),
    initialDelayMs: Type.Integer({ description: RETRY_DESCRIPTION.initialDelayMs }),
    maxDelayMs: Type.Integer({ description: RETRY_DESCRIPTION.maxDelayMs }),
    delaysMs: Nullable(Type.Array(Type.Integer(), { description: RETRY_DESCRIPTION.delaysMs })),
  },
  {
    additionalProperties: false,
    title: 'RetryPolicy',
    description:
      'How failed attempts are retried: after a connection error, a timeout, a 3xx, 408, 429 or a 5xx that `successStatuses` does not list. ' +
      'The delays follow the steps of `delaysMs`, or the exponential rule when it is null.',
  },
);

/** `timeoutMs` in a response. */
export const TimeoutMsSchema = Type.Integer({ description: TIMEOUT_DESCRIPTION });

const bounded = (field: RetryNumberField, defaultValue: string) =>
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
    maxAttempts: bounded('maxAttempts', `Default ${DEFAULT_RETRY_DELAYS_MS.length + 1} (\`PUNCTUAL_RETRY_MAX_ATTEMPTS\`).`),
    initialDelayMs: bounded('initialDelayMs', 'Giving it without `delaysMs` chooses the exponential rule. Default 1000.'),
    maxDelayMs: bounded(
      'maxDelayMs',
      `Giving it without \`delaysMs\` chooses the exponential rule. Default ${STEPS_MAX_DELAY_MS} with steps, 3600000 with the exponential rule.`,
    ),
    delaysMs: Type.Optional(
      Nullable(
        Type.Array(Type.Integer({ minimum: RETRY_DELAYS_LIMITS.stepMs.min, maximum: RETRY_DELAYS_LIMITS.stepMs.max }), {
          minItems: RETRY_DELAYS_LIMITS.steps.min,
          maxItems: RETRY_DELAYS_LIMITS.steps.max,
          description:
            `${RETRY_DESCRIPTION.delaysMs} Default ${JSON.stringify(DEFAULT_RETRY_DELAYS_MS)} (\`PUNCTUAL_RETRY_DELAYS\`), ` +
            'unless `initialDelayMs` or `maxDelayMs` is given (then null).',
        }),
      ),
    ),
  },
  {
    additionalProperties: false,
    [RETRY_DELAYS_KEYWORD]: true,
    title: 'RetryPolicyInput',
    description:
      'Retry policy (any of its fields). At creation the missing fields take the defaults; in a PATCH they keep the job\'s values. ' +
      'The rule of delay: `delaysMs` given (steps, or null for exponential); else exponential when `initialDelayMs` or `maxDelayMs` is given; ' +
      'else the default\'s (at creation) or the job\'s (in a PATCH).',
  },
);

/** `timeoutMs` in a request. */
export const TimeoutMsInput = Type.Integer({
  minimum: TIMEOUT_MS_LIMITS.min,
  maximum: TIMEOUT_MS_LIMITS.max,
  description: `${TIMEOUT_DESCRIPTION} Default: the service's (\`PUNCTUAL_REQUEST_TIMEOUT_MS\`, 30000).`,
});

const METHOD_DESCRIPTION = 'HTTP method of the calls. GET and HEAD calls carry no body: with them `data` is empty and `body` null.';
const HEADERS_DESCRIPTION =
  'Headers sent on every attempt: header name → value. Names are RFC 9110 tokens, case-insensitive (stored as given, no two equal ' +
  'ignoring case); values are visible ASCII, spaces and tabs (no CR, LF or NUL), at most ' +
  `${MAX_HEADER_VALUE_BYTES} bytes; at most ${MAX_JOB_HEADERS} headers. Refused: Host, Content-Length, Transfer-Encoding, ` +
  'Connection, Keep-Alive, Upgrade, TE, Trailer, Proxy-*, webhook-id, webhook-timestamp, webhook-signature, traceparent, ' +
  'tracestate and Punctual-* ' +
  '(any case). Content-Type and User-Agent replace Punctual\'s.';
const BODY_DESCRIPTION =
  'Text sent as the body, as it is (for form or plain-text APIs), instead of the JSON of `data`; its content type is the ' +
  '`content-type` of `headers` (any case), else `text/plain; charset=utf-8`. Null: none (the JSON of `data` is sent). Not with a ' +
  `non-empty \`data\`, nor with GET or HEAD. At most ${DEFAULT_LIMITS.dataBytes} bytes of UTF-8 by default (\`PUNCTUAL_MAX_DATA_BYTES\`).`;

/** The request fields of a job in a response (secrets by name and public part only). */
const requestWireFields = {
  method: StringEnum(HTTP_METHODS, METHOD_DESCRIPTION),
  headers: Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' }, description: HEADERS_DESCRIPTION }),
  body: Nullable(Type.String({ description: BODY_DESCRIPTION })),
  ...secretWireFields,
};

/** The request fields of a job in a create or patch body (each optional: defaults POST, `{}`, null). */
export const requestInputFields = {
  method: Type.Optional(StringEnum(HTTP_METHODS, `${METHOD_DESCRIPTION} Default POST.`)),
  headers: Type.Optional(
    Type.Unsafe<Record<string, string>>({
      type: 'object',
      additionalProperties: { type: 'string' },
      [CHECK_KEYWORD]: 'headers',
      description: `${HEADERS_DESCRIPTION} Default \`{}\`; a PATCH replaces the whole object.`,
    }),
  ),
  body: Type.Optional(Nullable(RuleString('body', `${BODY_DESCRIPTION} Default null.`))),
  ...secretInputFields,
};

/** A job's delivery settings and request fields in a response, in this order. */
export const deliveryWireFields = { retry: RetryPolicySchema, timeoutMs: TimeoutMsSchema, ...requestWireFields };

/** The wire form of a job's delivery settings and request fields (its secrets by name and public part only). */
export function deliveryToWire(d: DeliverySettings & JobRequest): {
  retry: RetryPolicy & { delaysMs: number[] | null };
  timeoutMs: number;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | null;
} & SecretsWire {
  return {
    retry: {
      maxAttempts: d.retry.maxAttempts,
      initialDelayMs: d.retry.initialDelayMs,
      maxDelayMs: d.retry.maxDelayMs,
      delaysMs: d.retry.delaysMs ? [...d.retry.delaysMs] : null,
    },
    timeoutMs: d.timeoutMs,
    method: d.method,
    headers: { ...d.headers },
    body: d.body,
    ...secretsToWire(d),
  };
}
