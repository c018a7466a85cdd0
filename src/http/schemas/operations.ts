/**
 * What the route schemas say for the OpenAPI document besides their bodies: the
 * tags, the bearer security requirement, the success answers with a description, and the
 * problem answers (`application/problem+json`, {@link ProblemSchema}) each operation can give.
 *
 * Problem answers are declared per media type (`content: {'application/problem+json': …}`): they
 * appear in the document, and Fastify compiles a serializer for that media type only, which never
 * runs — `sendProblem` sends problems as strings already serialised, so their bodies and content
 * type stay exactly as `problem.ts` makes them.
 */
import type { TSchema } from 'typebox';
import { DOMAIN_ERROR_STATUS, HTTP_PROBLEMS, IDEMPOTENCY_PROBLEMS, PROBLEM_CONTENT_TYPE, problem } from '../problem.js';
import type { Problem } from './common.js';
import { ProblemSchema } from './common.js';

/** Name of the security scheme of API keys (`Authorization: Bearer pk_…`). */
export const BEARER_AUTH = 'bearerAuth';

/** `security` of an open operation (no authentication). */
export const OPEN: Array<Record<string, string[]>> = [];

/** Tags (groups of operations in the reference), in the order the reference lists them. */
export const TAGS = [
  {
    name: 'Schedules',
    description: 'One-time jobs: the endpoint is called once, at `scheduledAt`, with `data` as the JSON body.',
  },
  {
    name: 'Cron jobs',
    description: 'Recurring jobs: the endpoint is called on each occurrence of a cron expression in a time zone.',
  },
  {
    name: 'Executions',
    description: 'Each run of a job, with its attempts (status code, duration, error, an excerpt of the answer).',
  },
  {
    name: 'API keys',
    description:
      'Bearer tokens for this API, each with scopes (`jobs:read`, `jobs:write`, `keys:manage`, `metrics:read`), an optional expiry, ' +
      'and rotation with a grace period. Managing keys needs `keys:manage`.',
  },
  {
    name: 'Flow control',
    description:
      'Limits on the calls of all jobs that name one flow-control key: at most `parallelism` in flight and `rate` started in any window of ' +
      '`period` ms. Calls over the limits wait in line, never refused nor dropped (docs/flow-control.md).',
  },
  {
    name: 'Notification channels',
    description: 'Where Punctual tells people that calls failed, succeeded again, or that a cron job was paused: signed webhooks or Slack messages.',
  },
  {
    name: 'Audit log',
    description: 'Who changed what: every change made through the API or the CLI, and by the service itself, with secrets redacted.',
  },
  {
    name: 'Metrics',
    description: 'Prometheus metrics; here behind an API key, or on `PUNCTUAL_METRICS_PORT` without one (then not on this port).',
  },
  { name: 'Health', description: 'Probes for load balancers and orchestrators; no authentication.' },
] as const;

/** The name of one of {@link TAGS}. */
export type TagName = (typeof TAGS)[number]['name'];

/** The statuses of problem answers an operation can declare. */
export type ProblemStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503;

/** Problems of every authenticated operation: no or a bad token, a disabled key, a rate limit, the store down. */
export const AUTHENTICATED: readonly ProblemStatus[] = [401, 403, 429, 503];

/** Problems of an operation that takes a JSON body: too large, not JSON. */
export const WITH_BODY: readonly ProblemStatus[] = [413, 415];

/** A response header (@fastify/swagger moves `description` out of the schema). */
const header = (description: string, schema: Record<string, unknown> = { type: 'integer', minimum: 0 }) => ({ ...schema, description });

const httpProblem = (code: string): Problem => {
  const known = Object.values(HTTP_PROBLEMS).find((p) => p.code === code);
  if (known === undefined) throw new Error(`no HTTP problem ${code}`);
  return problem(known.code, known.status, known.title, known.detail);
};

const domainProblem = (code: keyof typeof DOMAIN_ERROR_STATUS, detail: string, errors?: Problem['errors']): Problem =>
  problem(code, DOMAIN_ERROR_STATUS[code].status, DOMAIN_ERROR_STATUS[code].title, detail, errors);

/**
 * Key, in a problem answer's media type object, of the name under which the OpenAPI document
 * keeps that answer once (`components.responses`); Fastify reads only `schema` there.
 */
export const PROBLEM_RESPONSE_KEY = 'x-problem-response';

/**
 * What each problem answer means, its name in `components.responses`, its headers and examples
 * (bodies made by `problem.ts` itself).
 */
const PROBLEMS: Record<
  ProblemStatus,
  { name: string; description: string; headers?: Record<string, unknown>; examples: Record<string, Problem> }
