import type { Store } from '../store/store.js';

/** Options of {@link LastUsedRecorder}. */
export interface LastUsedRecorderOptions {
  /** Longest time (ms) a recorded use waits before it is written; default 1,000. */
  flushIntervalMs?: number;
  /** Told about a failed write; the uses are kept and written on the next flush. */
  onError?: (err: unknown) => void;
}

/**
 * Batches the `lastUsed` writes of API keys: `lastUsed` must be exact to within 5 seconds, and
 * is written in batches, never on every request (docs/security.md). {@link record} only updates a
 * map in memory; at most `flushIntervalMs` (1 s) later one `Store.apiKeyTouch` writes every key
 * used since the last flush. {@link close} writes what is left. A failed write keeps its entries for the next flush.
 *
 * {@link pendingFor} lets readers show a use that is not written yet, so this node's answers are
 * exact; other nodes see it within one interval.
 */
export class LastUsedRecorder {
  private pending = new Map<string, number>();
  private writing = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly intervalMs: number;
  private readonly onError: (err: unknown) => void;

  constructor(
    private readonly store: Store,
    options: LastUsedRecorderOptions = {},
  ) {
    this.intervalMs = options.flushIntervalMs ?? 1_000;
    this.onError = options.onError ?? (() => undefined);
  }

  /**
   * Notes that key `id` was used at `atMs` (epoch ms, UTC). Only moves forward. Ignored after
   * {@link close}.
   */
  record(id: string, atMs: number): void {
    if (this.closed) return;
    const prev = this.pending.get(id);
    if (prev === undefined || atMs > prev) this.pending.set(id, atMs);
    if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** The latest use of `id` recorded but not yet known to be written (epoch ms), if any. */
  pendingFor(id: string): number | undefined {
    const a = this.pending.get(id);
    const b = this.writing.get(id);
    if (a === undefined) return b;
    return b === undefined ? a : Math.max(a, b);
  }

  /**
   * Writes every recorded use now, in one `apiKeyTouch`. Resolves when this and earlier writes
   * are done. Never rejects: a failure goes to `onError` and the uses are retried later.
   */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.chain = this.chain.then(() => this.write());
    return this.chain;
  }

  /** Stops the timer and writes what is left (call once, at shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.writing = batch;
    try {
      await this.store.apiKeyTouch({ lastUsed: batch });
    } catch (err) {
      for (const [id, at] of batch) {
        const now = this.pending.get(id);
        if (now === undefined || at > now) this.pending.set(id, at);
      }
      this.onError(err);
      if (!this.closed && this.timer === null) {
        this.timer = setTimeout(() => void this.flush(), this.intervalMs);
        this.timer.unref();
      }
    } finally {
      this.writing = new Map();
    }
  }
}
