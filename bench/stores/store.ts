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
  /**
   * Writes executions `offset` … `offset + count − 1` straight into the store (no HTTP), each by
   * one INSERT … SELECT over a generated series (see {@link EXECUTION_SEED}). Setup only, as
   * {@link seedPending}; the tables are analysed after it (PostgreSQL).
   * @returns how long the seeding took, in ms
   */
  seedExecutions(count: number, opts: { offset: number }): Promise<number>;
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

/**
 * The executions the bench seeds (the executions scenario), the same in both stores: execution
 * `n` (from 0) is scheduled for `firstAt + n × stepMs`, of one of four jobs (`jobIds[n % 4]`; jobs
 * 0 and 2 are cron jobs, 1 and 3 schedules), Failed when `n % 3 = 0` else Succeeded, with one
 * attempt's worth of columns (no attempt rows: the page reads them by key either way) and
 * `finished_at` = the seeding's instant, so the pruner leaves them for the retention (7 days).
 * {@link seedSelect} is valid in both dialects.
 */
export const EXECUTION_SEED = {
  firstAt: Date.UTC(2026, 0, 1),
  stepMs: 100,
  jobIds: [
    '00000000-0000-7000-8000-000000000000',
    '00000000-0000-7000-8000-000000000001',
    '00000000-0000-7000-8000-000000000002',
    '00000000-0000-7000-8000-000000000003',
  ],
  columns: 'id, job_type, job_id, scheduled_for, status, attempt, created_at, finished_at',
  /** The SELECT list of execution `n` (an integer column of the series), finished at `now` (an integer literal). */
  seedSelect(n: string, now: number): string {
    const sf = `${this.firstAt} + ${n} * ${this.stepMs}`;
    const job = `CASE ${n} % 4 ${this.jobIds.map((id, k) => `WHEN ${k} THEN '${id}'`).join(' ')} END`;
    return `'bench-e-' || ${n}, CASE WHEN ${n} % 2 = 0 THEN 'cron' ELSE 'schedule' END, ${job}, ${sf},
            CASE WHEN ${n} % 3 = 0 THEN 'Failed' ELSE 'Succeeded' END, 1, ${sf}, ${Math.floor(now)}`;
  },
};
