/**
 * Calls claimed ahead of their instant (claim-loop.ts, {@link CLAIM_AHEAD_MS}): held in memory,
 * then handed to the calls (calls.ts) each at its own instant, never before it. The claim's round
 * trip to the store is then paid before the instant, not after it.
 */
import type { ClaimedExecution } from '../domain/types.js';
import type { ClaimSink } from './claim-loop.js';
import { WAKE_LEAD_MS, WAKE_STEP_MS } from './wake-timer.js';

/**
 * How far ahead (ms) the claim loop claims work: what is due within the next 100 ms is claimed
 * now and held here until its instant. Long enough to hide a claim many times over (SQLite
 * ~1.3 ms per transaction plus 35-50 µs per item; PostgreSQL a few round trips of 0.2-0.3 ms and
 * a commit; a look every ~50 ms at a steady rate) and a busy event loop's hiccups; short enough
 * that the leases held early stay few (1,000 calls due per second hold 50-150 places of the
 * in-flight cap of 512) and that the window in which a claimed schedule can no longer be patched
 * (409 `not_pending`) nor its call stopped by a delete (docs/architecture.md "Claim ahead") stays
 * shorter than a human notices. The dispatcher's `claimAheadMs` overrides it (0: claim only what is due).
 */
export const CLAIM_AHEAD_MS = 100;

/**
 * Time left (ms, estimated to a fraction of a ms) under which a held call's timer stops sleeping
 * and checks the clock on every turn of the event loop (`setImmediate`) until the instant. A
 * `setTimeout` has 1 ms granularity and often fires a fraction of a ms before a `Date.now()`
 * millisecond begins: waiting for the next one costs up to 1 ms. Measured on the bench machine
 * (400 instants, loaded): waiting only on timers, lateness p50 0.67-0.75 ms; closing in under
 * 0.2 ms, p50 0.51 ms for 0.03 ms of turns per instant; under 0.4 ms, p50 0.36 ms for 0.10 ms;
 * under 0.6 ms, p50 0.28 ms for 0.20 ms. At 1,000 instants a second, 0.3 ms costs ~6% of a core.
 */
export const CLOSE_IN_MS = 0.3;
/**
 * Most time (ms) one instant is closed in on by turns of the event loop; past it (a clock that
 * does not follow `Date.now()`, as tests inject) the timer falls back to 1 ms sleeps.
 */
export const CLOSE_IN_MAX_MS = 2;

/** Store time − estimated wall time of `performance`'s clock (ms); see {@link wallFraction}. */
let skewMs = 0;

/**
 * How far into the current `Date.now()` millisecond the wall clock is, in [0, 1): estimated from
 * `performance.timeOrigin + performance.now()`, kept within the bounds each `Date.now()` reading
 * gives, and set exactly when a held call's close-in sees the millisecond change (the two clocks
 * drift apart by up to a ms a minute; docs/benchmarks.md). Only decides how to wait, never whether
 * a call may start.
 */
export function wallFraction(): number {
  const ms = Date.now();
  const f = performance.timeOrigin + performance.now() - skewMs - ms;
  if (f < 0) {
    skewMs += f;
    return 0;
  }
  if (f >= 1) {
    skewMs += f - 0.999;
    return 0.999;
  }
  return f;
}

/** The millisecond of `Date.now()` began just now: the estimate of {@link wallFraction} is 0 here. */
function wallTickSeen(): void {
  skewMs = performance.timeOrigin + performance.now() - Date.now();
}

/** Options of {@link HeldCalls}. */
export interface HeldCallsOptions {
  /** Current time as the store reckons it (epoch ms, UTC): a call starts once `now() >= notBefore`. */
  now: () => number;
  /** The calls (calls.ts): where items go at their instant, and items due at once right away. */
  sink: ClaimSink;
  /** Fraction of the current millisecond elapsed, in [0, 1) (default {@link wallFraction}). */
  fraction?: () => number;
}

/**
 * A {@link ClaimSink} in front of the calls: an item without `notBefore`, or whose `notBefore` has
 * come, goes to the calls at once; the others wait, in `notBefore` order, for one timer armed for
 * the earliest. When it fires, every held item then due goes to the calls, in due order. Held
 * items count as calls in flight (they hold leases). A timer sleeps as wake-timer.ts does (closing
 * in after {@link WAKE_LEAD_MS}), then checks the clock each turn for the last
 * {@link CLOSE_IN_MS}; an item is released only when `now() >= notBefore`.
 */