> = {
  400: {
    name: 'BadRequest',
    description:
      'Invalid input: a field breaks a rule (every faulty field is listed in `errors`), an unknown field or query parameter, ' +
      'malformed JSON (or a `__proto__` / `constructor` key), a URL that is not validly percent-encoded, or an invalid ' +
      '`Idempotency-Key` header (`/headers/idempotency-key`).',
    examples: {
      invalid_input: domainProblem('invalid_input', '2 fields are invalid.', [
        { path: '/scheduledAt', message: 'must be an ISO 8601 date-time with Z or an offset, e.g. 2026-11-21T10:00:00Z' },
        { path: '/endpoint', message: 'must be an absolute http or https URL' },
      ]),
      malformed_json: httpProblem('malformed_json'),
    },
  },
  401: {
    name: 'Unauthenticated',
    description:
      'No bearer token, a malformed one, the token of no key, the token of an expired key (the detail says it expired), or a token ' +
      'replaced by a rotation whose grace period is over. With `WWW-Authenticate: Bearer realm="punctual"`.',
    headers: { 'WWW-Authenticate': header('`Bearer realm="punctual"` (with `error="invalid_token"` for an unknown token).', { type: 'string' }) },
    examples: {
      unauthenticated: domainProblem('unauthenticated', 'Send an API key in the header Authorization: Bearer <token>.'),
    },
  },
  403: {
    name: 'Forbidden',
    description:
      'The API key is `Disabled` (`forbidden`), or lacks the scope the operation needs, or tried to grant a scope it does not hold ' +
      '(`insufficient_scope`, naming the scopes).',
    examples: {
      forbidden: domainProblem('forbidden', 'The API key is disabled.'),
      insufficient_scope: domainProblem('insufficient_scope', 'this key lacks the scope jobs:write'),
    },
  },
  404: {
    name: 'NotFound',
    description: 'No resource has this id (also for an id that is not a UUID).',
    examples: { not_found: domainProblem('not_found', 'No schedule has this id.') },
  },
  409: {
    name: 'Conflict',
    description:
      'The schedule is no longer `Pending` (it ran, is running or was triggered), or a request with the same `Idempotency-Key` ' +
      'is still in progress (`idempotency_key_in_use`; retry later).',
    examples: {
      conflict: domainProblem('conflict', 'The schedule is no longer Pending (it ran, is running or was triggered) and cannot be triggered.'),
      idempotency_key_in_use: IDEMPOTENCY_PROBLEMS.idempotency_key_in_use,
    },
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The body is larger than the service accepts (1 MiB by default, `PUNCTUAL_MAX_BODY_BYTES`).',
    examples: { payload_too_large: httpProblem('payload_too_large') },
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'The body is not sent as `Content-Type: application/json`.',
    examples: { unsupported_media_type: httpProblem('unsupported_media_type') },
  },
  422: {
    name: 'UnprocessableContent',
    description: 'The `Idempotency-Key` was already used, by this API key on this method and path, with another request body.',
    examples: {
      idempotency_key_reused: IDEMPOTENCY_PROBLEMS.idempotency_key_reused,
    },
  },
  429: {
    name: 'TooManyRequests',
    description:
      'Too many requests: the API key\'s rate limit (`rate_limited`; 1,000 per second, bursts of 2,000 by default), or 50 failed ' +
      'authentications within a minute from this address (`too_many_failed_authentications`). Retry after `Retry-After` seconds.',
    headers: {
      'Retry-After': header('Seconds after which a request can succeed.'),
      'RateLimit-Limit': header('Size of the key\'s bucket (its burst); absent for `too_many_failed_authentications`.'),
      'RateLimit-Remaining': header('Requests left in the bucket.'),
      'RateLimit-Reset': header('Seconds until the bucket is full again.'),
    },
    examples: {
      rate_limited: httpProblem('rate_limited'),
      too_many_failed_authentications: httpProblem('too_many_failed_authentications'),
    },
  },
  503: {
    name: 'ServiceUnavailable',
    description: 'The store is unavailable or full, or the node is shutting down. Retry after `Retry-After` seconds.',
    headers: { 'Retry-After': header('`1`.') },
    examples: { store_unavailable: domainProblem('store_unavailable', 'The store is unavailable.') },
  },
};

/** The problem answer of `status`, as a route's `response[status]`. */
function problemResponse(status: ProblemStatus) {
  const { name, description, headers, examples } = PROBLEMS[status];
  return {
    description,
    ...(headers === undefined ? {} : { headers }),
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: ProblemSchema,
        examples: Object.fromEntries(Object.entries(examples).map(([key, value]) => [key, { value }])),
        // Read by `openapi-document.ts`, which moves the answer to `components.responses[name]`.
        [PROBLEM_RESPONSE_KEY]: name,
      },
    },
  };
}

/**
 * The problem answers of an operation, to spread into its `response`:
 * `response: { 200: …, ...problemResponses(400, 404, ...AUTHENTICATED) }`. Sorted by status.
 */
export function problemResponses(...statuses: ProblemStatus[]): Partial<Record<ProblemStatus, ReturnType<typeof problemResponse>>> {
  const out: Partial<Record<ProblemStatus, ReturnType<typeof problemResponse>>> = {};
  for (const status of [...new Set(statuses)].sort((a, b) => a - b)) out[status] = problemResponse(status);
  return out;
}

/**
 * A JSON success answer: `schema` under `application/json`, with the answer's `description` and an
 * optional `example` (shown by the reference page). Fastify serialises `application/json` replies
 * with `schema`, as it would a bare schema.
 */
export function jsonResponse<T extends TSchema>(description: string, schema: T, example?: unknown) {
  return {
    description,
    content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
  };
}
