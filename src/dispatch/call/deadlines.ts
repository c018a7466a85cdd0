/**
 * Call deadlines with one timer: a hung endpoint must not hold up the calls of others (docs/calls.md, "Slow and hung endpoints").
 *
 * Why not `AbortSignal.timeout()` per call: a hundred endpoints that hang were called together, so
 * their timeouts expire together, and each abort is synchronous work (undici tears the socket
 * down, errors are built, the attempt's outcome is computed). A hundred of them in one turn of the
 * event loop kept it busy for 30–60 ms on the 2-core machine of docs/benchmarks.md, and every
 * healthy call due then was as late. Here one timer watches the earliest deadline, and expired
 * calls are aborted at most {@link DEFAULT_ABORTS_PER_TURN} per turn, with a `setImmediate`
 * between turns so that I/O (healthy calls and their answers) runs in between. A call is thus
 * aborted at its deadline or a few turns after it, never before.
 *
 * The signal of a deadline is an `EventEmitter` ({@link DeadlineSignal}), which undici's
 * `request` takes as its `signal` (undici docs, Dispatcher.request: `AbortSignal | EventEmitter`):
 * an `AbortController` and its `AbortSignal` per call (an `EventTarget`) were 3-4 % of the event
 * loop's time in the burst profile of docs/benchmarks.md.
 */
import { EventEmitter } from 'node:events';

/** Calls aborted per turn of the event loop, at most. */
export const DEFAULT_ABORTS_PER_TURN = 4;

/**
 * The signal of one deadline, in the shape undici reads from an `EventEmitter` signal: `aborted`
 * and `reason`, and one `abort` event, emitted once.
 */
export class DeadlineSignal extends EventEmitter {
  /** True once the deadline has passed. */
  aborted = false;
  /** Why: a `DOMException` named `TimeoutError`, once aborted; undefined before. */
  reason: unknown = undefined;

  /** Aborts with `reason` and emits `abort`; idempotent. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** A registered deadline. */
export interface Deadline {
  /** Aborted (reason: a `DOMException` named `TimeoutError`) once the deadline has passed. */
  readonly signal: DeadlineSignal;
  /** The call finished: forget the deadline. Idempotent. */
  clear(): void;
}

interface Entry {
  at: number;
  index: number;
  signal: DeadlineSignal;
}

/**
 * Deadlines in a binary min-heap keyed by their instant (ms on `now`'s scale, monotonic by
 * default: `performance.now()`), with one timer armed for the earliest.
 */
export class DeadlineSweeper {
  private readonly heap: Entry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private sweeping = false;

  /**
   * @param abortsPerTurn expired calls aborted per turn of the event loop (≥ 1)
   * @param now monotonic clock in ms
   */
  constructor(
    private readonly abortsPerTurn = DEFAULT_ABORTS_PER_TURN,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Deadlines not yet expired nor cleared. */
  get size(): number {
    return this.heap.length;
  }

  /**
   * Registers a deadline `timeoutMs` from now.
   * @param timeoutMs ms from now (≥ 0)
   */
  add(timeoutMs: number): Deadline {
    const entry: Entry = { at: this.now() + timeoutMs, index: this.heap.length, signal: new DeadlineSignal() };
    this.heap.push(entry);
    this.up(entry.index);
    if (!this.sweeping && entry.at < this.timerAt) this.arm();
    return { signal: entry.signal, clear: () => this.remove(entry) };
  }

  /** Cancels the timer; deadlines still registered are left unaborted. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  private remove(entry: Entry): void {
    const i = entry.index;
    if (i < 0) return;
    entry.index = -1;
    const last = this.heap.pop()!;
    if (last !== entry) {
      this.heap[i] = last;
      last.index = i;
      this.down(i);
      this.up(last.index);
    }
    if (this.heap.length === 0) this.close();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    const first = this.heap[0];
    if (!first) {
      this.timer = null;
      this.timerAt = Infinity;
      return;
    }
    this.timerAt = first.at;
    // setTimeout may fire a fraction of a millisecond early on this clock: sweep() re-arms then.
    this.timer = setTimeout(() => this.sweep(), Math.max(0, Math.ceil(first.at - this.now())));
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = this.now();
    let aborted = 0;
    while (aborted < this.abortsPerTurn && this.heap.length > 0 && this.heap[0]!.at <= now) {
      const entry = this.heap[0]!;
      this.remove(entry);
      entry.signal.abort(new DOMException('The call reached its timeout', 'TimeoutError'));
      aborted++;
    }
    if (this.heap.length > 0 && this.heap[0]!.at <= now) {
      this.sweeping = true;
      setImmediate(() => {
        this.sweeping = false;
        this.sweep();
      });
    } else {
      this.arm();
    }
  }

  private up(i: number): void {
    const heap = this.heap;
    const entry = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= entry.at) break;
      heap[i] = heap[parent]!;
      heap[i]!.index = i;
      i = parent;
    }
    heap[i] = entry;
    entry.index = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const entry = heap[i]!;
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && heap[r]!.at < heap[l]!.at ? r : l;
      if (heap[child]!.at >= entry.at) break;
      heap[i] = heap[child]!;
      heap[i]!.index = i;
      i = child;
    }
    heap[i] = entry;
    entry.index = i;
  }
}
