/**
 * Group commit (docs/deployment.md, "Group commit of creates"): concurrent writes of rows of one kind share
 * one transaction, so many requests pay for one commit (one fsync on SQLite, one round trip and
 * one multi-row statement on PostgreSQL) instead of one each. The rules of the queue live here,
 * once, for every store; the SQL of a group is the store's own `write` function.
 *
 * The rules:
 * - A caller adds a *unit*: a list of rows that commits entirely or not at all (a single create
 *   is a unit of one row; a batch request is one unit).
 * - The first unit queued while fewer than `maxInFlight` groups are being written schedules a
 *   drain (`setImmediate`: the requests whose bytes arrived in the same turn of the event loop
 *   are parsed and queued first). The drain writes the units queued by then as *groups*, in the
 *   order they were added, each group in ONE call of `write`, at most `maxInFlight` at once; units
 *   queued while the groups are written wait for the next drain.
 * - A group holds whole units and at most `maxRows` rows, but always at least one unit (a unit
 *   larger than `maxRows` is a group of its own).
 * - A unit's promise resolves only after `write` resolved for a group holding it: nothing is
 *   acknowledged before its commit is durable (as durable as `write` makes it). Each caller gets
 *   exactly the results of its own rows, in its order.
 * - When the group's write fails, each of its units is written again alone, one after the other,
 *   so one unit the database refuses (a taken id, text it cannot store) fails only its own
 *   caller. A `StoreUnavailableError` is no unit's fault: every unit of the group fails with it,
 *   without retries (they would fail the same way, each after its own wait).
 */
import { StoreUnavailableError } from '../domain/errors.js';

/**
 * Writes every row of `rows` in ONE transaction and answers one result per row, in the order of
 * `rows`; resolves only once the commit is durable. Throws when nothing was written.
 */
export type GroupWrite<P, R> = (rows: P[]) => R[] | Promise<R[]>;

/** Options of {@link GroupCommit}. */
export interface GroupCommitOptions<P, R> {
  /** The store's write of one group (see {@link GroupWrite}). */
  write: GroupWrite<P, R>;
  /**
   * Most rows in one group (≥ 1), bounding how long one write takes: on SQLite a write is
   * synchronous and blocks the event loop while it runs.
   */
  maxRows: number;
  /** Most groups being written at once (≥ 1): 1 for one writer (SQLite). */
  maxInFlight: number;
}

/**
 * Most rows of one group for the stores: 1,000, the default most schedules of one batch request
 * (`PUNCTUAL_MAX_BATCH`, docs/configuration.md). On SQLite a group's inserts run on the event
 * loop, about 40 µs a row in the ingest benchmark's profile (docs/benchmarks.md), so a full group
 * holds the loop about 40 ms plus its commit: no longer than one batch request of the default size
 * already does, while groups of single creates stay as small as the clients are many (64 rows,
 * about 2.5 ms, for the benchmark's 64 clients). On PostgreSQL a full group is one statement of
 * 20,000 parameters, well under the protocol's 65,535.
 */
export const GROUP_MAX_ROWS = 1_000;

interface Queued<P, R> {
  unit: P[];
  resolve: (results: R[]) => void;
  reject: (err: unknown) => void;
}

/** A queue of units written in groups (see the module's description for the rules). */
export class GroupCommit<P, R> {
  private queue: Queued<P, R>[] = [];
  private inFlight = 0;
  private drainScheduled = false;
  private readonly write: GroupWrite<P, R>;
  private readonly maxRows: number;
  private readonly maxInFlight: number;

  /** @throws RangeError when `maxRows` or `maxInFlight` is not an integer ≥ 1 */
  constructor(opts: GroupCommitOptions<P, R>) {
    for (const [name, v] of [['maxRows', opts.maxRows], ['maxInFlight', opts.maxInFlight]] as const) {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be an integer ≥ 1, got ${v}`);
    }
    this.write = opts.write;
    this.maxRows = opts.maxRows;
    this.maxInFlight = opts.maxInFlight;
  }

  /**
   * Queues `unit` to be written, all of its rows or none, in a group with other units.
   * @returns the results of `unit`'s rows, in its order, once their commit is durable; `[]` at
   *   once for an empty unit (nothing is written)
   * @throws whatever the write of the unit (alone, or in a group for a `StoreUnavailableError`) threw
   */
  add(unit: P[]): Promise<R[]> {
    if (unit.length === 0) return Promise.resolve([]);
    return new Promise<R[]>((resolve, reject) => {
      this.queue.push({ unit, resolve, reject });
      this.scheduleDrain();
    });
  }

  /** Units queued and not yet being written (for tests and metrics). */
  get queued(): number {
    return this.queue.length;
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const group = this.takeGroup();
      this.inFlight++;
      void this.flush(group).finally(() => {
        this.inFlight--;
        this.scheduleDrain();
      });
    }
  }

  /** The next group: whole units from the front of the queue, at most `maxRows` rows but at least one unit. */
  private takeGroup(): Queued<P, R>[] {
    let rows = this.queue[0]!.unit.length;
    let n = 1;
    while (n < this.queue.length && rows + this.queue[n]!.unit.length <= this.maxRows) rows += this.queue[n++]!.unit.length;
    return this.queue.splice(0, n);
  }

  /** Writes `group` in one call; on a failure a unit may be blamed for, each unit alone. Never throws. */
  private async flush(group: Queued<P, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await this.write(group.length === 1 ? group[0]!.unit : group.flatMap((q) => q.unit));
    } catch (err) {
      if (group.length === 1 || err instanceof StoreUnavailableError) {
        for (const q of group) q.reject(err);
        return;
      }
      for (const q of group) {
        try {
          q.resolve(await this.write(q.unit));
        } catch (alone) {
          q.reject(alone);
        }
      }
      return;
    }
    let at = 0;
    for (const q of group) {
      q.resolve(results.slice(at, at + q.unit.length));
      at += q.unit.length;
    }
  }
}
