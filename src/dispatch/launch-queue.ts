/**
 * The order in which claimed calls start: calls to idle origins first, a few per turn, so a hung endpoint delays no one else (docs/calls.md).
 *
 * Starting a call is synchronous work: signing, undici queueing the request and, for an origin
 * without an idle keep-alive connection, a new connection. On the 2-core machine of
 * docs/benchmarks.md a hundred calls to endpoints that already hang cost 30–50 ms of CPU to start
 * (measured with `--cpu-prof`: undici's Pool/Client and socket set-up, the HMAC), and a healthy
 * call claimed with them, or just after them, went out that late. Two rules keep healthy calls
 * on time:
 *
 * 1. At most {@link DEFAULT_STARTS_PER_TURN} calls, or {@link DEFAULT_TURN_BUDGET_MS} of work,
 *    start per turn of the event loop; I/O runs in between (answers are read, outcomes written,
 *    the dispatcher's timer fires and claims).
 * 2. A call to a slow origin starts after the calls to other origins: an origin is slow while a
 *    call of ours to it has waited {@link SLOW_ORIGIN_MS} or more for its answer, or while it is
 *    *hung*: a call to it reached its timeout, within {@link HUNG_MEMORY_MS}, and none has been
 *    answered since. The owner is told which calls go to hung origins: the dispatcher sends those
 *    from the slow lane's thread (slow-lane.ts). Such a call needs
 *    yet another connection to an origin that has not answered the previous one, which is what a
 *    hanging endpoint looks like; a call to a healthy origin most likely goes out on an idle
 *    keep-alive connection. (Counting any call in flight as "busy" is not enough: a healthy
 *    receiver's answer may simply not have been read yet while the loop starts the others.) Within
 *    each class the order is the claim's (due time first). Nothing is dropped or delayed on
 *    purpose: a slow origin's call waits only for calls that were ready to start.
 */

/** Calls started per turn of the event loop, at most. */
export const DEFAULT_STARTS_PER_TURN = 32;

/**
 * Time (ms) spent starting calls in one turn, after which the rest wait for the next turn. With
 * 32 starts or 1 ms, whichever comes first, a burst to one healthy receiver (calls on warm
 * keep-alive connections, cheap to start) keeps its pace, while a wave of calls that each open a
 * connection (0.3–1 ms each, measured with `--cpu-prof` on the bench machine) is cut into short turns.
 */
export const DEFAULT_TURN_BUDGET_MS = 1;

/**
 * Calls to slow origins started per turn, at most. Such a call opens a connection, and the I/O
 * that follows (the connect completing, the request written) lands in later turns outside the
 * queue's budget: started 32 at a time, a wave of 100 kept healthy calls 7-21 ms late for the
 * next 60 ms (test/e2e/isolation.test.ts); a few per turn spread that work out.
 */
export const DEFAULT_SLOW_STARTS_PER_TURN = 4;

/** How long (ms) an origin's oldest call in flight may wait for its answer before the origin counts as slow. */
export const SLOW_ORIGIN_MS = 100;

/**
 * How long (ms) an origin stays hung after one of its calls reached its timeout. An endpoint that
 * hangs mostly keeps hanging (a host gone, a stuck server): without a memory, the first calls of
 * each new wave to it would be taken for healthy ones, and a cron job calling it every minute
 * would never be seen as slow. Any answer from it (whatever its status) ends the memory at once.
 *
 * Only a timeout counts, not a slow answer: the dispatcher sends calls to hung origins from the
 * slow lane's thread at the lowest CPU priority, and an origin that answers, however slowly (a
 * receiver that works before it answers, or one queueing our own burst at the cap), must not
 * wait for spare CPU. With "a call took ≥ 100 ms" as the rule (tried first), the calls to one
 * busy receiver went to the lane, and three dispatchers sharing 2 cores in
 * test/e2e/multinode.test.ts delivered with lateness p99 2.1-3.1 s (3 runs), against 0.9-1.8 s
 * with this rule (3 runs; docs/benchmarks.md, "Isolation").
 */
export const HUNG_MEMORY_MS = 10 * 60_000;

/** Origins remembered as hung, at most; the oldest is forgotten first. */
const HUNG_MEMORY_MAX = 10_000;

/** A call to start; `origin` is its endpoint's origin (`new URL(endpoint).origin`). */
export interface Launchable {
  origin: string;
}

/**
 * Queue of claimed calls not started yet, in two classes (other origins first, slow origins
 * second), with each origin's calls in flight and their start times. `start` is called for each
 * item, at most `startsPerTurn` per turn, with `hung` true for a hung origin's; the owner reports
 * each call's end with {@link LaunchQueue.finished}.
 */
