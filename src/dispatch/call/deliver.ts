import type { Dispatcher } from 'undici';
import { toIso } from '../../domain/time.js';
import { BODILESS_METHODS } from '../../domain/enums.js';
import { headerValue } from '../../domain/headers.js';
import { attemptTraceIds, traceparent, TRACEPARENT, type AttemptTraceIds } from '../../domain/trace-context.js';
import type { ClaimedExecution, MissedOccurrences } from '../../domain/types.js';
import { prepareSecrets, refreshedAuthorization, type CallSecretsOptions } from './secrets.js';
import type { DeadlineSweeper } from './deadlines.js';
import { parseRetryAfter } from './retry.js';
import type { WebhookSigner } from './signing.js';
import { literalHostProblem, type EndpointPolicy } from '../../net/ssrf.js';
import { sendCall, type CallRequest, type CallResult } from './send.js';
export type { CallRequest, CallResult } from './send.js';

export { RESPONSE_EXCERPT_BYTES, sendCall } from './send.js';

/** Options of {@link deliver}. */
export interface DeliverOptions {
  /** undici dispatcher (an `Agent`: connection pools per origin, keep-alive). */
  dispatcher: Dispatcher;
  /** Signs each call (Standard Webhooks). */
  signer: WebhookSigner;
  /**
   * The SSRF guard's policy, for IP-literal hosts (which connect without a lookup); host names
   * are checked by the dispatcher's lookup (see http-agent.ts). Absent: no check here.
   */
  policy?: EndpointPolicy;
  /** `User-Agent` header, e.g. `Punctual/0.1.0`. */
  userAgent: string;
  /** Clock reading epoch ms, for `startedAt`. */
  now: () => number;
  /**
   * Aborts the call at the job's `timeoutMs` (deadlines.ts: one timer, a few aborts per turn, so
   * that many calls timing out together do not stall the event loop). Absent: a timer per call.
   */
  deadlines?: DeadlineSweeper;
  /** Opens job secrets and authenticates to targets (dispatch/call/secrets.ts); absent: jobs are called without them. */
  secrets?: CallSecretsOptions;
  /**
   * The sampled flag of each attempt's `traceparent` (domain/trace-context.ts): true when the
   * attempts' spans are exported (`OTEL_EXPORTER_OTLP_ENDPOINT`), else false (absent: false).
   */
  tracesSampled?: boolean;
}

/** Content type of a `body` given as text when the job's headers name none (docs/calls.md). */
export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** The body of a call (null: none) and its content type (null when there is no body). */
export interface CallBody {
  body: string | null;
  contentType: string | null;
}

/**
 * The body a claim's call sends and its content type (docs/calls.md, "Method, headers and body"):
 * none for `GET` and `HEAD`; else the job's `body` as it is, typed by the job's `content-type`
 * header (any case) or {@link TEXT_CONTENT_TYPE}; else the JSON of `data`, `application/json`.
 * @returns `body` null when the call has none, and then `contentType` null
 */
export function callBody(claim: Pick<ClaimedExecution, 'method' | 'body' | 'data' | 'headers'>): CallBody {
  if (BODILESS_METHODS.includes(claim.method)) return { body: null, contentType: null };
  if (claim.body !== null) return { body: claim.body, contentType: headerValue(claim.headers, 'content-type') ?? TEXT_CONTENT_TYPE };
  return { body: JSON.stringify(claim.data), contentType: 'application/json' };
}

/**
 * The headers of one attempt: the content type of its body (see {@link callBody}), the user
 * agent, the job's own headers (which may replace those two, in any case; the others it cannot
 * set, see domain/headers.ts), the Standard Webhooks trio over the body sent (the empty string
 * when there is none; `webhook-id` is the execution id, identical on every attempt so receivers
 * can deduplicate) and Punctual's own `Punctual-Job-Type`, `Punctual-Job-Id`,
 * `Punctual-Scheduled-For` (ISO 8601, UTC; stable across retries) and `Punctual-Attempt`
 * (1-based); and, on every attempt of an execution that stands for several missed occurrences,
 * `Punctual-Missed-Occurrences` ({@link missedOccurrencesHeader}); and the attempt's W3C
 * `traceparent` when `opts.traceparent` is given (a job's own `traceparent` or `tracestate`, stored
 * before those names were refused, is then dropped: the trace context is the attempt's).
 *
 * Built into one object, without copies of the claim or of its headers: this runs once per call
 * (the burst profile of docs/benchmarks.md).
 * @param call the body sent and its content type ({@link callBody})
 * @param extra headers added to the job's own for this call (its secret headers and
 *   `authorization`, dispatch/call/secrets.ts), as if the job had them; a name given in both takes `extra`'s value
 */
