/**
 * Errors as RFC 9457 problem details (`application/problem+json`): the single place that maps
 * domain error codes to HTTP statuses, and the one error handler of the app.
 *
 * A problem carries `type`, `title`, `status`, `detail`, and for invalid input `errors:
 * [{path, message}]` naming every faulty field. Nothing a client sends produces a 5xx: an error
 * that is not a domain error nor one of Fastify's client errors is logged and answered with a
 * bare 500 problem, with no message, stack or internals.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode, type FieldProblem } from '../domain/errors.js';
import { DEFAULT_LIMITS } from '../service/limits.js';
import { AUTH_THROTTLED, RATE_LIMITED } from './rate-limit.js';
import type { Problem } from './schemas/common.js';

/** Media type of every error answer (RFC 9457 §3). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Prefix of the `type` URI of Punctual's problems; the suffix is a stable code. */
export const PROBLEM_TYPE_BASE = 'urn:punctual:problem:';

/**
 * Domain error code → HTTP status and title. The only such table: every mapping of a domain error
 * to a status is made here.
 */
export const DOMAIN_ERROR_STATUS: Record<ErrorCode, { status: number; title: string }> = {
  invalid_input: { status: 400, title: 'Invalid input' },
  unauthenticated: { status: 401, title: 'Unauthenticated' },
  forbidden: { status: 403, title: 'Forbidden' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  not_found: { status: 404, title: 'Not found' },
  conflict: { status: 409, title: 'Conflict' },
  store_unavailable: { status: 503, title: 'Service unavailable' },
};

/**
 * Most field problems listed in one answer. A body can break a rule many thousand times (a
 * thousand unknown fields); listing them all would make the answer far larger than the request.
 */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * Problems that come from HTTP itself rather than the domain, by Fastify's (or `rate-limit.ts`'s) error code.
 * Exported for the OpenAPI document's examples (`schemas/operations.ts`).
 */
export const HTTP_PROBLEMS: Record<string, { code: string; status: number; title: string; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    status: 415,
    title: 'Unsupported media type',
    detail: 'Request bodies must be sent with Content-Type: application/json.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'malformed_json',
    status: 400,
    title: 'Malformed JSON',
    detail: 'The request body is not valid JSON (or uses a forbidden key such as __proto__).',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'malformed_json',
    status: 400,
    title: 'Malformed JSON',
    detail: 'The request has Content-Type: application/json but an empty body.',
  },
  FST_ERR_BAD_URL: {
    code: 'malformed_url',
    status: 400,
    title: 'Malformed URL',
    detail: 'The request URL is not validly percent-encoded.',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'uri_too_long',
    status: 414,
    title: 'URI too long',
    detail: 'A path parameter is longer than the service accepts.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    status: 413,
    title: 'Payload too large',
    // With the default limit; the answer names the limit in force (see `bodyTooLargeDetail`).
    detail: bodyTooLargeDetail(DEFAULT_LIMITS.bodyBytes),
  },
  [RATE_LIMITED]: {
    code: 'rate_limited',
    status: 429,
    title: 'Too many requests',
    detail: 'This API key has sent more requests than its rate limit allows; retry after the seconds in Retry-After.',
  },
  [AUTH_THROTTLED]: {
    code: 'too_many_failed_authentications',
    status: 429,
    title: 'Too many requests',
    detail: 'Too many failed authentications came from this address; retry after the seconds in Retry-After.',
  },
};

/**
 * `detail` of the 413: the limit in bytes and the variable that sets it, so that a client knows
 * how far to cut (or to split a batch) and an operator what to raise.
 * @param limit the body limit of the route, in bytes: `PUNCTUAL_MAX_BODY_BYTES`, or 16 times it
 *   for `POST /schedules/batch` (routes/schedule-batch.ts)
 */
export function bodyTooLargeDetail(limit: number): string {
  return `The request body is larger than the service accepts: at most ${limit} bytes for this request (set by PUNCTUAL_MAX_BODY_BYTES).`;
}

/** Builds a problem body. `code` becomes the `type` URI. */
export function problem(code: string, status: number, title: string, detail: string, errors?: FieldProblem[]): Problem {
  const body: Problem = { type: PROBLEM_TYPE_BASE + code, title, status, detail };
  if (errors !== undefined && errors.length > 0) body.errors = errors;
  return body;
}

/**
 * The problems of `Idempotency-Key` (idempotency.ts, docs/interface.md) besides an invalid value:
 * a request with the key still in progress (409), the key used with another body (422). Each
 * names the header in `errors`.
 */
export const IDEMPOTENCY_PROBLEMS = {
  idempotency_key_in_use: problem('idempotency_key_in_use', 409, 'Conflict', 'A request with this Idempotency-Key is still in progress; retry later.', [
    { path: '/headers/idempotency-key', message: 'is in use by a request still in progress' },
  ]),
  idempotency_key_reused: problem('idempotency_key_reused', 422, 'Unprocessable content', 'This Idempotency-Key was used with another request body.', [
    { path: '/headers/idempotency-key', message: 'was used with another request body; use a new key for a new request' },
  ]),
} as const;