export class LaunchQueue<T extends Launchable> {
  /** Calls to origins that are not slow, in claim order. */
  private other: T[] = [];
  /** Calls to slow origins, in claim order: they start after `other`. */
  private slow: T[] = [];
  private otherHead = 0;
  private slowHead = 0;
  private scheduled = false;
  /** Calls in flight per origin, each with its start (ms on `now`'s scale), oldest first. */
  private readonly perOrigin = new Map<string, Map<T, number>>();
  /** Hung origins (a call reached its timeout), with the instant (ms on `now`'s scale) they stop counting as hung. */
  private readonly hung = new Map<string, number>();

  /**
   * @param start starts one call (must not throw); `hung` tells whether its origin is hung
   * @param startsPerTurn calls started per turn at most (≥ 1)
   * @param now monotonic clock in ms (default `performance.now()`)
   * @param turnBudgetMs once starting calls has taken this long in a turn, the rest wait for the next turn
   * @param slowStartsPerTurn calls to slow origins started per turn at most (≥ 1)
   */
  constructor(
    private readonly start: (item: T, hung: boolean) => void,
    private readonly startsPerTurn = DEFAULT_STARTS_PER_TURN,
    private readonly now: () => number = () => performance.now(),
    private readonly turnBudgetMs = DEFAULT_TURN_BUDGET_MS,
    private readonly slowStartsPerTurn = DEFAULT_SLOW_STARTS_PER_TURN,
  ) {}

  /** Items waiting to start. */
  get size(): number {
    return this.other.length - this.otherHead + this.slow.length - this.slowHead;
  }

  /**
   * Adds items (in the order given) and starts the first slice at once, in this turn; the rest
   * follow in later turns.
   */
  push(items: readonly T[]): void {
    const now = this.now();
    for (const item of items) {
      if (this.isSlow(item.origin, now)) this.slow.push(item);
      else this.other.push(item);
    }
    if (!this.scheduled) this.drain();
  }

  /**
   * Tells the queue that a call it started has ended.
   * @param ending `timedOut`: the call reached its timeout (the origin is hung from now on);
   *   `answered`: an HTTP answer came (the origin is no longer hung); neither (a connection
   *   refused, say): no change
   */
  finished(item: T, ending: 'timedOut' | 'answered' | 'other' = 'other'): void {
    const calls = this.perOrigin.get(item.origin);
    if (calls === undefined || !calls.delete(item)) return;
    if (calls.size === 0) this.perOrigin.delete(item.origin);
    if (ending === 'other') return;
    this.hung.delete(item.origin);
    if (ending === 'answered') return;
    this.hung.set(item.origin, this.now() + HUNG_MEMORY_MS);
    if (this.hung.size > HUNG_MEMORY_MAX) this.hung.delete(this.hung.keys().next().value as string);
  }

  /** Whether `origin` is hung now (see {@link HUNG_MEMORY_MS}). */
  isHung(origin: string, now = this.now()): boolean {
    const until = this.hung.get(origin);
    if (until === undefined) return false;
    if (now < until) return true;
    this.hung.delete(origin);
    return false;
  }

  /** Whether calls to `origin` count as slow now: hung, or a call waiting ≥ SLOW_ORIGIN_MS. */
  isSlow(origin: string, now = this.now()): boolean {
    if (this.isHung(origin, now)) return true;
    const calls = this.perOrigin.get(origin);
    if (calls === undefined) return false;
    const oldest = calls.values().next().value as number;
    return now - oldest >= SLOW_ORIGIN_MS;
  }

  /** Removes and returns every item not started yet (at shutdown: they are handed back). */
  takeAll(): T[] {
    const rest = this.other.slice(this.otherHead).concat(this.slow.slice(this.slowHead));
    this.other = [];
    this.slow = [];
    this.otherHead = this.slowHead = 0;
    return rest;
  }

  /** The next item to start: other origins first; a slow origin's only while `slowAllowed`. */
  private next(slowAllowed: boolean): T | undefined {
    if (this.otherHead < this.other.length) return this.other[this.otherHead++];
    if (slowAllowed && this.slowHead < this.slow.length) return this.slow[this.slowHead++];
    return undefined;
  }

  private drain(): void {
    this.scheduled = false;
    const t0 = this.now();
    let slowStarts = 0;
    for (let n = 0; n < this.startsPerTurn; n++) {
      if (n > 0 && this.now() - t0 >= this.turnBudgetMs) break;
      const fromSlow = this.otherHead === this.other.length;
      const item = this.next(slowStarts < this.slowStartsPerTurn);
      if (item === undefined) break;
      if (fromSlow) slowStarts++;
      let calls = this.perOrigin.get(item.origin);
      if (calls === undefined) this.perOrigin.set(item.origin, (calls = new Map()));
      calls.set(item, this.now());
      this.start(item, fromSlow && this.isHung(item.origin));
    }
    if (this.otherHead === this.other.length) {
      this.other = [];
      this.otherHead = 0;
    }
    if (this.slowHead === this.slow.length) {
      this.slow = [];
      this.slowHead = 0;
    }
    if (this.size > 0) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }
}
