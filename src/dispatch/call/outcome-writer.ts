/**
 * The outcome writer (River's *completer*): records the outcomes of attempts in batches, and
 * retries a write the store refused.
 */
import type { DispatchStore } from '../../store/contract/dispatch.js';
import type { AutoPause } from '../../store/rules/outcome.js';
import type { DispatchLogger } from '../logger.js';
import type { DeliveredEvent, DispatcherEvents } from '../events.js';

/**
 * How long (ms) the first outcome of a batch waits for others before they are written together.
 * Each write is a transaction, and with SQLite an fsync: in a burst, writing what finished in one
 * turn of the loop meant hundreds of fsyncs a second. An outcome only records what already
 * happened (the call is made), so waiting a few ms delays no call; a crash in the window means
 * those calls are attempted again, as the same execution. At 5 ms, a burst of 6,000 calls a
 * second still made a write per 30 outcomes, and the commits were a quarter of the SQLite
 * thread's time (the burst profile of docs/benchmarks.md); 20 ms makes them four times fewer.
 */
export const FLUSH_WINDOW_MS = 20;
/** Outcomes waiting that trigger a write at once, whatever the window. */
export const FLUSH_BATCH = 512;
/** Delay (ms) before a write the store refused is tried again. */
export const WRITE_RETRY_MS = 1_000;

/** Options of {@link OutcomeWriter}. Durations in ms. */
export interface OutcomeWriterOptions {
  /** Its `executionsFinish` records the outcomes. */
  store: DispatchStore;
  /** The node holding the leases of the executions. */
  nodeId: string;
  /** Told at `warn` of each execution that ends `Failed`, once it is written. */
  logger: DispatchLogger;
  /**
   * Emits `dispatch:delivered` for each outcome written, `dispatch:auto-paused` for each cron job
   * a write paused, `dispatch:error` for each write refused.
   */
  events: DispatcherEvents;
  /** Told of the next attempt's instant (epoch ms, UTC) of each `Retrying` outcome written. */
  onRetry(nextAttemptAt: number): void;
  /** False once the dispatcher stops: a refused write is then not tried again. */
  running(): boolean;
  /** Delay before a refused write is tried again (default {@link WRITE_RETRY_MS}). */
  retryMs?: number;
}

/**
 * Outcomes that come within {@link FLUSH_WINDOW_MS} of the first one waiting are written in one
 * `executionsFinish` (one transaction, one fsync with SQLite), or at once when {@link FLUSH_BATCH}
 * are waiting or one of them is a keyed call's; one write at a time, in the order the outcomes came. A write the store refuses
 * keeps its outcomes (the leases hold the executions until they are written, or expire) and is
 * tried again after `retryMs`, while the dispatcher runs.
 */
export class OutcomeWriter {
  private outcomes: DeliveredEvent[] = [];
  private flushing: Promise<void> | null = null;
  /** Starts the pending flush now instead of at the end of its window. */
  private flushSoon: (() => void) | null = null;

  constructor(private readonly opts: OutcomeWriterOptions) {}

  /** Outcomes waiting to be written. */
  get pending(): number {
    return this.outcomes.length;
  }

  /**
   * Queues one outcome for the next write. The outcome of a call with a flow-control key starts
   * the write at once (after the one in progress): its key's waiting calls need the slot it frees,
   * so it does not wait for the window (outcomes that come meanwhile still share a write).
   */
  add(item: DeliveredEvent): void {
    this.outcomes.push(item);
    const now = this.outcomes.length >= FLUSH_BATCH || item.outcome.flowControlKey !== undefined;
    if (this.flushing) {
      if (now) this.flushSoon?.();
      return;
    }
    this.flushing = new Promise<void>((resolve) => {
      const go = () => {
        clearTimeout(timer);
        this.flushSoon = null;
        resolve();
      };
      const timer = setTimeout(go, FLUSH_WINDOW_MS);
      this.flushSoon = go;
      if (now) go();
    }).then(() => this.flush());
  }

  /**
   * Writes what waits now, without waiting for the window, after the write in progress; a write
   * refused once the dispatcher stopped is not tried again (those leases expire).
   */
  async drain(): Promise<void> {
    this.flushSoon?.();
    if (this.flushing) await this.flushing;
    await this.flush();
  }

  private async flush(): Promise<void> {
    while (this.outcomes.length > 0) {
      const batch = this.outcomes;
      this.outcomes = [];
      try {
        const { paused, backfillDueAt, flowControlDueAt } = await this.opts.store.executionsFinish({ nodeId: this.opts.nodeId, outcomes: batch.map((b) => b.outcome) });
        if (backfillDueAt !== undefined) this.opts.onRetry(backfillDueAt); // the next backfilled execution's turn
        if (flowControlDueAt !== undefined) this.opts.onRetry(flowControlDueAt); // a slot of a flow-control key freed
        for (const item of batch) {
          if (item.outcome.nextAttemptAt !== null) this.opts.onRetry(item.outcome.nextAttemptAt);
          if (item.outcome.status === 'Failed') this.logFailed(item);
          this.opts.events.emit('dispatch:delivered', item);
        }
        for (const pause of paused) this.logPaused(pause);
      } catch (err) {
        // Keep them; the lease holds the executions until we manage to write (or it expires).
        this.outcomes = batch.concat(this.outcomes);
        this.opts.logger.error({ err, count: batch.length }, 'dispatch: writing outcomes failed; retrying');
        this.opts.events.emit('dispatch:error', err);
        if (!this.opts.running()) return;
        await new Promise((r) => setTimeout(r, this.opts.retryMs ?? WRITE_RETRY_MS));
      }
    }
    this.flushing = null;
  }

  /**
   * A cron job the write paused (store/rules/outcome.ts): one `warn` line with its id and reason, and
   * `dispatch:auto-paused` (the metrics count it).
   */
  private logPaused(pause: AutoPause): void {
    this.opts.logger.warn({ jobType: 'cron', jobId: pause.jobId, reason: pause.reason, nodeId: this.opts.nodeId }, 'dispatch: cron job paused');
    this.opts.events.emit('dispatch:auto-paused', pause);
  }

  /**
   * An execution that ended `Failed` (its last attempt failed, or a failure that is not retried),
   * once recorded: one `warn` line an operator can alert on, with the ids to look it up and why.
   * Never the request's headers, body or secrets: the `error` is the attempt's, as the API shows
   * it (`HTTP 500`, `timeout after 30000 ms`, a connection error, a refusal of the SSRF guard).
   */
  private logFailed({ claim, outcome }: DeliveredEvent): void {
    this.opts.logger.warn(
      {
        jobType: claim.jobType,
        jobId: claim.jobId,
        executionId: outcome.executionId,
        attempt: outcome.attempt,
        statusCode: outcome.statusCode,
        error: outcome.error,
        nodeId: this.opts.nodeId,
      },
      'dispatch: execution failed',
    );
  }
}
