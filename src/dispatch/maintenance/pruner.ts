import type { Clock } from '../../domain/clock.js';
import type { DispatchLogger } from '../logger.js';
import { TimerLoop } from '../timer-loop.js';

/** Options of {@link Pruner}. Durations in ms. */
export interface PrunerOptions {
  /**
   * One batch: deletes rows older than `before` (epoch ms, UTC), at most `limit`, in one
   * transaction, and tells how many (a store operation: `executionsPrune`, `idempotencyPrune`).
   */
  prune: (p: { before: number; limit: number }) => Promise<number>;
  /** What is pruned, for the logs ("executions", "idempotency records"). */
  what: string;
  clock: Clock;
  logger: Pick<DispatchLogger, 'info' | 'error'>;
  /** Rows older than this are deleted (executions: `PUNCTUAL_EXECUTION_RETENTION`). */
  retentionMs: number;
  /** Pause between two passes (default 60,000). */
  intervalMs?: number;
  /** Rows deleted per transaction (default 1,000), so a pass never holds the writer long. */
  batchSize?: number;
  /** Most rows one pass deletes (default: no bound); the rest waits for the next pass. */
  maxPerPass?: number;
}

/**
 * Deletes old rows in the background: one pass at start, then one per `intervalMs`, each in small
 * transactions of `batchSize`, until a batch comes back short or `maxPerPass` rows are gone.
 * main.ts runs one for finished executions (and their attempts, `PUNCTUAL_EXECUTION_RETENTION`)
 * and one for idempotency records (24 h).
 */
export class Pruner {
  private readonly loop = new TimerLoop(() => this.loggedPass());
  /** Set by {@link stop}: a pass in progress ends after its batch. */
  private stopped = false;

  constructor(private readonly opts: PrunerOptions) {}

  /** Starts the passes. The timer does not keep the process alive. */
  start(): void {
    this.stopped = false;
    this.loop.start();
  }

  /** Stops after the batch in progress, if any. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  /**
   * One pass: deletes batch after batch until a batch comes back short or `maxPerPass` is reached.
   * @returns how many rows were deleted
   */
  async runOnce(): Promise<number> {
    const batch = this.opts.batchSize ?? 1_000;
    const max = this.opts.maxPerPass ?? Infinity;
    const before = this.opts.clock.now() - this.opts.retentionMs;
    let total = 0;
    for (;;) {
      const limit = Math.min(batch, max - total);
      const n = await this.opts.prune({ before, limit });
      total += n;
      if (n < limit || total >= max || this.stopped) return total;
      await new Promise((r) => setImmediate(r));
    }
  }

  /** A pass of the loop: {@link runOnce}, logged; the next one after `intervalMs`. */
  private async loggedPass(): Promise<number> {
    await this.runOnce().then(
      (n) => {
        if (n > 0) this.opts.logger.info({ deleted: n }, `pruned old ${this.opts.what}`);
      },
      (err: unknown) => this.opts.logger.error({ err }, `pruning ${this.opts.what} failed; will try again`),
    );
    return this.opts.intervalMs ?? 60_000;
  }
}
