/**
 * The admission rule of flow control (src/store/rules/flow-control.ts): a key's calls never
 * exceed its parallelism, never its rate in any window of one period (not only in fixed ones),
 * a call held by the rate is admitted at the instant the rule names, and one claim's room is
 * shared between keys in turn. Property tests over random limits and random demands in time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlowControlLimits } from '../../src/domain/flow-control.js';
import { admission, liveStarts, shareInTurn } from '../../src/store/rules/flow-control.js';

const limits = (l: Partial<FlowControlLimits>): FlowControlLimits => ({ parallelism: null, rate: null, periodMs: 1_000, paused: false, holdUntil: null, ...l });

/** The most starts of `starts` (ascending) in any half-open window (t − periodMs, t]. */
function fullestWindow(starts: readonly number[], periodMs: number): number {
  let most = 0;
  let from = 0;
  for (let i = 0; i < starts.length; i++) {
    while (starts[from]! <= starts[i]! - periodMs) from++;
    most = Math.max(most, i - from + 1);
  }
  return most;
}

describe('flow control: admission', () => {
  it('admits what the limits leave: no limits admit all, a pause or a hold none', () => {
    expect(admission(limits({}), { inFlight: 50, starts: [] }, 0, 7)).toEqual({ admit: 7, nextAt: null });
    expect(admission(limits({ parallelism: 5, paused: true }), { inFlight: 0, starts: [] }, 0, 3)).toEqual({ admit: 0, nextAt: null });
    expect(admission(limits({ holdUntil: 5_000 }), { inFlight: 0, starts: [] }, 4_000, 3)).toEqual({ admit: 0, nextAt: 5_000 });
    expect(admission(limits({ holdUntil: 5_000 }), { inFlight: 0, starts: [] }, 5_000, 3)).toEqual({ admit: 3, nextAt: null });
    expect(admission(limits({ parallelism: 5 }), { inFlight: 3, starts: [] }, 0, 10)).toEqual({ admit: 2, nextAt: null });
    expect(admission(limits({ parallelism: 5 }), { inFlight: 0, starts: [] }, 0, 0)).toEqual({ admit: 0, nextAt: null });
  });

  it('is a sliding window: a full period ending just before a new one still counts (where a bucket of `rate` would let twice `rate` through)', () => {
    const l = limits({ rate: 10, periodMs: 1_000 });
    const starts = Array<number>(10).fill(999);
    // A fixed window [1000, 2000) would start afresh at 1000; the sliding one holds the 10 starts of 999 until 1999.
    expect(admission(l, { inFlight: 0, starts }, 1_001, 10)).toEqual({ admit: 0, nextAt: 1_999 });
    expect(admission(l, { inFlight: 0, starts }, 1_998, 10).admit).toBe(0);
    expect(admission(l, { inFlight: 0, starts }, 1_999, 10)).toEqual({ admit: 10, nextAt: null });
    // Part of the rate left: the rest waits for the oldest start counted to leave the window.
    expect(admission(l, { inFlight: 0, starts: [100, 200, 300, 400, 500, 600, 700] }, 800, 5)).toEqual({ admit: 3, nextAt: 1_100 });
  });

  it('names no instant when parallelism holds the calls back (a finish frees a slot)', () => {
    expect(admission(limits({ parallelism: 2, rate: 100 }), { inFlight: 2, starts: [0, 1] }, 5, 4)).toEqual({ admit: 0, nextAt: null });
  });

  it('never exceeds parallelism nor the rate in any window, and a call held by the rate starts at the instant named', () => {
    const step = fc.record({ dt: fc.integer({ min: 0, max: 700 }), arrive: fc.integer({ min: 0, max: 30 }), finish: fc.integer({ min: 0, max: 30 }) });
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
        fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
        fc.integer({ min: 1_000, max: 5_000 }),
        fc.array(step, { minLength: 1, maxLength: 80 }),
        (parallelism, rate, periodMs, steps) => {
          const l = limits({ parallelism, rate, periodMs });
          const starts: number[] = [];
          let inFlight = 0;
          let waiting = 0;
          let now = 0;
          for (const s of steps) {
            now += s.dt;
            inFlight -= Math.min(inFlight, s.finish);
            waiting += s.arrive;
            const a = admission(l, { inFlight, starts }, now, waiting);
            expect(a.admit).toBeGreaterThanOrEqual(0);
            expect(a.admit).toBeLessThanOrEqual(waiting);
            for (let i = 0; i < a.admit; i++) starts.push(now);
            inFlight += a.admit;
            waiting -= a.admit;
            if (parallelism !== null) expect(inFlight).toBeLessThanOrEqual(parallelism);
            if (rate !== null) expect(fullestWindow(starts, periodMs)).toBeLessThanOrEqual(rate);
            if (waiting > 0 && a.nextAt !== null) {
              // Held by the rate: not a millisecond earlier, and at that instant (nothing else changed) one more may start.
              expect(a.nextAt).toBeGreaterThan(now);
              expect(admission(l, { inFlight, starts }, a.nextAt - 1, waiting).admit).toBe(0);
              expect(admission(l, { inFlight, starts }, a.nextAt, waiting).admit).toBeGreaterThan(0);
            }
            if (waiting > 0 && a.nextAt === null) expect(inFlight).toBe(parallelism);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('liveStarts keeps the starts after now − period', () => {
    expect(liveStarts([0, 500, 1_000, 1_500], 2_000, 1_000)).toEqual([1_500]);
    expect(liveStarts([0, 500, 1_000, 1_500], 1_999, 1_000)).toEqual([1_000, 1_500]);
    expect(liveStarts([], 10, 1_000)).toEqual([]);
  });
});

describe('flow control: sharing a claim between keys', () => {
  it('gives each key in turn: a backlog of 100,000 takes no more of a round than a key with one call', () => {
    const share = shareInTurn([{ key: 'big', wanted: 100_000 }, { key: 'small', wanted: 1 }, { key: 'mid', wanted: 3 }], 6);
    expect(Object.fromEntries(share)).toEqual({ big: 3, small: 1, mid: 2 });
    expect(Object.fromEntries(shareInTurn([{ key: 'a', wanted: 2 }, { key: 'b', wanted: 2 }], 3))).toEqual({ a: 2, b: 1 });
    expect(shareInTurn([{ key: 'a', wanted: 5 }], 0).size).toBe(0);
  });

  it('never gives more than the room nor than a key wants, gives all when the room is enough, and keeps the shares within one of each other', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 12 }), fc.integer({ min: 0, max: 300 }), (wants, room) => {
        const demands = wants.map((wanted, i) => ({ key: `k${i}`, wanted }));
        const share = shareInTurn(demands, room);
        const given = demands.map((d) => share.get(d.key) ?? 0);
        const total = given.reduce((a, b) => a + b, 0);
        const wanted = wants.reduce((a, b) => a + b, 0);
        expect(total).toBe(Math.min(room, wanted));
        demands.forEach((d, i) => expect(given[i]).toBeLessThanOrEqual(d.wanted));
        // A key left short got at least as many as any other key, less one.
        const short = demands.filter((d, i) => given[i]! < d.wanted).map((d) => share.get(d.key) ?? 0);
        if (short.length > 0) expect(Math.max(...given) - Math.min(...short)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });
});