/** Sends `body` as `application/problem+json` (serialised here, bypassing route response schemas). */
export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  if (body.status === 401 && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', 'Bearer realm="punctual"');
  if (body.status === 503) reply.header('retry-after', '1');
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** The problem for a domain error, through {@link DOMAIN_ERROR_STATUS}. */
export function domainProblem(err: DomainError): Problem {
  const { status, title } = DOMAIN_ERROR_STATUS[err.code];
  return problem(err.code, status, title, err.message, err.code === 'invalid_input' || err.code === 'conflict' ? err.errors.slice(0, MAX_LISTED_PROBLEMS) : undefined);
}

/** The app's error handler (`setErrorHandler`). */
export function errorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof DomainError) {
    const body = domainProblem(err);
    if (body.status >= 500) request.log.error({ err }, 'store unavailable');
    return sendProblem(reply, body);
  }
  if (Array.isArray(err.validation)) {
    const errors = validationProblems(err.validation, err.validationContext);
    let detail =
      errors.length === 1 ? `${errors[0]!.path || 'The request'}: ${errors[0]!.message}.` : `${errors.length} fields are invalid.`;
    if (errors.length > MAX_LISTED_PROBLEMS) detail = `${errors.length} problems were found; the first ${MAX_LISTED_PROBLEMS} are listed.`;
    const listed = errors.slice(0, MAX_LISTED_PROBLEMS);
    return sendProblem(reply, problem('invalid_input', 400, DOMAIN_ERROR_STATUS.invalid_input.title, detail, listed));
  }
  const known = err.code === undefined ? undefined : HTTP_PROBLEMS[err.code];
  if (known !== undefined) {
    // The limit in force is the route's (the app's `bodyLimit`, from PUNCTUAL_MAX_BODY_BYTES).
    const limit = err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? request.routeOptions?.bodyLimit : undefined;
    const detail = typeof limit === 'number' ? bodyTooLargeDetail(limit) : known.detail;
    return sendProblem(reply, problem(known.code, known.status, known.title, detail));
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    // Another client error raised by Fastify (e.g. an invalid Content-Length): keep its status,
    // say nothing more than its status means.
    request.log.info({ code: err.code, statusCode: err.statusCode }, 'client error');
    return sendProblem(reply, problem('bad_request', err.statusCode, 'Bad request', 'The request could not be processed.'));
  }
  request.log.error({ err }, 'unexpected error');
  return sendProblem(reply, problem('internal', 500, 'Internal server error', 'An unexpected error occurred; it has been logged.'));
}

/** The 404 problem for a route that does not exist (`setNotFoundHandler`). */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(
    reply,
    problem('route_not_found', 404, 'Not found', `No route ${request.method} ${request.url.split('?')[0]}.`),
  );
}

/** Where a validation error was found → prefix of its paths (body fields have none). */
const CONTEXT_PREFIX: Record<string, string> = { body: '', querystring: '/query', params: '/params', headers: '/headers' };

/** One Ajv error, as much of it as is read here. */
interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Ajv errors → `[{path, message}]`, one per field and problem, paths as JSON Pointers. */
export function validationProblems(errors: ReadonlyArray<object>, context: string | undefined): FieldProblem[] {
  const prefix = CONTEXT_PREFIX[context ?? 'body'] ?? '';
  const list = errors as AjvError[];
  // A value of the wrong type also fails its other keywords (e.g. `enum`): report the type only.
  const wrongType = new Set(list.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const e of list) {
    if (e.keyword !== 'type' && wrongType.has(e.instancePath) && e.keyword !== 'required' && e.keyword !== 'additionalProperties') continue;
    let path = prefix + e.instancePath;
    let message = e.message ?? 'is invalid';
    switch (e.keyword) {
      case 'required':
        path += `/${pointerToken(String(e.params.missingProperty))}`;
        message = 'is required';
        break;
      case 'additionalProperties':
        path += `/${pointerToken(String(e.params.additionalProperty))}`;
        message = 'is not an allowed field';
        break;
      case 'type':
        message = `must be ${describeType(e.params.type)}`;
        break;
      case 'enum':
        message = `must be one of ${(e.params.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
        break;
      case 'minLength':
        if (e.params.limit === 1) message = 'must not be empty';
        break;
      case 'minimum':
        message = `must be at least ${String(e.params.limit)}`;
        break;
      case 'maximum':
        message = `must be at most ${String(e.params.limit)}`;
        break;
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message });
  }
  return out;
}

function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  object: 'a JSON object',
  array: 'an array',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

function describeType(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t: unknown) => ARTICLE[String(t)] ?? String(t)).join(' or ');
}
