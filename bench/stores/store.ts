/**
 * The seam between the bench and the store under test. `--store sqlite` (the default) is the
 * embedded store; issue #4 adds `postgres` by implementing this interface in its own file and
 * registering it in index.ts.
 */
import type { Runner } from '../service.js';

/** One scenario's store: where it lives, how to seed it, how to remove it. */
export interface BenchDatabase {
  /** DATABASE_URL given to `punctual serve`. */
  databaseUrl: string;
  /**
   * Writes `count` Pending schedules straight into the store (no HTTP), due at
   * `firstAt + i * stepMs` (epoch ms), calling `endpoint`. Setup only: used for far-future rows
   * that never fire during the bench. The schema must exist (`punctual migrate` ran). May run
   * while the service runs (it must not disturb a measurement: the scenarios call it between).
   * @returns how long the seeding took, in ms
   */
  seedPending(count: number, opts: { firstAt: number; stepMs: number; endpoint: string }): Promise<number>;
  /** Size of the store on disk in bytes, when it has a meaning (null otherwise). */
  sizeBytes(): Promise<number | null>;
  /** Removes the store (temp files, database). */
  dispose(): Promise<void>;
}

/** A kind of store the bench can run against. */
export interface BenchStore {
  readonly name: string;
  /** A fresh, empty, migrated store for one scenario (migrated with `punctual migrate`). */
  create(runner: Runner): Promise<BenchDatabase>;
}
