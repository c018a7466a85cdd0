/**
 * Puts the receiver's high-resolution arrival times on the wall clock the service uses.
 *
 * The receiver stamps each arrival twice: `hr` (performance.now() plus an offset calibrated once,
 * when the run was armed; fractional ms) and `ms` (Date.now(), whole ms). The calibrated offset
 * alone is not enough: the monotonic clock behind performance.now() and the wall clock behind
 * Date.now() drift apart (NTP slewing, a VM's clock adjustments) — measured here: the first
 * arrivals of a run stamped up to 0.6 ms *before* their Date.now() millisecond, a minute after
 * calibration. So the offset is re-derived from the arrivals themselves, per window of wall time:
 * every arrival satisfies ms ≤ hr + offset < ms + 1, hence offset ≥ max(ms − hr) and
 * offset < min(ms − hr) + 1. With hundreds of arrivals spread over a window, max(ms − hr) is
 * within microseconds of the true offset; it is the value used, so that no arrival is put before
 * its own Date.now() millisecond.
 */

/** What {@link alignToWallClock} did. */
export interface ClockAlignment {
  /** hr times moved onto the wall clock (epoch ms, fractional; NaN where hr was NaN). */
  aligned: Float64Array;
  /**
   * Windows whose constraints contradict each other by more than 0.05 ms (the two clocks moved
   * apart by ≥ 1 ms within the window: a step). Tiny contradictions are normal: the two stamps are
   * read one after the other, and with arrivals all over the millisecond the bounds meet.
   */
  inconsistentWindows: number;
  /** Largest correction applied to the receiver's calibrated hr times (ms, absolute). */
  maxCorrectionMs: number;
  /** Largest uncertainty left in a window: min(ms − hr) + 1 − max(ms − hr) (ms). */
  maxUncertaintyMs: number;
}

export function alignToWallClock(hr: Float64Array, ms: Float64Array, windowMs = 1_000): ClockAlignment {
  const bounds = new Map<number, { lo: number; hi: number }>();
  for (let i = 0; i < hr.length; i++) {
    if (Number.isNaN(hr[i]!)) continue;
    const w = Math.floor(ms[i]! / windowMs);
    const d = ms[i]! - hr[i]!;
    const b = bounds.get(w);
    if (b) {
      if (d > b.lo) b.lo = d;
      if (d + 1 < b.hi) b.hi = d + 1;
    } else bounds.set(w, { lo: d, hi: d + 1 });
  }
  const aligned = new Float64Array(hr.length).fill(Number.NaN);
  for (let i = 0; i < hr.length; i++) {
    if (Number.isNaN(hr[i]!)) continue;
    aligned[i] = hr[i]! + bounds.get(Math.floor(ms[i]! / windowMs))!.lo;
  }
  let inconsistentWindows = 0;
  let maxCorrectionMs = 0;
  let maxUncertaintyMs = 0;
  for (const { lo, hi } of bounds.values()) {
    if (hi < lo - 0.05) inconsistentWindows++;
    maxCorrectionMs = Math.max(maxCorrectionMs, Math.abs(lo));
    maxUncertaintyMs = Math.max(maxUncertaintyMs, Math.max(0, hi - lo));
  }
  return { aligned, inconsistentWindows, maxCorrectionMs, maxUncertaintyMs };
}
