/**
 * A background loop of passes on a timer, for the small loops beside the dispatcher (the pruners
 * of maintenance/pruner.ts, the notifier of notify/notifier.ts): one pass at start, then the next
 * after the pause the last one asked for, until stopped.
 */

/**
 * Runs `pass` on an unref'd timer (the loop never keeps the process alive): the first pass at
 * {@link start}, each next one the number of ms after the previous one that it resolved with.
 * Passes never overlap. `pass` must not reject: it handles (logs) its own failures, since a
 * rejection would end the loop.
 */
export class TimerLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  /** @param pass one pass; resolves with the pause before the next one (ms, 0 for at once) */
  constructor(private readonly pass: () => Promise<number>) {}

  /** Starts the loop; does nothing while it runs already. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the loop: no pass starts any more; resolves once the pass in progress, if any, is over. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.pass()
        .then((next) => this.schedule(next))
        .finally(() => {
          this.running = null;
        });
    }, delayMs);
    this.timer.unref();
  }
}
