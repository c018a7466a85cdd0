/**
 * The claim loop: sleeps until shortly before the earliest due instant, claims the work due by
 * then or within the look ahead in batches and hands it to the calls (calls.ts; work not due yet
 * waits in held-calls.ts), within the cap of calls in flight.
 */
import type { Clock } from '../domain/clock.js';
import type { ClaimedExecution } from '../domain/types.js';
import type { DispatchStore } from '../store/contract/dispatch.js';
import type { DispatchLogger } from './logger.js';
import type { DispatcherEvents } from './events.js';
import { WakeTimer } from './wake-timer.js';

/**
 * Items the first claim of a look at the store takes at most (isolation: a call due now must not
 * wait for a long claim). A claim is one transaction that blocks the event loop (SQLite) for about
 * 1.3 ms plus 35-50 µs per item on the bench machine: 101 items due at one instant took 6-8 ms,
 * and a healthy call due at that instant went out that late. The first claim is therefore small
 * (about 2 ms), its calls start, and the following claims, a turn of the event loop apart, take
 * full batches. A burst pays one extra transaction.
 */
export const FIRST_CLAIM_MAX = 32;
/** Delay (ms) before the loop tries again after the store failed. */
export const STORE_RETRY_MS = 1_000;
/** Extra lease time (ms) beyond a job's call timeout, to write the outcome. */
export const LEASE_MARGIN_MS = 5_000;

/** Where claimed work goes: the calls in flight and waiting to start (calls.ts). */
export interface ClaimSink {
  /** Calls in flight now, counting claimed calls not started yet (held ones included). */
  readonly callsInFlight: number;
  /** Claimed calls not started yet. */
  readonly queued: number;
  /**
   * Takes claimed work, in claim order (due time first); an item with `notBefore` must not start
   * before that instant (store time).
   */
  push(claims: ClaimedExecution[]): void;
}

/** Options of {@link ClaimLoop}. Durations in ms. */
export interface ClaimLoopOptions {
  store: DispatchStore;
  clock: Clock;
  logger: DispatchLogger;
  events: DispatcherEvents;
  sink: ClaimSink;
  /** Identifies this process in leases. */
  nodeId: string;
  /** A cron occurrence claimed later than this is a misfire (see `Store.claimDue`). */
  misfireThresholdMs: number;
  /** Calls in flight at most. */
  maxInFlight: number;
  /** Items per claim at most. */
  batchSize: number;
  /** Longest sleep between two looks at the store. */
  maxSleepMs: number;
  /**
   * Claim work due within this many ms after now as well (held-calls.ts, CLAIM_AHEAD_MS), leased
   * that much longer; the loop then looks at the store half of it before the earliest due instant.
   * Absent or 0: only work due now, at its instant.
   */
  aheadMs?: number;
  /**
   * Whether this node may claim now (liveness.ts: registered and heartbeating); when false, a look
   * at the store claims nothing and the loop looks again after {@link STORE_RETRY_MS}. Absent: always.
   */
  mayClaim?: () => boolean;
}

/**
 * Timer-driven, not polling: {@link wake} (after a create or a patch, a retry written, or the
 * store's `onWork` hint from another node) re-arms the timer when new work is due earlier. A call
 * is never early: the claim asks the store for work due at the current time, and a timer that
 * fires early claims nothing and re-arms.
 *
 * Claiming ahead (`aheadMs` > 0). A look at the store claims the work due within `aheadMs` after
 * now as well; the store marks such items `notBefore` (their due instant) and the sink holds them
 * until then (held-calls.ts), so the claim's round trip is paid before the instant. The next look
 * is armed `aheadMs / 2` before the earliest work left, so the held items never run out at a
 * steady rate, each look taking about half a window of work; work that could not be claimed ahead
 * (a lease, which is only taken once expired) is looked for at its own instant. The lease counts
 * from the real claim, `aheadMs` longer than the margin, so a call held to its instant keeps the
 * whole margin.
 *
 * Whose time. A store shared by several nodes has its own clock (`store.now()` is not null,
 * PostgreSQL's `now()`), and that clock decides what is due, so a node whose clock is ahead never
 * fires early. Each look at the store reads it and measures the offset between the store's clock
 * and the local one (`store − local`, the local reading taken after the answer came, so the
 * estimate errs late, never early); claims pass the store's time, and the timer is armed for
 * `due − (local + offset)`. A local clock that is ahead therefore neither fires early nor spins:
 * the store says "not yet", and the timer waits out the store's remaining time. With a store
 * without a clock of its own (SQLite, one node), the offset is 0 and `clock` decides.
 */