export function attemptHeaders(
  claim: ClaimedExecution,
  call: CallBody,
  nowMs: number,
  opts: Pick<DeliverOptions, 'signer' | 'userAgent'> & { traceparent?: string },
  extra?: Readonly<Record<string, string>>,
): Record<string, string> {
  const { body, contentType } = call;
  let ownType = false;
  let ownAgent = false;
  let ownTrace = false;
  const check = (from: Readonly<Record<string, string>>): void => {
    for (const name in from) {
      const lower = name.toLowerCase();
      if (lower === 'content-type') ownType = true;
      else if (lower === 'user-agent') ownAgent = true;
      else if (lower === TRACEPARENT || lower === 'tracestate') ownTrace = true;
    }
  };
  check(claim.headers);
  if (extra) check(extra);
  // Spread, not Object.assign: a job's header is an own property whatever its name (`__proto__` too).
  const headers: Record<string, string> = {
    ...(contentType !== null && !ownType && { 'content-type': contentType }),
    ...(!ownAgent && { 'user-agent': opts.userAgent }),
    ...claim.headers,
    ...extra,
  };
  opts.signer.sign(headers, claim.executionId, nowMs, body ?? '');
  headers['punctual-job-type'] = claim.jobType;
  headers['punctual-job-id'] = claim.jobId;
  headers['punctual-scheduled-for'] = toIso(claim.scheduledFor);
  headers['punctual-attempt'] = String(claim.attempt);
  if (claim.missedOccurrences) headers['punctual-missed-occurrences'] = missedOccurrencesHeader(claim.missedOccurrences);
  if (opts.traceparent !== undefined) {
    if (ownTrace) for (const name in headers) if (/^trace(parent|state)$/i.test(name)) delete headers[name];
    headers[TRACEPARENT] = opts.traceparent;
  }
  return headers;
}

/**
 * The value of `Punctual-Missed-Occurrences` (docs/calls.md): `count=<n>; first=<ISO 8601>;
 * last=<ISO 8601>; capped=<true|false>`, instants in UTC with ms and `Z`, in this order, parts
 * separated by `; `. `count` includes the occurrence the call is for (`first`), so it is >= 2;
 * `capped=true` means more were missed than the 1,000 counted.
 */
export function missedOccurrencesHeader(m: MissedOccurrences): string {
  return `count=${m.count}; first=${toIso(m.first)}; last=${toIso(m.last)}; capped=${m.capped}`;
}

/**
 * What one attempt produced: the call's result, with its timing (epoch ms, UTC, and ms), the
 * `Retry-After` delay read from it (ms, or null) and its trace ids (those of the `traceparent` it
 * sent, also when it sent nothing: a refused call is a span of the trace too). `refused`: such an
 * attempt is never retried.
 */
export interface AttemptResult extends Omit<CallResult, 'retryAfter'>, AttemptTraceIds {
  startedAt: number;
  durationMs: number;
  /** Delay asked by a `Retry-After` header (ms), or null. */
  retryAfterMs: number | null;
}

/** Sends calls elsewhere than on this thread: the slow lane (slow-lane.ts). */
export interface CallSender {
  /** Sends `req`; never rejects (failures are described in the result). */
  send(req: CallRequest): Promise<CallResult>;
}

/**
 * Makes one attempt of a claimed execution: a signed call with the job's method, headers and
 * body ({@link callBody}) to its endpoint, within the job's `timeoutMs` (connect, headers and the
 * body excerpt), through {@link sendCall} here or, when `lane` is given, on the slow lane's
 * thread. A 3xx is a failed attempt (redirects are not followed). Each attempt carries a
 * `traceparent` of its own (domain/trace-context.ts): the execution's trace id, a new span id
 * (the same on the call made again after a 401 with OAuth 2.0: one attempt, one span). Never
 * throws: every failure is described in the result.
 * @param lane sends the call from another thread (calls to slow origins; see slow-lane.ts)
 */
export async function deliver(claim: ClaimedExecution, opts: DeliverOptions, lane?: CallSender): Promise<AttemptResult> {
  const startedAt = opts.now();
  const t0 = performance.now();
  const { traceId, spanId } = attemptTraceIds(claim.executionId);
  const failed = (error: string, refused: boolean): AttemptResult => {
    const durationMs = Math.round(performance.now() - t0);
    return { startedAt, durationMs, statusCode: null, ok: false, error, responseBody: null, retryAfterMs: null, refused, timedOut: false, traceId, spanId };
  };
  const refusedBy = opts.policy ? literalHostProblem(claim.endpoint, opts.policy) : null;
  if (refusedBy !== null) return failed(`refused: ${refusedBy}`, true);
  // A job without secrets (most) needs no turn of the event loop here.
  const prepared = opts.secrets && (claim.secrets !== null || claim.auth !== null) ? await prepareSecrets(claim, opts.secrets) : null;
  if (prepared !== null && 'error' in prepared) return failed(prepared.error, prepared.permanent);
  const call = callBody(claim);
  const signer = prepared?.signer ?? opts.signer;
  const signing = { signer, userAgent: opts.userAgent, traceparent: traceparent({ traceId, spanId }, opts.tracesSampled === true) };
  const request = (extra?: Record<string, string>): CallRequest => ({
    endpoint: claim.endpoint,
    method: claim.method,
    headers: attemptHeaders(claim, call, startedAt, signing, extra),
    body: call.body,
    timeoutMs: claim.timeoutMs,
  });
  const send = (req: CallRequest) => (lane ? lane.send(req) : sendCall(req, opts.dispatcher, opts.deadlines));
  let answer = await send(request(prepared?.headers));
  // A 401 with an OAuth 2.0 token: the token is dropped and the call made once more with a new one.
  if (answer.statusCode === 401 && prepared?.oauth && opts.secrets) {
    const authorization = await refreshedAuthorization(prepared.oauth, opts.secrets, claim.timeoutMs);
    if (typeof authorization !== 'string') return failed(authorization.error, authorization.permanent);
    answer = await send(request({ ...prepared.headers, authorization }));
  }
  const { retryAfter } = answer;
  return {
    startedAt,
    durationMs: Math.round(performance.now() - t0),
    statusCode: answer.statusCode,
    ok: answer.ok,
    error: answer.error,
    responseBody: answer.responseBody,
    refused: answer.refused,
    timedOut: answer.timedOut,
    retryAfterMs: retryAfter === null ? null : parseRetryAfter(retryAfter, opts.now()),
    traceId,
    spanId,
  };
}
