/**
 * The calls of claimed work: started a few per turn in launch-queue.ts's order, sent over the
 * event loop's HTTP pools or, for hung origins, from the slow lane's thread (slow-lane.ts), and
 * tracked until they end.
 */
import type { SecretDecryptError } from '../secrets/errors.js';
import type { KeyRing } from '../secrets/key-ring.js';
import { OAuthTokens } from './call/target-auth.js';
import type { Dispatcher as HttpDispatcher } from 'undici';
import type { ClaimedExecution } from '../domain/types.js';
import { DeadlineSweeper } from './call/deadlines.js';
import { deliver, sendCall, type AttemptResult, type DeliverOptions } from './call/deliver.js';
import type { DispatchLogger } from './logger.js';
import { createHttpAgent } from './call/http-agent.js';
import { LaunchQueue } from './launch-queue.js';
import { SlowLane } from './slow-lane.js';
import type { WebhookSigner } from './call/signing.js';
import type { EndpointPolicy } from '../net/ssrf.js';

/** A claimed call waiting in the launch queue. */
interface Pending {
  claim: ClaimedExecution;
  origin: string;
}

/** The origin of an endpoint (validated at create; '' should it not parse). */
function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return '';
  }
}

/** Options of {@link Calls}. Durations in ms. */
export interface CallsOptions {
  logger: DispatchLogger;
  /** `User-Agent` of outgoing calls. */
  userAgent: string;
  signer: WebhookSigner;
  /** Current time as the store reckons it (epoch ms, UTC), for `startedAt` and `webhook-timestamp`. */
  now: () => number;
  /** TCP connect timeout of outgoing calls. */
  connectTimeoutMs: number;
  /** The SSRF guard's policy (see `DispatcherOptions.policy`); absent: no guard. */
  policy?: EndpointPolicy;
  /** undici dispatcher for outgoing calls; by default an `Agent` of http-agent.ts, closed by {@link Calls.close}. */
  http?: HttpDispatcher;
  /** Send the calls to hung origins from the slow lane's thread (slow-lane.ts). */
  slowLane: boolean;
  /** Opens job secrets (dispatch/call/secrets.ts); null: a job with secrets fails its attempts. */
  keyRing: KeyRing | null;
  /** Told of each job secret that could not be opened. */
  onSecretFailure?: (error: SecretDecryptError) => void;
  /** The sampled flag of each attempt's `traceparent` (`DeliverOptions.tracesSampled`). */
  tracesSampled?: boolean;
  /** Told of each attempt's result, unless its lease was handed back first ({@link Calls.drain}). */
  onResult(claim: ClaimedExecution, result: AttemptResult): void;
  /** Told after each call ended (its place is free), whether its result was told or not. */
  onEnded(): void;
}

/** The calls of claimed work (see above): in flight, and waiting to start. */
export class Calls {
  private readonly deadlines = new DeadlineSweeper();
  private readonly http: HttpDispatcher;
  private readonly ownsHttp: boolean;
  /** Sends the calls to hung origins from a thread of its own, when enabled. */
  private readonly slowLane: SlowLane | null;
  private readonly deliverOptions: DeliverOptions;
  /** Claimed calls not started yet: a few start per turn, slow origins last (launch-queue.ts). */
  private readonly queue = new LaunchQueue<Pending>((p, hung) => this.launch(p, hung));
  /** Calls in flight, with the claim each one works on. */
  private readonly inFlight = new Map<Promise<void>, ClaimedExecution>();
  /** Set by `drain()` at its deadline: calls finishing later are handed back, not told. */
  private handedBack = false;

  constructor(private readonly opts: CallsOptions) {
    this.ownsHttp = opts.http === undefined;
    const { connectTimeoutMs } = opts;
    this.http = opts.http ?? createHttpAgent({ ...(opts.policy && { policy: opts.policy }), connectTimeoutMs });
    this.slowLane = opts.slowLane
      ? new SlowLane({
          ...(opts.policy && { policy: opts.policy }),
          connectTimeoutMs,
          fallback: (req) => sendCall(req, this.http, this.deadlines),
          logger: opts.logger,
        })
      : null;
    this.deliverOptions = {
      dispatcher: this.http,
      signer: opts.signer,
      ...(opts.policy && { policy: opts.policy }),
      userAgent: opts.userAgent,
      now: () => opts.now(),
      deadlines: this.deadlines,
      tracesSampled: opts.tracesSampled === true,
      secrets: {
        keyRing: opts.keyRing,
        // Tokens are fetched through the same guarded agent as the calls (the SSRF policy applies).
        tokens: new OAuthTokens({ dispatcher: this.http, ...(opts.policy && { policy: opts.policy }), now: () => opts.now() }),
        ...(opts.onSecretFailure && { onSecretFailure: opts.onSecretFailure }),
      },
    };
  }

  /** Calls in flight now, counting claimed calls not started yet. */
  get callsInFlight(): number {
    return this.inFlight.size + this.queue.size;
  }

  /** Claimed calls not started yet. */
  get queued(): number {
    return this.queue.size;
  }

  /** Calls sent through the slow lane so far (0 without it). */
  get slowLaneCalls(): number {
    return this.slowLane?.sent ?? 0;
  }

  /** Calls to hung origins in flight now on the slow lane's thread (0 without the lane). */
  get hungCallsInFlight(): number {
    return this.slowLane?.size ?? 0;
  }

  /** Queues claimed calls, in claim order; they start over the next turns. */
  push(claims: ClaimedExecution[]): void {
    this.queue.push(claims.map((claim) => ({ claim, origin: originOf(claim.endpoint) })));
  }

  /**
   * Takes the calls not started yet out of the queue, waits up to `graceMs` for the calls in
   * flight, then hands back every call still unfinished: their results, should they come, are no
   * longer told.
   * @returns the executions of the calls unstarted or unfinished at the deadline
   */
  async drain(graceMs: number): Promise<string[]> {
    // Claimed but never started: handed back with the calls that outlive the grace period.
    const unstarted = this.queue.takeAll().map((p) => p.claim);
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.keys()]),
      new Promise<void>((resolve) => {
        deadline = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(deadline);
    const handBack = [...this.inFlight.values(), ...unstarted].map((c) => c.executionId);
    this.handedBack = true;
    return handBack;
  }

  /** Closes the deadlines, the slow lane and the HTTP pools; `abort`: calls still open are cut. */
  async close(abort: boolean): Promise<void> {
    this.deadlines.close();
    await this.slowLane?.close(abort);
    if (this.ownsHttp) await (abort ? this.http.destroy() : this.http.close());
  }

  /** Starts one call: from the slow lane's thread when `hung` and the lane is enabled, else here. */
  private launch(pending: Pending, hung: boolean): void {
    const { claim } = pending;
    let ending: 'timedOut' | 'answered' | 'other' = 'other';
    const call = (async () => {
      const result = await deliver(claim, this.deliverOptions, hung && this.slowLane ? this.slowLane : undefined);
      ending = result.timedOut ? 'timedOut' : result.statusCode !== null ? 'answered' : 'other';
      if (this.handedBack) return; // its lease was handed back: another attempt follows
      this.opts.onResult(claim, result);
    })();
    this.inFlight.set(call, claim);
    void call.finally(() => {
      this.inFlight.delete(call);
      this.queue.finished(pending, ending);
      this.opts.onEnded();
    });
  }
}
