import type { KeyRing } from '../secrets/key-ring.js';
import type { Dispatcher as HttpDispatcher } from 'undici';
import type { Clock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import type { DispatchStore } from '../store/contract/dispatch.js';
import { Calls } from './calls.js';
import { ClaimLoop } from './claim-loop.js';
import { DispatcherEvents } from './events.js';
import { CLAIM_AHEAD_MS, HeldCalls } from './held-calls.js';
import { attemptOutcome } from './call/outcome.js';
import { OutcomeWriter } from './call/outcome-writer.js';
import type { WebhookSigner } from './call/signing.js';
import type { EndpointPolicy } from '../net/ssrf.js';
import type { DispatchLogger } from './logger.js';

export type { DispatchLogger } from './logger.js';

/** Options of {@link Dispatcher}. Durations in ms. */
export interface DispatcherOptions {
  /** The store's dispatch operations (a whole `Store` will do). */
  store: DispatchStore;
  clock: Clock;
  logger: DispatchLogger;
  /** `User-Agent` of outgoing calls, `Punctual/<version>`. */
  userAgent: string;
  /** Signs every call (Standard Webhooks). */
  signer: WebhookSigner;
  /** Identifies this process in leases; a fresh UUID by default. */
  nodeId?: string;
  /** TCP connect timeout of outgoing calls (default 10,000; a job's `timeoutMs` bounds the whole call). */
  connectTimeoutMs?: number;
  /** A cron occurrence claimed later than this is a misfire (default 60,000; see Store.claimDue). */
  misfireThresholdMs?: number;
  /** Uniform random numbers in [0, 1) for backoff jitter; injectable for tests. */
  random?: () => number;
  /** Calls in flight at most (default 512). */
  maxInFlight?: number;
  /** Items per claim at most (default 256). */
  batchSize?: number;
  /**
   * Longest sleep between two looks at the store (default 5,000), so work written by another
   * process (the CLI, another node) is found even without a wake-up.
   */
  maxSleepMs?: number;
  /**
   * Claim work due within this many ms ahead and hold it until its instant (held-calls.ts;
   * default {@link CLAIM_AHEAD_MS}); 0: claim only what is due, at its instant.
   */
  claimAheadMs?: number;
  /**
   * The SSRF guard's policy (ssrf.ts: public unicast addresses only, unless allowed), applied to
   * every address a call connects to (the default agent's lookup) and to IP-literal hosts.
   * Absent: no guard (tests that build a dispatcher directly); `punctual serve` always passes the
   * configured one.
   */
  policy?: EndpointPolicy;
  /**
   * undici dispatcher for outgoing calls; by default an `Agent` with keep-alive pools per origin
   * (http-agent.ts, with the guard's lookup when `policy` is given), closed by `stop()`.
   */
  http?: HttpDispatcher;
  /**
   * Send the calls to hung origins (launch-queue.ts) from a worker thread of their own
   * (slow-lane.ts, for isolation from hung endpoints), with its own undici `Agent` under
   * `policy`. Default false; `punctual serve` turns it on.
   */
  slowLane?: boolean;
  /**
   * The key ring that opens job secrets (secret headers, target authentication, signing secrets);
   * null or absent: a job with secrets fails its attempts with `secret cannot be decrypted`.
   */
  keyRing?: KeyRing | null;
  /**
   * Whether this node may claim now: `NodeLiveness.mayClaim` (liveness.ts), so a node taken for
   * dead claims nothing until it has registered again. Absent: always.
   */
  mayClaim?: () => boolean;
  /**
   * Whether the attempts' spans are exported (src/tracing/): each attempt's `traceparent` then
   * says sampled (flags `01`), else not (`00`). Default false.
   */
  tracesSampled?: boolean;
}

/**
 * The dispatcher: sleeps until shortly before the earliest due instant, claims the work due
 * within the next {@link CLAIM_AHEAD_MS} in batches, starts each call at its instant, calls the
 * endpoints concurrently (signed, Standard Webhooks), and records each outcome: success, a retry
 * at a later instant (exponential backoff with full jitter), or failure. A façade over its parts:
 * - the claim loop (claim-loop.ts, with its timer in wake-timer.ts): when to look at the store,
 *   whose clock decides, how much to claim;
 * - the held calls (held-calls.ts): work claimed ahead, released to the calls at its instant;
 * - the calls (calls.ts): starting claimed calls (launch-queue.ts), the HTTP pools, the slow lane;
 * - the outcome of each attempt (outcome.ts, a pure function of its result, after retry.ts);
 * - the outcome writer (outcome-writer.ts): batched writes, retried when the store refuses them.
 *
 * A call is never early (the store decides what is due, by its clock when it has one) and a slow
 * endpoint never delays others: calls run concurrently, capped by `maxInFlight`. Attempt times
 * (`startedAt`, `webhook-timestamp`, the next retry) are read on the store's time ({@link now}).
 */
export class Dispatcher {
  /** Typed events; see {@link DispatcherEventMap}. */
  readonly events = new DispatcherEvents();
  readonly nodeId: string;

  private readonly store: DispatchStore;
  private readonly log: DispatchLogger;
  private readonly random: () => number;
  private readonly loop: ClaimLoop;
  private readonly calls: Calls;
  private readonly held: HeldCalls;
  private readonly writer: OutcomeWriter;

  constructor(opts: DispatcherOptions) {
    this.store = opts.store;
    this.log = opts.logger;
    this.nodeId = opts.nodeId ?? newId();
    this.random = opts.random ?? Math.random;
    this.calls = new Calls({
      logger: this.log,
      userAgent: opts.userAgent,
      signer: opts.signer,
      now: () => this.now(),
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      ...(opts.policy && { policy: opts.policy }),
      ...(opts.http && { http: opts.http }),
      slowLane: opts.slowLane ?? false,
      keyRing: opts.keyRing ?? null,
      tracesSampled: opts.tracesSampled ?? false,
      onSecretFailure: (error) => this.events.emit('dispatch:secret-failed', error),
      onResult: (claim, result) => {
        const outcome = attemptOutcome(claim, result, this.random);
        if (this.log.isLevelEnabled?.('debug') !== false) this.log.debug(
          {
            executionId: claim.executionId,
            jobId: claim.jobId,
            attempt: claim.attempt,
            statusCode: result.statusCode,
            lateMs: result.startedAt - claim.dueAt,
            nodeId: this.nodeId,
          },
          'dispatch: attempt finished',
        );
        this.writer.add({ claim, outcome });
      },
      onEnded: () => this.loop.callEnded(),
    });
    this.held = new HeldCalls({ now: () => this.now(), sink: this.calls });
    this.loop = new ClaimLoop({
      store: opts.store,
      clock: opts.clock,
      logger: this.log,
      events: this.events,
      sink: this.held,
      nodeId: this.nodeId,
      misfireThresholdMs: opts.misfireThresholdMs ?? 60_000,
      maxInFlight: opts.maxInFlight ?? 512,
      batchSize: opts.batchSize ?? 256,
      maxSleepMs: opts.maxSleepMs ?? 5_000,
      aheadMs: opts.claimAheadMs ?? CLAIM_AHEAD_MS,
      ...(opts.mayClaim && { mayClaim: opts.mayClaim }),
    });
    this.writer = new OutcomeWriter({
      store: opts.store,
      nodeId: this.nodeId,
      logger: this.log,
      events: this.events,
      onRetry: (at) => this.loop.wake(at),
      running: () => this.loop.running,
    });
  }

  /** Calls sent through the slow lane so far (0 without it); see slow-lane.ts. */
  get slowLaneCalls(): number {
    return this.calls.slowLaneCalls;
  }

  /** Calls to hung origins in flight now on the slow lane's thread (0 without the lane). */
  get hungCallsInFlight(): number {
    return this.calls.hungCallsInFlight;
  }

  /** Calls in flight now, counting claimed calls about to start. */
  get callsInFlight(): number {
    return this.calls.callsInFlight;
  }

  /**
   * Current time as the store reckons it (epoch ms, UTC): the local clock plus the offset measured
   * at the last look at the store. Equals `clock.now()` with a store that has no clock of its own.
   */
  now(): number {
    return this.loop.now();
  }

  /** Store clock − local clock in ms, as last measured (0 when the store has no clock of its own). */
  get clockOffsetMs(): number {
    return this.loop.clockOffsetMs;
  }

  /** Starts the loop: listens to the store's work hints and looks at the store at once. */
  start(): void {
    this.loop.start();
  }

  /**
   * Tells the dispatcher that work is due at `dueAtMs` (epoch ms, UTC), e.g. after a create or a
   * patch. Cheap and safe to call often; the store stays the source of truth.
   */
  wake(dueAtMs: number): void {
    this.loop.wake(dueAtMs);
  }

  /**
   * Stops claiming, waits up to `graceMs` for calls in flight, writes their outcomes and closes
   * the HTTP pools. Calls claimed ahead (held-calls.ts) start at their instants within `graceMs`:
   * they are due within the look ahead. Held ones not due by then keep their lease (handing it
   * back would let another node take them at once, before their instant): they are attempted
   * again once it expires. Calls claimed and not started (queued) and calls still unfinished at
   * the deadline are handed back: their leases are
   * released (`Store.leasesRelease`), so any node — or this one after a restart — attempts them
   * again at once, as the same execution (at-least-once); their own outcome, if it comes later,
   * is not recorded. Should the release fail (store unreachable), they keep their lease and are
   * attempted again once it expires.
   * @returns how many calls were still in flight (or claimed and not started, held included) at the deadline
   */
  async stop(graceMs: number): Promise<{ unfinished: number }> {
    await this.loop.stop();
    const started = performance.now();
    const kept = await this.held.settle(graceMs);
    const handBack = await this.calls.drain(Math.max(0, graceMs - (performance.now() - started)));
    await this.writer.drain();
    if (handBack.length > 0) {
      try {
        await this.store.leasesRelease({ nodeId: this.nodeId, executionIds: handBack, now: this.now() });
      } catch (err) {
        this.log.error({ err, count: handBack.length }, 'dispatch: releasing leases failed; they will expire');
      }
    }
    if (kept.length > 0) {
      this.log.warn({ count: kept.length }, 'dispatch: calls claimed ahead, not due by the end of the grace period, keep their lease');
    }
    await this.calls.close(handBack.length > 0);
    return { unfinished: handBack.length + kept.length };
  }
}
