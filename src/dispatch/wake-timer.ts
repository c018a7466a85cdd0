/**
 * The dispatcher's timer: fires once at an instant of the store's time, on time to the
 * millisecond even after an idle stretch.
 */

/**
 * How long (ms) before a due instant the timer wakes after a longer sleep, to close in on the
 * instant with sleeps of at most {@link WAKE_STEP_MS}. On the virtual machine of
 * docs/benchmarks.md a timer that ends an idle stretch fires late: a plain `setTimeout` of
 * 0.5-5 s fired 11-29 ms late (the vCPU wakes from halt), and the first calls of every quiet round
 * of test/e2e/isolation.test.ts were 20-55 ms late. Sleeps of a few ms are on time (within 1 ms);
 * waking 50 ms early and closing in by 5 ms steps made 2.5 s sleeps end within 1 ms of their
 * instant (16 of 16). Costs about ten extra wake-ups per due instant after a quiet stretch.
 */
export const WAKE_LEAD_MS = 50;
/** Longest sleep (ms) while closing in on a due instant; see {@link WAKE_LEAD_MS}. */
export const WAKE_STEP_MS = 5;

/** Options of {@link WakeTimer}. Durations in ms. */
export interface WakeTimerOptions {
  /** Current time as the store reckons it (epoch ms, UTC): what due instants are measured against. */
  now: () => number;
  /** Longest sleep: an instant further away is armed this far ahead instead. */
  maxSleepMs: number;
  /** Called when the armed instant is reached (not when the timer is re-armed or cancelled). */
  onFire: () => void;
  /** Monotonic ms the sleep is measured on while closing in (default `performance.now`). */
  monotonic?: () => number;
}

/**
 * One timer, armed for one instant at a time. {@link arm} replaces the instant armed before.
 * It sleeps `min(max(minDelay, dueAt − now), maxSleepMs)` ms: until {@link WAKE_LEAD_MS} before
 * that, then by steps of at most {@link WAKE_STEP_MS} on the monotonic clock, and fires once
 * less than 1 ms is left; never before the instant by the monotonic clock.
 */
export class WakeTimer {
  private timer: NodeJS.Timeout | null = null;
  private armed: number | null = null;
  private readonly monotonic: () => number;

  constructor(private readonly opts: WakeTimerOptions) {
    this.monotonic = opts.monotonic ?? (() => performance.now());
  }

  /** The instant (store time, epoch ms) the armed timer fires at, or null when none is armed. */
  get armedFor(): number | null {
    return this.armed;
  }

  /**
   * Arms the timer for `dueAtMs` (store time, epoch ms, UTC), at most `maxSleepMs` ahead.
   * `minDelayMs` (1 after a look at the store said "not yet") keeps an estimate that errs by a
   * millisecond from spinning.
   */
  arm(dueAtMs: number, minDelayMs = 0): void {
    if (this.timer) clearTimeout(this.timer);
    const now = this.opts.now();
    const delay = Math.min(Math.max(minDelayMs, dueAtMs - now), this.opts.maxSleepMs);
    this.armed = now + delay;
    const at = this.monotonic() + delay;
    // Wake WAKE_LEAD_MS early, then close in with sleeps of at most WAKE_STEP_MS (see WAKE_LEAD_MS).
    const closeIn = (): void => {
      const left = at - this.monotonic();
      if (left >= 1) {
        this.timer = setTimeout(closeIn, Math.min(WAKE_STEP_MS, Math.floor(left)));
        return;
      }
      this.timer = null;
      this.armed = null;
      this.opts.onFire();
    };
    this.timer = setTimeout(closeIn, delay > WAKE_LEAD_MS ? delay - WAKE_LEAD_MS : Math.min(delay, WAKE_STEP_MS));
  }

  /** Disarms the timer; it will not fire until armed again. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armed = null;
  }
}