export class HeldCalls implements ClaimSink {
  /** Items not due yet, by `notBefore` (then claim order). */
  private held: ClaimedExecution[] = [];
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  /** The instant (store time) the timer waits for, or null. */
  private target: number | null = null;
  /** `performance.now()` when closing in on `target` began, or null. */
  private closeInFrom: number | null = null;
  /** Resolves `settle`'s wait once nothing is held. */
  private onEmpty: (() => void) | null = null;
  /** `Date.now()` at the last check if it was a turn of closing in (else -1), to see its millisecond change. */
  private lastWallMs = -1;
  private readonly fraction: () => number;

  constructor(private readonly opts: HeldCallsOptions) {
    this.fraction = opts.fraction ?? wallFraction;
  }

  /** Items held (claimed, not due yet). */
  get size(): number {
    return this.held.length;
  }

  /** Calls in flight in the calls, plus the items held. */
  get callsInFlight(): number {
    return this.opts.sink.callsInFlight + this.held.length;
  }

  /** Claimed calls not started yet: queued in the calls, or held. */
  get queued(): number {
    return this.opts.sink.queued + this.held.length;
  }

  /** Takes claimed work (in claim order): due items go to the calls now, the rest are held. */
  push(claims: ClaimedExecution[]): void {
    const now = this.opts.now();
    const ready: ClaimedExecution[] = [];
    for (const c of claims) {
      if (c.notBefore === undefined || c.notBefore <= now) ready.push(c);
      else this.hold(c);
    }
    this.release(now);
    if (ready.length > 0) this.opts.sink.push(ready);
    this.arm();
  }

  /**
   * At shutdown: lets held items go to the calls at their instants for up to `graceMs` (they are
   * due within the look ahead), then takes out and returns those still held; the timer stops.
   */
  async settle(graceMs: number): Promise<ClaimedExecution[]> {
    if (this.held.length > 0) {
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.onEmpty = resolve)),
        new Promise<void>((resolve) => (deadline = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(deadline);
      this.onEmpty = null;
    }
    return this.takeAll();
  }

  /** Removes and returns every held item; the timer stops. */
  takeAll(): ClaimedExecution[] {
    this.cancel();
    const all = this.held;
    this.held = [];
    return all;
  }

  private hold(c: ClaimedExecution): void {
    let i = this.held.length; // claims come in due order: usually appended
    while (i > 0 && this.held[i - 1]!.notBefore! > c.notBefore!) i--;
    this.held.splice(i, 0, c);
  }

  /** Hands every held item due at `now` to the calls, in due order. */
  private release(now: number): void {
    let k = 0;
    while (k < this.held.length && this.held[k]!.notBefore! <= now) k++;
    if (k > 0) this.opts.sink.push(this.held.splice(0, k));
    if (this.held.length === 0) this.onEmpty?.();
  }

  /** Arms the timer for the earliest held item, unless it already waits for that instant. */
  private arm(): void {
    const first = this.held[0];
    if (first === undefined) return this.cancel();
    if (this.target === first.notBefore) return;
    this.cancel();
    this.target = first.notBefore!;
    this.wait();
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
    this.target = null;
    this.closeInFrom = null;
    this.lastWallMs = -1;
  }

  /** One step towards `target`: release when reached, else sleep or check again next turn. */
  private wait(): void {
    this.timer = null;
    this.immediate = null;
    const target = this.target!;
    const now = this.opts.now();
    if (now >= target) {
      if (this.lastWallMs >= 0 && Date.now() !== this.lastWallMs) wallTickSeen();
      this.lastWallMs = -1;
      this.target = null;
      this.closeInFrom = null;
      this.release(now);
      this.arm();
      return;
    }
    const left = target - now - this.fraction();
    if (left <= CLOSE_IN_MS) {
      const t = performance.now();
      this.closeInFrom ??= t;
      if (t - this.closeInFrom < CLOSE_IN_MAX_MS) {
        this.lastWallMs = Date.now();
        this.immediate = setImmediate(() => this.wait());
        return;
      }
    }
    // As wake-timer.ts: after a longer sleep wake WAKE_LEAD_MS early, then by steps of WAKE_STEP_MS.
    this.lastWallMs = -1;
    const sleep = left > WAKE_LEAD_MS ? left - WAKE_LEAD_MS : Math.min(WAKE_STEP_MS, left);
    this.timer = setTimeout(() => this.wait(), Math.max(1, Math.floor(sleep)));
  }
}
