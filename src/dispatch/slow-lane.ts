/**
 * The slow lane (docs/calls.md, "Slow and hung endpoints"): calls to hung origins (launch-queue.ts) are sent from a
 * worker thread of their own, with its own undici `Agent` (connection pools per origin, the SSRF
 * guard's lookup) and its own deadlines, so that what such calls cost never runs on the event loop
 * that starts the healthy calls.
 *
 * Why. A call to an origin that has not answered the previous one needs a new connection, and
 * opening it, writing the request and, a timeout later, tearing it down is synchronous work on
 * the thread that made the call: 0.3–1 ms each on the 2-core machine of docs/benchmarks.md. In
 * test/e2e/isolation.test.ts, with the store's work already on its own thread (src/store/sqlite/dispatch-thread.ts),
 * the healthy calls that were still late came exactly at the hangers' waves (200–230 and
 * 500–530 ms into the window) and at their timeouts (930–990 ms).
 *
 * Which calls. The launch queue decides (launch-queue.ts): a call goes here when its origin is
 * hung, i.e. a call to it reached its timeout within {@link HUNG_MEMORY_MS} and none has been
 * answered since. An origin that answers slowly stays on the event loop's thread (see
 * HUNG_MEMORY_MS for why). The event loop still signs each call (the secret stays on
 * the main thread), reads the clock for `startedAt` and records the outcome; the thread only
 * sends. A thread that dies fails the calls it held (a retryable attempt, the same execution) and
 * later calls are sent from the main thread.
 *
 * Priority. The thread runs at nice 19 (Linux; slow-lane-worker.ts): moved off the event loop's
 * thread but not off a 2-core machine, the hangers' work still took the CPU from the event loop
 * at each wave (the isolation test failed 2 runs of 5); at nice 19 it uses spare CPU, and 15 runs
 * of 15 held. Figures: docs/benchmarks.md, "Isolation".
 */
import type { Worker } from 'node:worker_threads';
import type { CallRequest, CallResult, CallSender } from './call/deliver.js';
import { policyToData, type EndpointPolicy, type EndpointPolicyData } from '../net/ssrf.js';
import { startWorker } from '../runtime/worker-start.js';

/** What the slow lane's thread is started with. */
export interface SlowLaneWorkerData {
  /** The SSRF guard's policy, or null for no guard. */
  policy: EndpointPolicyData | null;
  /** TCP connect timeout (ms). */
  connectTimeoutMs: number;
}

/** A message to the thread. */
export type SlowLaneRequest = { type: 'send'; id: number; req: CallRequest } | { type: 'close'; destroy: boolean };

/** A message from the thread: a call's result, or the answer to `close`. */
export type SlowLaneReply = { type: 'result'; id: number; result: CallResult } | { type: 'closed' };

/** Options of {@link SlowLane}. */
export interface SlowLaneOptions {
  /** The SSRF guard's policy; absent: no guard (as the dispatcher without a policy). */
  policy?: EndpointPolicy;
  /** TCP connect timeout of the calls (ms). */
  connectTimeoutMs: number;
  /** Sends a call from the main thread once the lane's thread has died. */
  fallback: (req: CallRequest) => Promise<CallResult>;
  /** Told once when the thread dies. */
  logger?: { error(obj: object, msg?: string): void };
}

/** A call's result when the thread died before answering (retryable: no status code). */
function threadEnded(message: string): CallResult {
  return { statusCode: null, ok: false, error: `delivery thread ended: ${message}`, responseBody: null, retryAfter: null, refused: false, timedOut: false };
}

/**
 * Sends calls from the slow lane's thread (see above). The thread starts with the first call, so
 * a service whose endpoints all answer never runs it.
 */
export class SlowLane implements CallSender {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (result: CallResult) => void>();
  private nextId = 1;
  private dead: Error | null = null;
  private closing: Promise<void> | null = null;
  private onClosed: (() => void) | null = null;

  /** Calls sent so far (from the thread or, once it is gone, from the fallback). */
  sent = 0;

  constructor(private readonly opts: SlowLaneOptions) {}

  /** The thread, started at the first call. */
  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const data: SlowLaneWorkerData = { policy: this.opts.policy ? policyToData(this.opts.policy) : null, connectTimeoutMs: this.opts.connectTimeoutMs };
    const worker = startWorker('slow-lane-worker', import.meta.url, data);
    this.worker = worker;
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`exited (code ${code})`)));
    worker.on('message', (m: SlowLaneReply) => {
      if (m.type === 'closed') {
        this.onClosed?.();
        return;
      }
      const resolve = this.waiting.get(m.id);
      if (resolve === undefined) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) worker.unref();
      resolve(m.result);
    });
    return worker;
  }

  /** Calls sent to the thread and not answered yet. */
  get size(): number {
    return this.waiting.size;
  }

  /** Sends `req` from the thread (from the main thread once the thread is gone). Never rejects. */
  send(req: CallRequest): Promise<CallResult> {
    this.sent++;
    if (this.dead !== null || this.closing !== null) return this.opts.fallback(req);
    const worker = this.thread();
    const id = this.nextId++;
    worker.ref(); // keeps the process alive while an answer is due (unref'd when none is)
    return new Promise<CallResult>((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ type: 'send', id, req } satisfies SlowLaneRequest);
    });
  }

  /**
   * Ends the thread: its pools are closed (`destroy`: at once, failing the calls in flight;
   * otherwise after the calls in flight have ended), then the thread is terminated. Idempotent.
   */
  close(destroy = false): Promise<void> {
    this.closing ??= (async () => {
      const worker = this.worker;
      if (worker === null) return;
      if (this.dead === null) {
        const closed = new Promise<void>((resolve) => (this.onClosed = resolve));
        worker.ref();
        worker.postMessage({ type: 'close', destroy } satisfies SlowLaneRequest);
        await Promise.race([closed, new Promise<void>((resolve) => worker.once('exit', () => resolve()))]);
      }
      await worker.terminate();
    })();
    return this.closing;
  }

  private fail(err: Error): void {
    if (this.dead !== null) return;
    this.dead = err;
    if (this.closing === null) this.opts.logger?.error({ err }, 'dispatch: the slow lane thread ended; its calls are retried, later ones sent from the main thread');
    for (const resolve of this.waiting.values()) resolve(threadEnded(err.message));
    this.waiting.clear();
  }
}
