import { Agent, type Dispatcher as HttpDispatcher } from 'undici';
import type { Clock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import type { AttemptOutcome, ClaimedExecution } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { cronJobNext } from './cron-next.js';
import { deliver, type AttemptResult } from './deliver.js';
import { DispatcherEvents } from './events.js';
import { classifyAttempt, retryDelayMs } from './retry.js';
import type { WebhookSigner } from './signing.js';

/** The few logger methods the dispatcher uses (pino's signature). */
export interface DispatchLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link Dispatcher}. Durations in ms. */
export interface DispatcherOptions {
  store: Store;
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
  /** undici dispatcher for outgoing calls; an `Agent` with keep-alive pools per origin by default. */
  http?: HttpDispatcher;
}

/** Delay before the loop tries again after the store failed (ms). */
const STORE_RETRY_MS = 1_000;
/** Extra lease time beyond a job's call timeout, to write the outcome (ms). */
const LEASE_MARGIN_MS = 5_000;

/**
 * The dispatcher: sleeps until the earliest due instant, claims due work in batches, calls the
 * endpoints concurrently (signed, Standard Webhooks), and records each outcome: success, a retry
 * at a later instant (exponential backoff with full jitter), or failure.
 *
 * Timing (issue #2 §6): it is timer-driven, not polling. `wake(dueAt)` (called after a create or
 * a patch) re-arms the timer when new work is due earlier. A call is never early: the claim asks
 * the store for work due at `clock.now()`, and a timer that fires early claims nothing and
 * re-arms. A slow endpoint never delays others: calls run concurrently, capped by `maxInFlight`.
 */
export class Dispatcher {
  /** Typed events; see {@link DispatcherEventMap}. */
  readonly events = new DispatcherEvents();
  readonly nodeId: string;

  private readonly store: Store;
  private readonly clock: Clock;
  private readonly log: DispatchLogger;
  private readonly userAgent: string;
  private readonly signer: WebhookSigner;
  private readonly misfireThresholdMs: number;
  private readonly random: () => number;
  private readonly maxInFlight: number;
  private readonly batchSize: number;
  private readonly maxSleepMs: number;
  private readonly http: HttpDispatcher;
  private readonly ownsHttp: boolean;

  private timer: NodeJS.Timeout | null = null;
  /** Epoch ms the armed timer fires at, or null when none is armed. */
  private armedFor: number | null = null;
  private ticking = false;
  private tickAgain = false;
  private running = false;
  private readonly inFlight = new Set<Promise<void>>();
  private outcomes: { claim: ClaimedExecution; outcome: AttemptOutcome }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(opts: DispatcherOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    this.log = opts.logger;
    this.userAgent = opts.userAgent;
    this.nodeId = opts.nodeId ?? newId();
    this.signer = opts.signer;
    this.misfireThresholdMs = opts.misfireThresholdMs ?? 60_000;
    this.random = opts.random ?? Math.random;
    this.maxInFlight = opts.maxInFlight ?? 512;
    this.batchSize = opts.batchSize ?? 256;
    this.maxSleepMs = opts.maxSleepMs ?? 5_000;
    this.ownsHttp = opts.http === undefined;
    this.http = opts.http ?? new Agent({ keepAliveTimeout: 10_000, connect: { timeout: opts.connectTimeoutMs ?? 10_000 } });
  }

  /** Calls in flight now. */
  get callsInFlight(): number {
    return this.inFlight.size;
  }

  /** Starts the loop: looks at the store at once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm(this.clock.now());
  }

  /**
   * Tells the dispatcher that work is due at `dueAtMs` (epoch ms, UTC), e.g. after a create or a
   * patch. Cheap and safe to call often; the store stays the source of truth.
   */
  wake(dueAtMs: number): void {
    if (!this.running) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    if (this.armedFor === null || dueAtMs < this.armedFor) this.arm(dueAtMs);
  }

  /**
   * Stops claiming, waits up to `graceMs` for calls in flight, writes their outcomes and closes
   * the HTTP pools. Calls still unfinished keep their lease, so they are attempted again after
   * it expires (at-least-once).
   * @returns how many calls were still in flight at the deadline
   */
  async stop(graceMs: number): Promise<{ unfinished: number }> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = null;
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => {
        deadline = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(deadline);
    const unfinished = this.inFlight.size;
    if (this.flushing) await this.flushing;
    await this.flushOutcomes();
    if (this.ownsHttp) await (unfinished > 0 ? this.http.destroy() : this.http.close());
    return { unfinished };
  }

