/**
 * The seam between the bench and the store under test. `--store sqlite` (the default) is the
 * embedded store (sqlite.ts); `--store postgres` a fresh database per scenario on a
 * PostgreSQL server (postgres.ts). Each implements this interface in its own file and is
 * registered in index.ts.
 */
import type { ProcessGroup } from '../proc.js';
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
  /**
   * Cumulative activity counters of the store's server, when it has one (PostgreSQL:
   * `writeTransactions`, transaction ids assigned, and `walBytes`, WAL written; server-wide);
   * the scenarios report the difference over a measurement per delivered call. Absent for SQLite.
   */
  activity?(): Promise<Record<string, number>>;
  /** Removes the store (temp files, database). */
  dispose(): Promise<void>;
}

/** Where a store lives, from the command line (`--database-url`). */
export interface BenchStoreOptions {
  /**
   * A server to create the scenarios' databases on (PostgreSQL: `postgres://…`; the database it
   * names is used only to connect for CREATE/DROP DATABASE). Undefined: the store's default.
   */
  serverUrl?: string;
}

/** A kind of store the bench can run against. */
export interface BenchStore {
  readonly name: string;
  /** Whether several `punctual serve` processes may share one of its databases (`--nodes`). */
  readonly shared: boolean;
  /**
   * The store's server processes, when it runs in processes of its own (PostgreSQL): measured as
   * one more CPU figure beside the service's (named `group.name`), not counted among `others`.
   */
  readonly serverProcesses?: ProcessGroup;
  /** A fresh, empty, migrated store for one scenario (migrated with `punctual migrate`). */
  create(runner: Runner, opts: BenchStoreOptions): Promise<BenchDatabase>;
  /**
   * What the results file records about the store: version, settings, a commit's latency
   * (free-form keys → strings or numbers). Read once per bench run.
   */
  describe(opts: BenchStoreOptions): Promise<Record<string, string | number>>;
}
