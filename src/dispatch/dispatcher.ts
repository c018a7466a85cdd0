import type { Dispatcher as HttpDispatcher } from 'undici';
import type { Clock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import type { AttemptOutcome, ClaimedExecution } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { DeadlineSweeper } from './deadlines.js';
import { deliver, sendCall, type AttemptResult } from './deliver.js';
import { DispatcherEvents } from './events.js';
import { createHttpAgent } from './http-agent.js';
import { LaunchQueue } from './launch-queue.js';
import { classifyAttempt, retryDelayMs } from './retry.js';
import { SlowLane } from './slow-lane.js';
import type { WebhookSigner } from './signing.js';
import type { EndpointPolicy } from '../net/ssrf.js';

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
  /**
   * The SSRF guard's policy (issue #5 §1), applied to every address a call connects to (the
   * default agent's lookup) and to IP-literal hosts. Absent: no guard (tests that build a
   * dispatcher directly); `punctual serve` always passes the configured one.
   */
  policy?: EndpointPolicy;
  /**
   * undici dispatcher for outgoing calls; by default an `Agent` with keep-alive pools per origin
   * (http-agent.ts, with the guard's lookup when `policy` is given), closed by `stop()`.
   */
  http?: HttpDispatcher;
  /**
   * Send the calls to hung origins (launch-queue.ts) from a worker thread of their own
   * (slow-lane.ts; issue #3 §5), with its own undici `Agent` under `policy`. Default false;
   * `punctual serve` turns it on.
   */
  slowLane?: boolean;
}

/**
 * How long (ms) the first outcome of a batch waits for others before they are written together.
 * Each write is a transaction, and with SQLite an fsync on the event loop's thread: in a burst,
 * writing what finished in one turn of the loop meant hundreds of fsyncs a second. An outcome
 * only records what already happened (the call is made), so waiting a few ms delays no call; a
 * crash in the window means those calls are attempted again, as the same execution.
 */
const FLUSH_WINDOW_MS = 5;
/**
 * Items the first claim of a look at the store takes at most (issue #3 §5, isolation). A claim is
 * one transaction that blocks the event loop (SQLite) for about 1.3 ms plus 35-50 µs per item on
 * the bench machine: 101 items due at one instant took 6-8 ms, and a healthy call due at that
 * instant went out that late. The first claim is therefore small (about 2 ms), its calls start,
 * and the following claims, a turn of the event loop apart, take full batches. A burst pays one
 * extra transaction.
 */
const FIRST_CLAIM_MAX = 32;
/**
 * How long (ms) before a due instant the dispatcher's timer wakes after a longer sleep, to close
 * in on the instant with sleeps of at most {@link WAKE_STEP_MS}. On the virtual machine of
 * docs/benchmarks.md a timer that ends an idle stretch fires late: a plain `setTimeout` of
 * 0.5-5 s fired 11-29 ms late (the vCPU wakes from halt), and the first calls of every quiet round
 * of test/e2e/isolation.test.ts were 20-55 ms late. Sleeps of a few ms are on time (within 1 ms);
 * waking 50 ms early and closing in by 5 ms steps made 2.5 s sleeps end within 1 ms of their
 * instant (16 of 16). Costs about ten extra wake-ups per due instant after a quiet stretch.
 */
const WAKE_LEAD_MS = 50;
/** Longest sleep (ms) while closing in on a due instant; see {@link WAKE_LEAD_MS}. */
const WAKE_STEP_MS = 5;
/** Outcomes waiting that trigger a write at once, whatever the window. */
const FLUSH_BATCH = 512;
/** Delay before the loop tries again after the store failed (ms). */
const STORE_RETRY_MS = 1_000;
/** Extra lease time beyond a job's call timeout, to write the outcome (ms). */
const LEASE_MARGIN_MS = 5_000;

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