export class ClaimLoop {
  private readonly timer: WakeTimer;
  /**
   * Places that must be free before a loop at its cap claims again: 1/4 of `maxInFlight`, at most
   * 128. Claiming as soon as one call finished meant a claim (a transaction, an fsync with SQLite)
   * per call in a burst: the bench's burst spent a third of its CPU in claims of a few rows. At
   * 1/8 (64 of 512) a burst still made a claim per 64 calls, and the claims' commits were a
   * quarter of the SQLite thread's time (the burst profile of docs/benchmarks.md); the 3/4 still
   * in flight last far longer than a claim of 128.
   */
  private readonly refillMin: number;
  /** At the cap: a finishing call wakes the loop once `refillMin` places are free. */
  private waitingForRoom = false;
  /**
   * The next look at the store refills places freed at the cap: a backlog, not a due instant, so
   * its first claim takes a full batch (FIRST_CLAIM_MAX is for work that just fell due).
   */
  private refilling = false;
  /** Store clock − local clock (ms), measured at the last look at the store; 0 for a store without a clock. */
  private offsetMs = 0;
  private unsubscribe: (() => void) | null = null;
  private ticking = false;
  /** The look in progress, awaited by `stop()` so that every claimed call is in the sink. */
  private tickDone: Promise<void> | null = null;
  private tickAgain = false;
  private active = false;
  /** `aheadMs` (0 when absent). */
  private readonly aheadMs: number;
  /** How long before a due instant a look at the store is armed: `aheadMs / 2`. */
  private readonly lookLeadMs: number;

  constructor(private readonly opts: ClaimLoopOptions) {
    this.refillMin = Math.max(1, Math.min(128, Math.floor(opts.maxInFlight / 4)));
    this.aheadMs = Math.max(0, Math.floor(opts.aheadMs ?? 0));
    this.lookLeadMs = Math.floor(this.aheadMs / 2);
    this.timer = new WakeTimer({
      now: () => this.now(),
      maxSleepMs: opts.maxSleepMs,
      onFire: () => {
        if (this.active && !this.ticking) this.tickDone = this.tick();
      },
    });
  }

  /** Whether the loop runs (between {@link start} and {@link stop}). */
  get running(): boolean {
    return this.active;
  }

  /** Current time as the store reckons it (epoch ms, UTC): the local clock plus the last offset measured. */
  now(): number {
    return this.opts.clock.now() + this.offsetMs;
  }

  /** Store clock − local clock in ms, as last measured (0 when the store has no clock of its own). */
  get clockOffsetMs(): number {
    return this.offsetMs;
  }

  /** Starts: listens to the store's work hints and looks at the store at once. */
  start(): void {
    if (this.active) return;
    this.active = true;
    this.unsubscribe = this.opts.store.onWork((dueAtMs) => this.wake(dueAtMs));
    this.arm(this.now());
  }

  /** Work is due at `dueAtMs` (store time, epoch ms, UTC): re-arms the timer when that is earlier. */
  wake(dueAtMs: number): void {
    if (!this.active) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    const at = dueAtMs - this.lookLeadMs;
    const armedFor = this.timer.armedFor;
    if (armedFor === null || at < armedFor) this.arm(at);
  }

  /** A call ended: wakes the loop once `refillMin` places are free, when it waits for room. */
  callEnded(): void {
    if (this.waitingForRoom && this.opts.maxInFlight - this.opts.sink.callsInFlight >= this.refillMin) {
      this.waitingForRoom = false;
      this.refilling = true;
      this.wake(this.now());
    }
  }

