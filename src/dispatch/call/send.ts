/**
 * Sending one call (a signed request built by deliver.ts) over an undici dispatcher, on the event
 * loop's thread or on the slow lane's (slow-lane-worker.ts).
 *
 * Through `Dispatcher.dispatch` with a handler of our own (undici docs, Dispatcher.dispatch,
 * `DispatchHandler`), not `undici.request`: the handler keeps the status, the `Retry-After` header
 * and the first bytes of the body as they come, where `request` builds a response stream per call
 * (a `Readable`, its events, an async iterator to read it) and an `AsyncResource`. In the burst
 * profile of docs/benchmarks.md those streams were about a sixth of the event loop's time.
 */
import type { Dispatcher } from 'undici';
import type { HttpMethod } from '../../domain/types.js';
import { DeadlineSignal, type DeadlineSweeper } from './deadlines.js';
import { SSRF_REFUSED } from '../../net/ssrf.js';

/** One signed call, ready to send: what crosses to the slow lane's thread (slow-lane.ts). */
export interface CallRequest {
  endpoint: string;
  method: HttpMethod;
  /** From `attemptHeaders` (deliver.ts). */
  headers: Record<string, string>;
  /** From `callBody` (deliver.ts): null for none. */
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

/** Bytes of the response body kept with an attempt: the first 1 KiB (docs/calls.md). */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** How long past a call's timeout undici's own header and body timers fire, as a backstop (ms). */
const BACKSTOP_MS = 1_000;

/** Why a call stopped reading its answer once the excerpt was full (never reported: the answer counts). */
const EXCERPT_FULL = 'the response excerpt is full';

/**
 * One call's handler: records the answer's status, its `Retry-After` and the first
 * {@link RESPONSE_EXCERPT_BYTES} of its body, and settles once: at the end of the body, when the
 * excerpt is full (the rest is not read: the connection is aborted), or on an error. An error
 * after the answer's head (the body cut short, or the deadline passed while it came) keeps the
 * status and what arrived, as a call that was answered.
 */
class CallHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private statusCode: number | null = null;
  private retryAfter: string | null = null;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  private readonly onAbort = (): void => this.controller?.abort(this.signal.reason as Error);

  /**
   * @param signal aborts the call (its deadline); listened to until the call settles
   * @param done told of the result, once
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly signal: DeadlineSignal,
    private readonly done: (result: CallResult) => void,
  ) {
    signal.once('abort', this.onAbort);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal.aborted) controller.abort(this.signal.reason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the answer is still to come
    this.statusCode = statusCode;
    const header = headers['retry-after'];
    this.retryAfter = (Array.isArray(header) ? header[0] : header) ?? null;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size < RESPONSE_EXCERPT_BYTES) return;
    this.answered();
    controller.abort(new Error(EXCERPT_FULL)); // a huge body is not read
  }

  onResponseEnd(): void {
    this.answered();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    if (this.statusCode !== null) {
      this.answered(); // a body cut short still leaves the status code; keep what arrived
      return;
    }
    this.settle(failure(err, this.timeoutMs));
  }

  private answered(): void {
    if (this.settled) return;
    const statusCode = this.statusCode!;
    const ok = statusCode >= 200 && statusCode < 300;
    const body = this.size === 0 ? null : this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const responseBody = body === null ? null : body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
    this.settle({ statusCode, ok, error: ok ? null : `HTTP ${statusCode}`, responseBody, retryAfter: this.retryAfter, refused: false, timedOut: false });
  }

  private settle(result: CallResult): void {
    this.settled = true;
    this.signal.off('abort', this.onAbort);
    this.done(result);
  }
}

/**
 * Sends one call over `dispatcher`: `req.method` with `req.body` (none when null) within
 * `req.timeoutMs` (connect, headers and the body excerpt), aborted by `deadlines` (or a timer of
 * its own). Redirects are never followed (`dispatch` follows none unless a redirect interceptor
 * is installed). Never rejects: every failure is described in the result.
 */
export function sendCall(req: CallRequest, dispatcher: Dispatcher, deadlines?: DeadlineSweeper): Promise<CallResult> {
  const { timeoutMs } = req;
  return new Promise<CallResult>((resolve) => {
    let url: URL;
    try {
      url = new URL(req.endpoint);
    } catch (err) {
      resolve(failure(err, timeoutMs));
      return;
    }
    const deadline = deadlines?.add(timeoutMs) ?? ownDeadline(timeoutMs);
    const handler = new CallHandler(timeoutMs, deadline.signal, (result) => {
      deadline.clear();
      resolve(result);
    });
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers: req.headers,
        body: req.body,
        // undici's own timers only back the deadline up (they would all fire in the same turn).
        headersTimeout: timeoutMs + BACKSTOP_MS,
        bodyTimeout: timeoutMs + BACKSTOP_MS,
      },
      handler,
    );
  });
}

/** A deadline of its own (a timer) for a call sent without a {@link DeadlineSweeper}. */
function ownDeadline(timeoutMs: number): { signal: DeadlineSignal; clear(): void } {
  const signal = new DeadlineSignal();
  const timer = setTimeout(() => signal.abort(new DOMException('The call reached its timeout', 'TimeoutError')), timeoutMs);
  return { signal, clear: () => clearTimeout(timer) };
}

/** The result of a call that got no answer: refused by the SSRF guard, timed out, or failed. */
function failure(err: unknown, timeoutMs: number): CallResult {
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
