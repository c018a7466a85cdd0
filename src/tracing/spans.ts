/**
 * The names and attributes of Punctual's spans (docs/metrics.md, "Traces"), after the
 * OpenTelemetry semantic conventions for HTTP (stable): an attempt is an HTTP CLIENT span, an API
 * request an HTTP SERVER span. Pure: attribute maps from what the dispatcher and Fastify know.
 * Loaded only when traces are exported (tracing.ts).
 */
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { Attributes } from '@opentelemetry/api';
import type { AttemptOutcome, ClaimedExecution } from '../domain/types.js';
import { attemptLabels } from '../metrics/attempts.js';

const REDACTED = 'REDACTED';

/**
 * `url.full` of an endpoint, redacted as the HTTP conventions ask and further, as Punctual's logs
 * never hold query strings (docs/security.md, "What is logged"): credentials in the URL replaced
 * by `REDACTED` (user and password), and the value of every query parameter too (the names are
 * kept), so that no token passed in a query string reaches a tracing backend. Scheme, host, port
 * and path are kept. An endpoint that does not parse is returned as it is (jobs' endpoints are
 * checked at create).
 */
export function redactedUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return endpoint;
  }
  if (!url.username && !url.password && url.search === '') return endpoint;
  if (url.username) url.username = REDACTED;
  if (url.password) url.password = REDACTED;
  if (url.search !== '') {
    const names = [...new Set(url.searchParams.keys())];
    url.search = names.map((n) => `${encodeURIComponent(n)}=${REDACTED}`).join('&');
  }
  return url.href;
}

/** `server.address` and `server.port` of an endpoint (the port of its scheme when none is given), or none. */
function serverOf(endpoint: string): Attributes {
  try {
    const url = new URL(endpoint);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { [ATTR_SERVER_ADDRESS]: url.hostname.replace(/^\[(.*)\]$/, '$1'), [ATTR_SERVER_PORT]: port };
  } catch {
    return {};
  }
}

/**
 * `error.type` of an attempt that did not succeed: its status code as a string when an answer
 * came (a 3xx, 4xx or 5xx: Punctual counts any answer but a 2xx as a failure), else the kind of
 * failure of `punctual_attempts_total` (`timeout`, `connection_error`, `refused`); undefined for a
 * success.
 */
export function attemptErrorType(outcome: Pick<AttemptOutcome, 'status' | 'statusCode' | 'error'>): string | undefined {
  if (outcome.status === 'Succeeded') return undefined;
  return outcome.statusCode !== null ? String(outcome.statusCode) : attemptLabels(outcome).result;
}

/**
 * The attributes of an attempt's CLIENT span: `http.request.method`, `url.full` ({@link
 * redactedUrl}), `server.address`, `server.port`, `http.response.status_code` (when an answer
 * came), `error.type` ({@link attemptErrorType}), `http.request.resend_count` (from the second
 * attempt), and Punctual's own `punctual.execution.id`, `punctual.job.type`, `punctual.job.id`,
 * `punctual.attempt` (1-based) and `punctual.outcome` (`Succeeded`, `Retrying`, `Failed`).
 */
export function attemptAttributes(claim: ClaimedExecution, outcome: AttemptOutcome): Attributes {
  const errorType = attemptErrorType(outcome);
  return {
    [ATTR_HTTP_REQUEST_METHOD]: claim.method,
    [ATTR_URL_FULL]: redactedUrl(claim.endpoint),
    ...serverOf(claim.endpoint),
    ...(outcome.statusCode !== null && { [ATTR_HTTP_RESPONSE_STATUS_CODE]: outcome.statusCode }),
    ...(errorType !== undefined && { [ATTR_ERROR_TYPE]: errorType }),
    ...(claim.attempt > 1 && { [ATTR_HTTP_REQUEST_RESEND_COUNT]: claim.attempt - 1 }),
    'punctual.execution.id': claim.executionId,
    'punctual.job.type': claim.jobType,
    'punctual.job.id': claim.jobId,
    'punctual.attempt': claim.attempt,
    'punctual.outcome': outcome.status,
  };
}

/** What a SERVER span knows of its request (Fastify's request, reduced). */
export interface RequestFacts {
  method: string;
  /** The path without its query string, tokens redacted (http/app.ts, `requestSummary`). */
  path: string;
  /** The route's pattern (`/schedules/:id`), or undefined when none matched. */
  route: string | undefined;
  scheme: string;
  host: string | undefined;
  port: number | undefined;
  clientAddress: string | undefined;
  userAgent: string | undefined;
}

/** The name of a SERVER span: `{method} {route}`, or the method alone when no route matched. */
export function requestSpanName(facts: Pick<RequestFacts, 'method' | 'route'>): string {
  return facts.route === undefined ? facts.method : `${facts.method} ${facts.route}`;
}

/** The attributes of a SERVER span known at the request's start. */
export function requestAttributes(facts: RequestFacts): Attributes {
  return {
    [ATTR_HTTP_REQUEST_METHOD]: facts.method,
    [ATTR_URL_PATH]: facts.path,
    [ATTR_URL_SCHEME]: facts.scheme,
    ...(facts.route !== undefined && { [ATTR_HTTP_ROUTE]: facts.route }),
    ...(facts.host !== undefined && { [ATTR_SERVER_ADDRESS]: facts.host }),
    ...(facts.port !== undefined && { [ATTR_SERVER_PORT]: facts.port }),
    ...(facts.clientAddress !== undefined && { [ATTR_CLIENT_ADDRESS]: facts.clientAddress }),
    ...(facts.userAgent !== undefined && { [ATTR_USER_AGENT_ORIGINAL]: facts.userAgent }),
  };
}

/** The attributes of a SERVER span known at its answer: the status, and `error.type` for a 5xx. */
export function responseAttributes(statusCode: number): Attributes {
  return { [ATTR_HTTP_RESPONSE_STATUS_CODE]: statusCode, ...(statusCode >= 500 && { [ATTR_ERROR_TYPE]: String(statusCode) }) };
}
