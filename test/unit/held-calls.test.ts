/**
 * The held calls (held-calls.ts) on an injected store clock: items claimed ahead go to the sink
 * only once the clock reaches their `notBefore`, each at its own instant and in due order; held
 * items count as calls in flight, and shutdown hands back those not due. Each test awaits the
 * sink's pushes; the only waits are the ones that show nothing is released early.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimSink } from '../../src/dispatch/claim-loop.js';
import { HeldCalls, wallFraction } from '../../src/dispatch/held-calls.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { claimedExecution } from '../support/claims.js';

const T0 = Date.UTC(2030, 0, 1);

/** A claimed item (only the fields the hold reads matter). */
function item(id: string, notBefore?: number): ClaimedExecution {
  return claimedExecution({
    executionId: id,
    jobId: id,
    scheduledFor: notBefore ?? T0,
    dueAt: notBefore ?? T0,
    ...(notBefore !== undefined && { notBefore }),
    endpoint: 'http://127.0.0.1:1/x',
    retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 100 },
    timeoutMs: 1_000,
    leaseExpiresAt: T0 + 10_000,
  });
}

/** A sink recording each push with the store time it came at; `next()` resolves at the next push. */
function recordingSink(now: () => number) {
  const pushes: { at: number; ids: string[] }[] = [];
  let waiter: (() => void) | null = null;
  const sink: ClaimSink & { inFlight: number } = {
    inFlight: 0,
    get callsInFlight() {
      return this.inFlight;
    },
    queued: 0,
    push(claims) {
      pushes.push({ at: now(), ids: claims.map((c) => c.executionId) });
      this.inFlight += claims.length;
      waiter?.();
    },
  };
  return { sink, pushes, next: () => new Promise<void>((resolve) => (waiter = resolve)) };
}

/** Lets real timers run for `ms` while the injected clock stands still (to show nothing is released). */
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HeldCalls', () => {
  it('passes items due now straight on, holds the others, and releases each at its own instant, never before', async () => {
    let now = T0;
    const { sink, pushes, next } = recordingSink(() => now);
    const held = new HeldCalls({ now: () => now, sink, fraction: () => 0 });
    held.push([item('due'), item('past', T0 - 3), item('a', T0 + 5), item('b', T0 + 5), item('c', T0 + 8)]);
    expect(pushes).toEqual([{ at: T0, ids: ['due', 'past'] }]);
    expect(held.size).toBe(3);
    expect(held.callsInFlight).toBe(2 + 3); // held items hold leases: they count against the cap
    expect(held.queued).toBe(3);
    now = T0 + 4;
    await idle(30);
    expect(pushes).toHaveLength(1); // one ms before: nothing
    let pushed = next();
    now = T0 + 5;
    await pushed;
    expect(pushes[1]).toEqual({ at: T0 + 5, ids: ['a', 'b'] });
    now = T0 + 7;
    await idle(20);
    expect(pushes).toHaveLength(2);
    pushed = next();
    now = T0 + 9; // late (a busy loop): released at once
    await pushed;
    expect(pushes[2]).toEqual({ at: T0 + 9, ids: ['c'] });
    expect(held.size).toBe(0);
  });

  it('keeps due order across pushes, and an earlier item re-arms the timer', async () => {
    let now = T0;
    const { sink, pushes, next } = recordingSink(() => now);
    const held = new HeldCalls({ now: () => now, sink, fraction: () => 0 });
    held.push([item('late', T0 + 50)]);
    held.push([item('early', T0 + 2), item('mid', T0 + 20)]);
    let pushed = next();
    now = T0 + 2;
    await pushed;
    expect(pushes).toEqual([{ at: T0 + 2, ids: ['early'] }]);
    pushed = next();
    now = T0 + 60;
    await pushed;
    expect(pushes[1]).toEqual({ at: T0 + 60, ids: ['mid', 'late'] });
  });

  it('at shutdown releases what comes due within the grace period and returns the rest, then stays quiet', async () => {
    let now = T0;
    const { sink, pushes, next } = recordingSink(() => now);
    const held = new HeldCalls({ now: () => now, sink, fraction: () => 0 });
    held.push([item('soon', T0 + 1), item('later', T0 + 90)]);
    const settling = held.settle(60);
    const pushed = next();
    now = T0 + 1;
    await pushed;
    const left = await settling;
    expect(pushes).toEqual([{ at: T0 + 1, ids: ['soon'] }]);
    expect(left.map((c) => c.executionId)).toEqual(['later']);
    expect(held.size).toBe(0);
    now = T0 + 100;
    await idle(20);
    expect(pushes).toHaveLength(1); // its timer stopped with it
    // Nothing held: settle returns at once.
    expect(await held.settle(60_000)).toEqual([]);
  });

  it('on the real clock, a call is released within its millisecond, never before (Date.now() >= notBefore)', async () => {
    const { sink, pushes, next } = recordingSink(() => Date.now());
    const held = new HeldCalls({ now: () => Date.now(), sink });
    const lateness: number[] = [];
    for (let k = 0; k < 20; k++) {
      const at = Date.now() + 3 + (k % 4);
      const pushed = next();
      held.push([item(`r${k}`, at)]);
      await pushed;
      const released = pushes[pushes.length - 1]!.at;
      expect(released).toBeGreaterThanOrEqual(at);
      lateness.push(released - at);
    }
    const f = wallFraction();
    expect(f).toBeGreaterThanOrEqual(0);
    expect(f).toBeLessThan(1);
    // Whole ms: most releases fall in their own millisecond (a stall of the machine may delay a few).
    expect(lateness.filter((l) => l === 0).length).toBeGreaterThanOrEqual(10);
  });
});