  /** Stops claiming: no more looks at the store; waits for the look in progress. */
  async stop(): Promise<void> {
    this.active = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.timer.cancel();
    if (this.tickDone) await this.tickDone;
  }

  private arm(dueAtMs: number, minDelayMs = 0): void {
    if (this.active) this.timer.arm(dueAtMs, minDelayMs);
  }

  /**
   * Reads the store's clock (when it has one) and measures the offset to the local clock.
   * @returns the time claims are made with (epoch ms, UTC)
   */
  private async lookAtClock(): Promise<number> {
    const storeNow = await this.opts.store.now();
    const local = this.opts.clock.now(); // read after the answer: the estimate errs late, never early
    if (storeNow === null) {
      this.offsetMs = 0;
      return local;
    }
    this.offsetMs = storeNow - local;
    return storeNow;
  }

  /**
   * One look at the store: claims due work in batches and hands it to the sink. Runs alone
   * (`ticking`). The first claim of a look takes at most {@link FIRST_CLAIM_MAX} items (unless the
   * look refills places freed at the cap), the next ones up to `batchSize`, with a turn of the
   * event loop between two claims (see FIRST_CLAIM_MAX).
   */
  private async tick(): Promise<void> {
    const { store, sink, logger, events } = this.opts;
    this.ticking = true;
    const firstMax = this.refilling ? Infinity : FIRST_CLAIM_MAX;
    this.refilling = false;
    if (this.opts.mayClaim && !this.opts.mayClaim()) {
      logger.debug({}, 'dispatch: not claiming until this node is registered');
      this.arm(this.now() + STORE_RETRY_MS);
      this.ticking = false;
      this.tickDone = null;
      return;
    }
    try {
      let full = false;
      /** What the last claim took work due by (store time): later work can be claimed ahead. */
      let dueBy = -Infinity;
      for (let round = 0; ; round++) {
        if (round > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        this.tickAgain = false;
        const capacity = this.opts.maxInFlight - sink.callsInFlight;
        if (capacity < this.refillMin) {
          full = true; // a finishing call wakes the loop again, once refillMin places are free
          this.waitingForRoom = true;
          break;
        }
        const limit = Math.min(this.opts.batchSize, round === 0 ? firstMax : Infinity, capacity);
        const now = await this.lookAtClock();
        const { claimed: claims, skippedOccurrences } = await store.claimDue({
          now,
          limit,
          nodeId: this.opts.nodeId,
          leaseMs: LEASE_MARGIN_MS + this.aheadMs,
          misfireThresholdMs: this.opts.misfireThresholdMs,
          ...(this.aheadMs > 0 && { aheadMs: this.aheadMs }),
        });
        dueBy = Math.floor(now) + this.aheadMs;
        if (skippedOccurrences > 0) events.emit('dispatch:skipped', skippedOccurrences);
        if (claims.length > 0) {
          events.emit('dispatch:claimed', claims);
          sink.push(claims);
          logger.debug(
            { claimed: claims.length, claimMs: this.now() - now, lateMs: now - claims[0]!.dueAt, queued: sink.queued },
            'dispatch: claimed',
          );
        }
        if (!this.active || (claims.length < limit && !this.tickAgain)) break;
      }
      if (!full) {
        const next = await store.nextDueAt();
        if (this.tickAgain) this.arm(this.now());
        // Work the last claim left behind (next ≤ its time) is due again only once the store's
        // clock has moved: wait at least a millisecond rather than spin. Left behind within the
        // look ahead (a lease not expired yet): only at its instant. Later work: aheadMs / 2 before.
        else if (next === null) this.arm(this.now() + this.opts.maxSleepMs, 1);
        else this.arm(next <= dueBy ? next : next - this.lookLeadMs, 1);
      }
    } catch (err) {
      logger.error({ err }, 'dispatch: claim failed; retrying');
      events.emit('dispatch:error', err);
      this.arm(this.now() + STORE_RETRY_MS);
    } finally {
      this.ticking = false;
      this.tickDone = null;
    }
  }
}