  private arm(dueAtMs: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.clock.now();
    const delay = Math.min(Math.max(0, dueAtMs - now), this.maxSleepMs);
    this.armedFor = now + delay;
    this.timer = setTimeout(() => void this.tick(), delay);
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.armedFor = null;
    if (!this.running || this.ticking) return;
    this.ticking = true;
    try {
      let full = false;
      for (;;) {
        this.tickAgain = false;
        const capacity = this.maxInFlight - this.inFlight.size;
        if (capacity <= 0) {
          full = true; // a finishing call wakes the loop again
          break;
        }
        const limit = Math.min(this.batchSize, capacity);
        const claims = await this.store.claimDue({
          now: this.clock.now(),
          limit,
          nodeId: this.nodeId,
          leaseMs: LEASE_MARGIN_MS,
          nextOccurrence: cronJobNext,
          misfireThresholdMs: this.misfireThresholdMs,
        });
        if (claims.length > 0) {
          this.events.emit('dispatch:claimed', claims);
          for (const claim of claims) this.launch(claim);
        }
        if (claims.length < limit && !this.tickAgain) break;
      }
      if (!full) {
        const next = await this.store.nextDueAt();
        if (this.tickAgain) this.arm(this.clock.now());
        else this.arm(next ?? this.clock.now() + this.maxSleepMs);
      }
    } catch (err) {
      this.log.error({ err }, 'dispatch: claim failed; retrying');
      this.events.emit('dispatch:error', err);
      this.arm(this.clock.now() + STORE_RETRY_MS);
    } finally {
      this.ticking = false;
    }
  }

  private launch(claim: ClaimedExecution): void {
    const call = (async () => {
      const result = await deliver(claim, {
        dispatcher: this.http,
        signer: this.signer,
        userAgent: this.userAgent,
        now: () => this.clock.now(),
      });
      const outcome = this.outcomeOf(claim, result);
      this.log.debug(
        { executionId: claim.executionId, jobId: claim.jobId, statusCode: result.statusCode, lateMs: result.startedAt - claim.scheduledFor },
        'dispatch: attempt finished',
      );
      this.outcomes.push({ claim, outcome });
      this.scheduleFlush();
    })();
    this.inFlight.add(call);
    void call.finally(() => {
      const wasFull = this.inFlight.size >= this.maxInFlight;
      this.inFlight.delete(call);
      if (wasFull) this.wake(this.clock.now());
    });
  }

  /**
   * What an attempt's result means for its execution (issue #3 §2): `Succeeded` on a 2xx;
   * `Retrying` after a retryable failure with attempts left, with its next attempt after a
   * full-jitter backoff (or the receiver's `Retry-After`, capped); `Failed` otherwise.
   */
  private outcomeOf(claim: ClaimedExecution, result: AttemptResult): AttemptOutcome {
    const verdict = classifyAttempt(result.statusCode);
    const retry = verdict === 'retry' && claim.attempt < claim.retry.maxAttempts;
    const finishedAt = result.startedAt + result.durationMs;
    return {
      executionId: claim.executionId,
      attempt: claim.attempt,
      status: verdict === 'succeeded' ? 'Succeeded' : retry ? 'Retrying' : 'Failed',
      nextAttemptAt: retry
        ? finishedAt + retryDelayMs(claim.attempt, claim.retry, result.retryAfterMs, this.random)
        : null,
      startedAt: result.startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      error: result.error,
      responseBody: result.responseBody,
    };
  }

  /** Outcomes that finish close together are written in one transaction. */
  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushOutcomes());
  }

  private async flushOutcomes(): Promise<void> {
    while (this.outcomes.length > 0) {
      const batch = this.outcomes;
      this.outcomes = [];
      try {
        await this.store.executionsFinish({ nodeId: this.nodeId, outcomes: batch.map((b) => b.outcome) });
        for (const item of batch) {
          if (item.outcome.nextAttemptAt !== null) this.wake(item.outcome.nextAttemptAt);
          this.events.emit('dispatch:delivered', item);
        }
      } catch (err) {
        // Keep them; the lease holds the executions until we manage to write (or it expires).
        this.outcomes = batch.concat(this.outcomes);
        this.log.error({ err, count: batch.length }, 'dispatch: writing outcomes failed; retrying');
        this.events.emit('dispatch:error', err);
        if (!this.running) return;
        await new Promise((r) => setTimeout(r, STORE_RETRY_MS));
      }
    }
    this.flushing = null;
  }
}