/**
 * The dispatcher: sleeps until the earliest due instant, claims due work in batches, calls the
 * endpoints concurrently (signed, Standard Webhooks), and records each outcome: success, a retry
 * at a later instant (exponential backoff with full jitter), or failure.
 *
 * Timing (issue #2 §6): it is timer-driven, not polling. `wake(dueAt)` (called after a create or
 * a patch, or by the store's `onWork` hint from another node) re-arms the timer when new work is
 * due earlier. A call is never early: the claim asks the store for work due at the current time,
 * and a timer that fires early claims nothing and re-arms. A slow endpoint never delays others:
 * calls run concurrently, capped by `maxInFlight`.
 *
 * Whose time (issue #4 §3). A store shared by several nodes has its own clock (`store.now()` is
 * not null, PostgreSQL's `now()`), and that clock decides what is due, so a node whose clock is
 * ahead never fires early. Each look at the store reads it and measures the offset between the
 * store's clock and the local one (`store − local`, the local reading taken after the answer came,
 * so the estimate errs late, never early); claims pass the store's time, and the timer is armed
 * for `due − (local + offset)`. A local clock that is ahead therefore neither fires early nor
 * spins: the store says "not yet", and the timer waits out the store's remaining time. With a
 * store without a clock of its own (SQLite, one node), the offset is 0 and `clock` decides.
 * Attempt times (`startedAt`, `webhook-timestamp`, the next retry) are read on the same estimate.
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
  /**
   * Places that must be free before a dispatcher at its cap claims again: 1/8 of `maxInFlight`,
   * at most 64. Claiming as soon as one call finished meant a claim (a transaction, an fsync with
   * SQLite) per call in a burst: the bench's burst spent a third of its CPU in claims of a few rows.
   */
  private readonly refillMin: number;
  /** At the cap: a finishing call wakes the loop once `refillMin` places are free. */
  private waitingForRoom = false;
  /**
   * The next look at the store refills places freed at the cap: a backlog, not a due instant, so
   * its first claim takes a full batch (FIRST_CLAIM_MAX is for work that just fell due).
   */
  private refilling = false;
  private readonly maxSleepMs: number;
  private readonly http: HttpDispatcher;
  private readonly ownsHttp: boolean;
  private readonly policy: EndpointPolicy | undefined;
  private readonly deadlines = new DeadlineSweeper();
  /** Claimed calls not started yet: a few start per turn, slow origins last (launch-queue.ts). */
  private readonly queue = new LaunchQueue<Pending>((p, hung) => this.launch(p, hung));
  /** Sends the calls to hung origins from a thread of its own, when enabled. */
  private readonly slowLane: SlowLane | null;

  private timer: NodeJS.Timeout | null = null;
  /** Store clock − local clock (ms), measured at the last look at the store; 0 for a store without a clock. */
  private offsetMs = 0;
  private unsubscribe: (() => void) | null = null;
  /** Epoch ms the armed timer fires at, or null when none is armed. */
  private armedFor: number | null = null;
  private ticking = false;
  /** The tick in progress, awaited by `stop()` so that every claimed call is in the launch queue or started. */
  private tickDone: Promise<void> | null = null;
  private tickAgain = false;
  private running = false;
  /** Calls in flight, with the claim each one works on. */
  private readonly inFlight = new Map<Promise<void>, ClaimedExecution>();
  /** Set by `stop()` at its deadline: calls finishing later are handed back, not recorded. */
  private handedBack = false;
  private outcomes: { claim: ClaimedExecution; outcome: AttemptOutcome }[] = [];
  private flushing: Promise<void> | null = null;
  /** Starts the pending flush now instead of at the end of its window. */
  private flushSoon: (() => void) | null = null;

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
    this.refillMin = Math.max(1, Math.min(64, Math.floor(this.maxInFlight / 8)));
    this.maxSleepMs = opts.maxSleepMs ?? 5_000;
    this.ownsHttp = opts.http === undefined;
    this.policy = opts.policy;
    const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
    this.http = opts.http ?? createHttpAgent({ ...(opts.policy && { policy: opts.policy }), connectTimeoutMs });
    this.slowLane = opts.slowLane
      ? new SlowLane({
          ...(opts.policy && { policy: opts.policy }),
          connectTimeoutMs,
          fallback: (req) => sendCall(req, this.http, this.deadlines),
          logger: this.log,
        })
      : null;
  }

  /** Calls sent through the slow lane so far (0 without it); see slow-lane.ts. */
  get slowLaneCalls(): number {
    return this.slowLane?.sent ?? 0;
  }

  /** Calls to hung origins in flight now on the slow lane's thread (0 without the lane). */
  get hungCallsInFlight(): number {
    return this.slowLane?.size ?? 0;
  }

  /** Calls in flight now, counting claimed calls about to start. */
  get callsInFlight(): number {
    return this.inFlight.size + this.queue.size;
  }

  /**
   * Current time as the store reckons it (epoch ms, UTC): the local clock plus the offset measured
   * at the last look at the store. Equals `clock.now()` with a store that has no clock of its own.
   */
  now(): number {
    return this.clock.now() + this.offsetMs;
  }

  /** Store clock − local clock in ms, as last measured (0 when the store has no clock of its own). */
  get clockOffsetMs(): number {
    return this.offsetMs;
  }

  /** Starts the loop: listens to the store's work hints and looks at the store at once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.store.onWork((dueAtMs) => this.wake(dueAtMs));
    this.arm(this.now());
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
   * the HTTP pools. Calls still unfinished at the deadline are handed back (issue #5 §7): their
   * leases are released (`Store.leasesRelease`), so any node — or this one after a restart —
   * attempts them again at once, as the same execution (at-least-once); their own outcome, if it
   * comes later, is not recorded. Should the release fail (store unreachable), they keep their
   * lease and are attempted again once it expires.
   * @returns how many calls were still in flight at the deadline
   */
  async stop(graceMs: number): Promise<{ unfinished: number }> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = null;
    if (this.tickDone) await this.tickDone;
    // Claimed but never started: handed back below with the calls that outlive the grace period.
    const unstarted = this.queue.takeAll().map((p) => p.claim);
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.keys()]),
      new Promise<void>((resolve) => {
        deadline = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(deadline);
    const unfinished = this.inFlight.size + unstarted.length;
    const handBack = [...this.inFlight.values(), ...unstarted].map((c) => c.executionId);
    this.handedBack = true;
    this.flushSoon?.();
    if (this.flushing) await this.flushing;
    await this.flushOutcomes();
    if (handBack.length > 0) {
      try {
        await this.store.leasesRelease({ nodeId: this.nodeId, executionIds: handBack, now: this.now() });
      } catch (err) {
        this.log.error({ err, count: handBack.length }, 'dispatch: releasing leases failed; they will expire');
      }
    }
    this.deadlines.close();
    await this.slowLane?.close(unfinished > 0);
    if (this.ownsHttp) await (unfinished > 0 ? this.http.destroy() : this.http.close());
    return { unfinished };
  }

  /**
   * Arms the timer for `dueAtMs` (store time), at most `maxSleepMs` ahead. `minDelayMs` (1 after a
   * look at the store said "not yet") keeps an estimate that errs by a millisecond from spinning.
   */
  private arm(dueAtMs: number, minDelayMs = 0): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.now();
    const delay = Math.min(Math.max(minDelayMs, dueAtMs - now), this.maxSleepMs);
    this.armedFor = now + delay;
    const at = performance.now() + delay;
    // Wake WAKE_LEAD_MS early, then close in with sleeps of at most WAKE_STEP_MS (see WAKE_LEAD_MS).
    const closeIn = (): void => {
      const left = at - performance.now();
      if (left >= 1) {
        this.timer = setTimeout(closeIn, Math.min(WAKE_STEP_MS, Math.floor(left)));
        return;
      }
      this.timer = null;
      this.armedFor = null;
      if (this.running && !this.ticking) this.tickDone = this.tick();
    };
    this.timer = setTimeout(closeIn, delay > WAKE_LEAD_MS ? delay - WAKE_LEAD_MS : Math.min(delay, WAKE_STEP_MS));
  }

  /**
   * Reads the store's clock (when it has one) and measures the offset to the local clock.
   * @returns the time claims are made with (epoch ms, UTC)
   */
  private async lookAtClock(): Promise<number> {
    const storeNow = await this.store.now();
    const local = this.clock.now(); // read after the answer: the estimate errs late, never early
    if (storeNow === null) {
      this.offsetMs = 0;
      return local;
    }
    this.offsetMs = storeNow - local;
    return storeNow;
  }

  /**
   * One look at the store: claims due work in batches and starts the calls. Runs alone (`ticking`).
   * The first claim of a look takes at most {@link FIRST_CLAIM_MAX} items (unless the look refills
   * places freed at the cap), the next ones up to `batchSize`, with a turn of the event loop
   * between two claims (see FIRST_CLAIM_MAX).
   */
  private async tick(): Promise<void> {
    this.ticking = true;
    const firstMax = this.refilling ? Infinity : FIRST_CLAIM_MAX;
    this.refilling = false;
    try {
      let full = false;
      for (let round = 0; ; round++) {
        if (round > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        this.tickAgain = false;
        const capacity = this.maxInFlight - this.callsInFlight;
        if (capacity < this.refillMin) {
          full = true; // a finishing call wakes the loop again, once refillMin places are free
          this.waitingForRoom = true;
          break;
        }
        const limit = Math.min(this.batchSize, round === 0 ? firstMax : Infinity, capacity);
        const now = await this.lookAtClock();
        const claims = await this.store.claimDue({
          now,
          limit,
          nodeId: this.nodeId,
          leaseMs: LEASE_MARGIN_MS,
          misfireThresholdMs: this.misfireThresholdMs,
        });
        if (claims.length > 0) {
          this.events.emit('dispatch:claimed', claims);
          this.queue.push(claims.map((claim) => ({ claim, origin: originOf(claim.endpoint) })));
          this.log.debug(
            { claimed: claims.length, claimMs: this.now() - now, lateMs: now - claims[0]!.scheduledFor, queued: this.queue.size },
            'dispatch: claimed',
          );
        }
        if (!this.running || (claims.length < limit && !this.tickAgain)) break;
      }
      if (!full) {
        const next = await this.store.nextDueAt();
        if (this.tickAgain) this.arm(this.now());
        // Work the last claim left behind (next ≤ its time) is due again only once the store's
        // clock has moved: wait at least a millisecond rather than spin.
        else this.arm(next ?? this.now() + this.maxSleepMs, 1);
      }
    } catch (err) {
      this.log.error({ err }, 'dispatch: claim failed; retrying');
      this.events.emit('dispatch:error', err);
      this.arm(this.now() + STORE_RETRY_MS);
    } finally {
      this.ticking = false;
      this.tickDone = null;
    }
  }

  /** Starts one call: from the slow lane's thread when `hung` and the lane is enabled, else here. */
  private launch(pending: Pending, hung: boolean): void {
    const { claim } = pending;
    let ending: 'timedOut' | 'answered' | 'other' = 'other';
    const call = (async () => {
      const opts = {
        dispatcher: this.http,
        signer: this.signer,
        ...(this.policy && { policy: this.policy }),
        userAgent: this.userAgent,
        now: () => this.now(),
        deadlines: this.deadlines,
      };
      const result = await deliver(claim, opts, hung && this.slowLane ? this.slowLane : undefined);
      ending = result.timedOut ? 'timedOut' : result.statusCode !== null ? 'answered' : 'other';
      if (this.handedBack) return; // its lease was handed back at stop(): another attempt follows
      const outcome = this.outcomeOf(claim, result);
      this.log.debug(
        {
          executionId: claim.executionId,
          jobId: claim.jobId,
          attempt: claim.attempt,
          statusCode: result.statusCode,
          lateMs: result.startedAt - claim.scheduledFor,
          nodeId: this.nodeId,
        },
        'dispatch: attempt finished',
      );
      this.outcomes.push({ claim, outcome });
      this.scheduleFlush();
    })();
    this.inFlight.set(call, claim);
    void call.finally(() => {
      this.inFlight.delete(call);
      this.queue.finished(pending, ending);
      if (this.waitingForRoom && this.maxInFlight - this.callsInFlight >= this.refillMin) {
        this.waitingForRoom = false;
        this.refilling = true;
        this.wake(this.now());
      }
    });
  }

  /**
   * What an attempt's result means for its execution (issue #3 §2): `Succeeded` on a 2xx;
   * `Retrying` after a retryable failure with attempts left, with its next attempt after a
   * full-jitter backoff (or the receiver's `Retry-After`, capped); `Failed` otherwise.
   */
  private outcomeOf(claim: ClaimedExecution, result: AttemptResult): AttemptOutcome {
    // A destination refused by the SSRF guard stays refused: never retried (issue #5 §1).
    const verdict = result.refused ? 'failed' : classifyAttempt(result.statusCode);
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

  /**
   * Outcomes that finish within {@link FLUSH_WINDOW_MS} of each other are written in one
   * transaction (one fsync with SQLite), or at once when {@link FLUSH_BATCH} are waiting.
   */
  private scheduleFlush(): void {
    if (this.flushing) {
      if (this.outcomes.length >= FLUSH_BATCH) this.flushSoon?.();
      return;
    }
    this.flushing = new Promise<void>((resolve) => {
      const go = () => {
        clearTimeout(timer);
        this.flushSoon = null;
        resolve();
      };
      const timer = setTimeout(go, FLUSH_WINDOW_MS);
      this.flushSoon = go;
    }).then(() => this.flushOutcomes());
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
