import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineSweeper } from '../../src/dispatch/call/deadlines.js';

/** Deadlines: never early, a few aborts per turn, cleared ones never aborted. */
describe('DeadlineSweeper', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts a call at its deadline, not before, with a TimeoutError', () => {
    const sweeper = new DeadlineSweeper();
    const d = sweeper.add(100);
    vi.advanceTimersByTime(99);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(sweeper.size).toBe(0);
  });

  it('never aborts a cleared deadline', () => {
    const sweeper = new DeadlineSweeper();
    const a = sweeper.add(10);
    const b = sweeper.add(20);
    a.clear();
    a.clear(); // idempotent
    expect(sweeper.size).toBe(1);
    vi.advanceTimersByTime(30);
    expect(a.signal.aborted).toBe(false);
    expect(b.signal.aborted).toBe(true);
  });

  it('spreads a hundred simultaneous timeouts over turns of the event loop, 4 per turn', () => {
    const sweeper = new DeadlineSweeper(4);
    const deadlines = Array.from({ length: 100 }, () => sweeper.add(1_000));
    const aborted = () => deadlines.filter((d) => d.signal.aborted).length;
    vi.advanceTimersByTime(1_000);
    // advanceTimersByTime also runs the immediates due by then; count turn by turn instead.
    expect(aborted()).toBeGreaterThan(0);
    const seen = [aborted()];
    while (aborted() < 100) {
      vi.advanceTimersToNextTimer();
      seen.push(aborted());
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]! - seen[i - 1]!).toBeLessThanOrEqual(4);
  });

  it('starts at most 4 aborts in the turn the timer fires', () => {
    const sweeper = new DeadlineSweeper(4);
    const deadlines = Array.from({ length: 20 }, () => sweeper.add(50));
    vi.advanceTimersToNextTimer(); // the timer: first turn
    expect(deadlines.filter((d) => d.signal.aborted)).toHaveLength(4);
    vi.advanceTimersToNextTimer(); // one setImmediate: second turn
    expect(deadlines.filter((d) => d.signal.aborted)).toHaveLength(8);
  });

  it('aborts in deadline order whatever the order of adds and clears (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ ms: fc.integer({ min: 0, max: 500 }), clear: fc.boolean() }), { minLength: 1, maxLength: 60 }),
        (specs) => {
          const sweeper = new DeadlineSweeper(3);
          const order: number[] = [];
          const entries = specs.map((s, i) => {
            const d = sweeper.add(s.ms);
            d.signal.once('abort', () => order.push(i));
            return d;
          });
          specs.forEach((s, i) => s.clear && entries[i]!.clear());
          vi.advanceTimersByTime(501);
          vi.runAllTimers();
          const expected = specs
            .map((s, i) => ({ ...s, i }))
            .filter((s) => !s.clear)
            .sort((x, y) => x.ms - y.ms);
          expect(order).toHaveLength(expected.length);
          // Non-decreasing deadlines (ties in any order).
          for (let k = 1; k < order.length; k++) expect(specs[order[k]!]!.ms).toBeGreaterThanOrEqual(specs[order[k - 1]!]!.ms);
          expect(sweeper.size).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
