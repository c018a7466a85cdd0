import { request, type Dispatcher } from 'undici';
import { toIso } from '../domain/time.js';
import { BODILESS_METHODS } from '../domain/enums.js';
import { headerValue } from '../domain/headers.js';
import type { ClaimedExecution, HttpMethod, MissedOccurrences } from '../domain/types.js';
import { prepareSecrets, refreshedAuthorization, type CallSecretsOptions } from './call-secrets.js';
import type { DeadlineSweeper } from './deadlines.js';
import { parseRetryAfter } from './retry.js';
import type { WebhookSigner } from './signing.js';
import { literalHostProblem, SSRF_REFUSED, type EndpointPolicy } from '../net/ssrf.js';

/** Bytes of the response body kept with an attempt: the first 1 KiB (docs/calls.md). */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** How long past a call's timeout undici's own header and body timers fire, as a backstop (ms). */
const BACKSTOP_MS = 1_000;

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
  /** Opens job secrets and authenticates to targets (call-secrets.ts); absent: jobs are called without them. */
  secrets?: CallSecretsOptions;
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
 * `Punctual-Missed-Occurrences` ({@link missedOccurrencesHeader}).
 * @param call the body sent and its content type ({@link callBody})
 */
export function attemptHeaders(
  claim: ClaimedExecution,
  call: CallBody,
  nowMs: number,
  opts: Pick<DeliverOptions, 'signer' | 'userAgent'>,
): Record<string, string> {
  const { body, contentType } = call;
  const base: Record<string, string> = { ...(contentType !== null && { 'content-type': contentType }), 'user-agent': opts.userAgent };
  for (const name of Object.keys(claim.headers)) {
    const lower = name.toLowerCase();
    if (lower in base) delete base[lower];
  }
  return {
    ...base,
    ...claim.headers,
    ...opts.signer.headers(claim.executionId, nowMs, body ?? ''),
    'punctual-job-type': claim.jobType,
    'punctual-job-id': claim.jobId,
    'punctual-scheduled-for': toIso(claim.scheduledFor),
    'punctual-attempt': String(claim.attempt),
    ...(claim.missedOccurrences && { 'punctual-missed-occurrences': missedOccurrencesHeader(claim.missedOccurrences) }),
  };
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

/** One signed call, ready to send: what crosses to the slow lane's thread (slow-lane.ts). */
export interface CallRequest {
  endpoint: string;
  method: HttpMethod;
  /** From {@link attemptHeaders}. */
  headers: Record<string, string>;
  /** From {@link callBody}: null for none. */
  body: string | null;
  /** The job's `timeoutMs`: connect, headers and the body excerpt. */
  timeoutMs: number;
}

/** What a call produced, without its timing (the caller measures that). */
export interface CallResult {
  /** HTTP status, or null when no answer came. */
  statusCode: number | null;
  /** Why the call failed (connection error, timeout, non-2xx), or null on success. */
  error: string | null;
  /** First {@link RESPONSE_EXCERPT_BYTES} bytes of the body, decoded as UTF-8, or null. */
  responseBody: string | null;
  /** The answer's `Retry-After` header as sent (first value), or null. */
  retryAfter: string | null;
  ok: boolean;
  /** True when the SSRF guard's lookup refused the destination. */
  refused: boolean;
  /** True when no answer came within `timeoutMs` (the call was aborted). */
  timedOut: boolean;
}

/**
 * What one attempt produced: the call's result, with its timing (epoch ms, UTC, and ms) and the
 * `Retry-After` delay read from it (ms, or null). `refused`: such an attempt is never retried.
 */
export interface AttemptResult extends Omit<CallResult, 'retryAfter'> {
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
 * Sends one call over `dispatcher`: `req.method` with `req.body` (none when null) within `req.timeoutMs`, aborted by
 * `deadlines` (or a timer of its own). Redirects are never followed (undici's `request` follows
 * none unless a redirect interceptor is installed). Runs on the event loop's thread and on the
 * slow lane's. Never throws: every failure is described in the result.
 */
export async function sendCall(req: CallRequest, dispatcher: Dispatcher, deadlines?: DeadlineSweeper): Promise<CallResult> {
  const { timeoutMs } = req;
  const deadline = deadlines?.add(timeoutMs);
  try {
    const res = await request(req.endpoint, {
      method: req.method,
      dispatcher,
      headers: req.headers,
      ...(req.body !== null && { body: req.body }),
      signal: deadline?.signal ?? AbortSignal.timeout(timeoutMs),
      // undici's own timers only back the deadline up (they would all fire in the same turn).
      headersTimeout: timeoutMs + BACKSTOP_MS,
      bodyTimeout: timeoutMs + BACKSTOP_MS,
    });
    const header = res.headers['retry-after'];
    const retryAfter = (Array.isArray(header) ? header[0] : header) ?? null;
    const responseBody = await readExcerpt(res.body);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return { statusCode: res.statusCode, ok, error: ok ? null : `HTTP ${res.statusCode}`, responseBody, retryAfter, refused: false, timedOut: false };
  } catch (err) {
    const refused = errorCode(err) === SSRF_REFUSED;
    const timedOut = !refused && isTimeout(err);
    return {
      statusCode: null,
      ok: false,
      error: refused ? (err as Error).message : timedOut ? `timeout after ${timeoutMs} ms` : describeError(err),
      responseBody: null,
      retryAfter: null,
      refused,
      timedOut,
    };
  } finally {
    deadline?.clear();
  }
}

/**
 * Makes one attempt of a claimed execution: a signed call with the job's method, headers and
 * body ({@link callBody}) to its endpoint, within the job's `timeoutMs` (connect, headers and the
 * body excerpt), through {@link sendCall} here or, when `lane` is given, on the slow lane's
 * thread. A 3xx is a failed attempt (redirects are not followed). Never throws: every failure is
 * described in the result.
 * @param lane sends the call from another thread (calls to slow origins; see slow-lane.ts)
 */
export async function deliver(claim: ClaimedExecution, opts: DeliverOptions, lane?: CallSender): Promise<AttemptResult> {
  const startedAt = opts.now();
  const t0 = performance.now();
  const failed = (error: string, refused: boolean): AttemptResult => {
    const durationMs = Math.round(performance.now() - t0);
    return { startedAt, durationMs, statusCode: null, ok: false, error, responseBody: null, retryAfterMs: null, refused, timedOut: false };
  };
  const refusedBy = opts.policy ? literalHostProblem(claim.endpoint, opts.policy) : null;
  if (refusedBy !== null) return failed(`refused: ${refusedBy}`, true);
  const prepared = opts.secrets ? await prepareSecrets(claim, opts.secrets) : null;
  if (prepared !== null && 'error' in prepared) return failed(prepared.error, prepared.permanent);
  const call = callBody(claim);
  const signer = prepared?.signer ?? opts.signer;
  const request = (extra: Record<string, string>): CallRequest => ({
    endpoint: claim.endpoint,
    method: claim.method,
    headers: attemptHeaders({ ...claim, headers: { ...claim.headers, ...extra } }, call, startedAt, { signer, userAgent: opts.userAgent }),
    body: call.body,
    timeoutMs: claim.timeoutMs,
  });
  const send = (req: CallRequest) => (lane ? lane.send(req) : sendCall(req, opts.dispatcher, opts.deadlines));
  let answer = await send(request(prepared?.headers ?? {}));
  // A 401 with an OAuth 2.0 token: the token is dropped and the call made once more with a new one.
  if (answer.statusCode === 401 && prepared?.oauth && opts.secrets) {
    const authorization = await refreshedAuthorization(prepared.oauth, opts.secrets, claim.timeoutMs);
    if (typeof authorization !== 'string') return failed(authorization.error, authorization.permanent);
    answer = await send(request({ ...prepared.headers, authorization }));
  }
  const { retryAfter, ...result } = answer;
  return {
    startedAt,
    durationMs: Math.round(performance.now() - t0),
    ...result,
    retryAfterMs: retryAfter === null ? null : parseRetryAfter(retryAfter, opts.now()),
  };
}

/** Reads at most RESPONSE_EXCERPT_BYTES of a body, then drops the rest (a huge body is not read). */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES) break;
    }
  } catch {
    // A body cut short still leaves the status code; keep what arrived.
  } finally {
    body.destroy();
  }
  if (size === 0) return null;
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
}

/** The `code` of an error or of its `cause` (undici wraps socket errors). */
function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
}

/** Whether `err` is the abort of a call at its deadline (or one of undici's backstop timeouts). */
function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError' || /timeout/i.test(err.name));
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const cause = (err as { cause?: { code?: unknown; message?: string } }).cause;
    const detail = typeof code === 'string' ? code : typeof cause?.code === 'string' ? cause.code : err.name;
    return `${detail}: ${err.message}`.slice(0, 500);
  }
  return String(err).slice(0, 500);
}
