import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HUNG_MEMORY_MS, LaunchQueue, SLOW_ORIGIN_MS } from '../../src/dispatch/launch-queue.js';

/** The launch order of claimed calls: a few per turn, idle origins first. */
interface Item {
  origin: string;
  name: string;
}

describe('LaunchQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setImmediate'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const items = (origin: string, n: number, prefix = origin): Item[] =>
    Array.from({ length: n }, (_, i) => ({ origin, name: `${prefix}${i}` }));

  it('starts at most startsPerTurn calls in the pushing turn, the rest in later turns', () => {
    const started: string[] = [];
    const q = new LaunchQueue<Item>((i) => started.push(i.name), 4);
    q.push(items('a', 10));
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(q.size).toBe(6);
    vi.advanceTimersToNextTimer();
    expect(started).toHaveLength(8);
    vi.advanceTimersToNextTimer();
    expect(started).toHaveLength(10);
    expect(q.size).toBe(0);
  });

  it('starts calls to a slow origin (a call waiting ≥ SLOW_ORIGIN_MS for its answer) after the others', () => {
    let now = 0;
    const started: string[] = [];
    const q = new LaunchQueue<Item>((i) => started.push(i.name), 2, () => now);
    // Two hanging origins and the healthy one get a call each.
    const first = [...items('http://h1', 1), ...items('http://h2', 1)];
    q.push(first);
    expect(started).toEqual(['http://h10', 'http://h20']);
    const healthy = { origin: 'http://ok', name: 'ok-first' };
    q.push([healthy]);
    expect(started).toHaveLength(3);
    // A moment later the healthy call is in flight too (its answer not read yet): not slow.
    now = SLOW_ORIGIN_MS - 1;
    q.push([...items('http://h1', 1, 'early-h1-'), { origin: 'http://ok', name: 'ok-early' }]);
    expect(started.slice(3)).toEqual(['early-h1-0', 'ok-early']);
    q.finished(healthy); // answered within SLOW_ORIGIN_MS
    // Once the hanging calls have waited SLOW_ORIGIN_MS, a wave to them goes after a healthy call
    // claimed in the same batch (or later), however the batch is ordered.
    now = SLOW_ORIGIN_MS + 50;
    q.push([...items('http://h1', 3, 'h1-'), ...items('http://h2', 3, 'h2-'), { origin: 'http://ok', name: 'ok' }]);
    expect(started.slice(5)).toEqual(['ok', 'h1-0']);
    q.push([{ origin: 'http://ok2', name: 'ok2' }]);
    vi.advanceTimersToNextTimer();
    expect(started.slice(7)).toEqual(['ok2', 'h1-1']);
    vi.runAllTimers();
    expect(started).toHaveLength(13);
  });

  it('treats an origin whose call timed out as hung (slow, and flagged) until one of its calls is answered or HUNG_MEMORY_MS pass', () => {
    let now = 0;
    const started: string[] = [];
    const hungFlags = new Map<string, boolean>();
    const q = new LaunchQueue<Item>(
      (i, hung) => {
        started.push(i.name);
        hungFlags.set(i.name, hung);
      },
      1,
      () => now,
    );
    const first = items('http://a', 1, 'first-');
    q.push(first);
    now = 10 * SLOW_ORIGIN_MS;
    const second = items('http://a', 1, 'second-');
    q.push([...items('http://b', 1, 'b'), ...second, ...items('http://c', 1, 'c')]);
    vi.runAllTimers();
    // http://a is slow (a call waiting), so its call starts last, but not hung: nothing timed out.
    expect(started).toEqual(['first-0', 'b0', 'c0', 'second-0']);
    expect(Object.fromEntries(hungFlags)).toEqual({ 'first-0': false, b0: false, c0: false, 'second-0': false });
    // A slow answer does not make an origin hung; a timeout does, and outlives the call.
    q.finished(first[0]!, 'answered');
    expect(q.isHung('http://a')).toBe(false);
    q.finished(second[0]!, 'timedOut');
    q.finished({ origin: 'http://a', name: 'unknown' }, 'answered'); // never started here: ignored
    expect(q.isHung('http://a')).toBe(true);
    started.length = 0;
    const third = items('http://a', 1, 'third-');
    q.push([...third, ...items('http://d', 1, 'd')]);
    vi.runAllTimers();
    expect(started).toEqual(['d0', 'third-0']);
    expect(hungFlags.get('third-0')).toBe(true);
    // An ending without an answer nor a timeout (connection refused) changes nothing; an answer,
    // whatever its status and however slow, ends it.
    now += 5 * SLOW_ORIGIN_MS;
    q.finished(third[0]!, 'other');
    expect(q.isHung('http://a')).toBe(true);
    const fourth = items('http://a', 1, 'fourth-');
    q.push(fourth);
    now += 5 * SLOW_ORIGIN_MS;
    q.finished(fourth[0]!, 'answered');
    expect(q.isHung('http://a')).toBe(false);
    expect(q.isSlow('http://a')).toBe(false);
    // Otherwise the memory ends HUNG_MEMORY_MS after the timeout.
    const e = items('http://e', 1);
    q.push(e);
    q.finished(e[0]!, 'timedOut');
    now += HUNG_MEMORY_MS - 1;
    expect(q.isSlow('http://e')).toBe(true);
    now += 1;
    expect(q.isSlow('http://e')).toBe(false);
  });

  it('stops starting calls in a turn once they have taken the turn budget', () => {
    let now = 0;
    const started: string[] = [];
    // Each start takes 0.6 ms; budget 1 ms: two starts per turn (the second begins at 0.6 ms).
    const q = new LaunchQueue<Item>(
      (i) => {
        started.push(i.name);
        now += 0.6;
      },
      32,
      () => now,
      1,
    );
    q.push(items('a', 5));
    expect(started).toEqual(['a0', 'a1']);
    vi.advanceTimersToNextTimer();
    expect(started).toHaveLength(4);
    vi.advanceTimersToNextTimer();
    expect(started).toHaveLength(5);
  });

  it('starts at most slowStartsPerTurn calls to slow origins per turn, and other calls first', () => {
    let now = 0;
    const started: string[] = [];
    const q = new LaunchQueue<Item>((i) => started.push(i.name), 32, () => now, 1_000, 2);
    q.push(items('http://h', 1, 'first-'));
    now = SLOW_ORIGIN_MS; // http://h is slow from now on
    q.push([...items('http://h', 5, 'h'), ...items('http://ok', 3, 'ok')]);
    // The healthy calls all start in this turn (up to 32), the slow origin's only two.
    expect(started).toEqual(['first-0', 'ok0', 'ok1', 'ok2', 'h0', 'h1']);
    vi.advanceTimersToNextTimer();
    expect(started.slice(6)).toEqual(['h2', 'h3']);
    // Pushed while a turn is queued: it starts in that turn, ahead of the slow origin's last call.
    q.push(items('http://ok2', 1, 'x'));
    expect(started).toHaveLength(8);
    vi.advanceTimersToNextTimer();
    expect(started.slice(8)).toEqual(['x0', 'h4']);
    expect(q.size).toBe(0);
  });

  it('hands back every item not started yet', () => {
    const started: string[] = [];
    const q = new LaunchQueue<Item>((i) => started.push(i.name), 3);
    q.push(items('x', 7));
    const rest = q.takeAll();
    expect(rest.map((i) => i.name)).toEqual(['x3', 'x4', 'x5', 'x6']);
    vi.runAllTimers();
    expect(started).toEqual(['x0', 'x1', 'x2']);
    expect(q.size).toBe(0);
  });
});
