import type { Clock } from '../domain/clock.js';
import type { DispatchStore } from '../store/dispatch-store.js';
import type { DispatchLogger } from './dispatcher.js';

/** Options of {@link ExecutionPruner}. Durations in ms. */
export interface PrunerOptions {
  /** The store's `executionsPrune` is all the pruner uses. */
  store: DispatchStore;
  clock: Clock;
  logger: Pick<DispatchLogger, 'info' | 'error'>;
  /** Finished executions older than this are deleted (`PUNCTUAL_EXECUTION_RETENTION`). */
  retentionMs: number;
  /** Pause between two passes (default 60,000). */
  intervalMs?: number;
  /** Rows deleted per transaction (default 1,000), so a pass never holds the writer long. */
  batchSize?: number;
}

/**
 * Deletes finished executions (and their attempts) older than the retention, in the background
 * (`PUNCTUAL_EXECUTION_RETENTION`): one pass at start, then one per `intervalMs`, each in small transactions.
 */
export class ExecutionPruner {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly opts: PrunerOptions) {}

  /** Starts the passes. The timer does not keep the process alive. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops after the batch in progress, if any. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.pass;
  }

  /**
   * One pass: deletes batch after batch until a batch comes back short.
   * @returns how many executions were deleted
   */
  async runOnce(): Promise<number> {
    const limit = this.opts.batchSize ?? 1_000;
    const before = this.opts.clock.now() - this.opts.retentionMs;
    let total = 0;
    for (;;) {
      const n = await this.opts.store.executionsPrune({ before, limit });
      total += n;
      if (n < limit || this.stopped) return total;
      await new Promise((r) => setImmediate(r));
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.pass = this.runOnce().then(
        (n) => {
          if (n > 0) this.opts.logger.info({ deleted: n }, 'pruned old executions');
        },
        (err: unknown) => this.opts.logger.error({ err }, 'pruning executions failed; will try again'),
      );
      void this.pass.finally(() => this.schedule(this.opts.intervalMs ?? 60_000));
    }, delayMs);
    this.timer.unref();
  }
}
