import { describe, expect, it } from 'vitest';
import { WAKE_LEAD_MS, WakeTimer } from '../../src/dispatch/wake-timer.js';

const T0 = Date.UTC(2030, 0, 1);

/**
 * A timer on an injected store clock that stands still at `T0` (only the monotonic clock, the
 * real `performance.now`, moves): `fired` resolves with the monotonic ms it fired at.
 */
function timerAt(maxSleepMs = 5_000) {
  let fire: (at: number) => void = () => undefined;
  let fires = 0;
  const timer = new WakeTimer({
    now: () => T0,
    maxSleepMs,
    onFire: () => {
      fires++;
      fire(performance.now());
    },
  });
  return {
    timer,
    get fires() {
      return fires;
    },
    next: () => new Promise<number>((resolve) => (fire = resolve)),
  };
}

describe('WakeTimer', () => {
  it('fires once, never before its instant, after a sleep longer than the lead (closing in by steps)', async () => {
    const t = timerAt();
    const fired = t.next();
    const start = performance.now();
    t.timer.arm(T0 + WAKE_LEAD_MS + 30);
    expect(t.timer.armedFor).toBe(T0 + WAKE_LEAD_MS + 30);
    const at = await fired;
    expect(at - start).toBeGreaterThan(WAKE_LEAD_MS + 30 - 1);
    expect(t.fires).toBe(1);
    expect(t.timer.armedFor).toBeNull();
  });

  it('caps a sleep at maxSleepMs, and keeps minDelayMs for an instant already past', async () => {
    const t = timerAt(20);
    t.timer.arm(T0 + 3_600_000);
    expect(t.timer.armedFor).toBe(T0 + 20);
    t.timer.arm(T0 - 10, 1);
    expect(t.timer.armedFor).toBe(T0 + 1);
    t.timer.arm(T0 - 10);
    expect(t.timer.armedFor).toBe(T0);
    await t.next();
    expect(t.fires).toBe(1); // re-arming replaced the earlier instants
  });

  it('does not fire once cancelled, nor for an instant it was re-armed away from', async () => {
    const cancelled = timerAt();
    cancelled.timer.arm(T0 + 5);
    cancelled.timer.cancel();
    expect(cancelled.timer.armedFor).toBeNull();
    const later = timerAt();
    const fired = later.next();
    later.timer.arm(T0 + 1);
    later.timer.arm(T0 + 30);
    await fired;
    const witness = timerAt();
    const witnessFired = witness.next();
    witness.timer.arm(T0 + 20); // well past the cancelled timer's 5 ms
    await witnessFired;
    expect(cancelled.fires).toBe(0);
    expect(later.fires).toBe(1);
  });
});
