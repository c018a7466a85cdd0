/** What every scenario gets: the store under test, how to start the service, the receiver, the sizes. */
import type { ReceiverProcess } from './receiver-client.js';
import type { Runner } from './service.js';
import type { BenchStore, BenchStoreOptions } from './stores/store.js';

/**
 * Sizes and durations of the scenarios (defaults: the full sizes of docs/benchmarks.md; overridable
 * on the command line).
 */
export interface Sizes {
  /** Burst: schedules due at one instant. */
  burstCount: number;
  /** Keyed burst: schedules of one flow-control key due at one instant (scenarios/keyed.ts). */
  keyedCount: number;
  /** Burst ceiling: plain undici POSTs in flight (the dispatcher's cap, src/dispatch/dispatcher.ts). */
  burstConcurrency: number;
  /** Setup: concurrent HTTP clients creating schedules ahead one by one (`createBatch` 1). */
  createConcurrency: number;
  /**
   * Setup: schedules per create request. 1: one `POST /schedules` each, from `createConcurrency`
   * clients; more: `POST /schedules/batch` with this many, from `createBatchClients` clients.
   */
  createBatch: number;
  /** Setup: concurrent HTTP clients sending batches (`createBatch` > 1). */
  createBatchClients: number;
  /** Steady: schedules due per second. */
  steadyRate: number;
  /** Steady: seconds of due schedules. */
  steadySeconds: number;
  /** Steady: far-future Pending schedules in the store beside the due ones (the baseline of Scale). */
  steadyPending: number;
  /** Ingest: concurrent clients. */
  ingestClients: number;
  /** Ingest: measured seconds per server. */
  ingestSeconds: number;
  /** Ingest: warm-up seconds per server (not counted). */
  ingestWarmupSeconds: number;
  /** Scale: far-future Pending schedules seeded into the store. */
  scalePending: number;
  /** Scale: seconds of the steady run at `steadyRate`. */
  scaleSeconds: number;
  /** Startup: timed starts per store and way of starting (the figure is their median). */
  startupRuns: number;
  /** Startup: Pending schedules in the large store. */
  startupJobs: number;
  /** Executions: executions in the large store (the environment's PUNCTUAL_BENCH_EXECUTIONS wins). */
  executionsLarge: number;
}

export const DEFAULT_SIZES: Sizes = {
  burstCount: 100_000,
  keyedCount: 20_000,
  burstConcurrency: 512,
  createConcurrency: 64,
  createBatch: 1_000,
  createBatchClients: 4,
  steadyRate: 1_000,
  steadySeconds: 30,
  steadyPending: 1_000,
  ingestClients: 64,
  ingestSeconds: 10,
  ingestWarmupSeconds: 2,
  scalePending: 1_000_000,
  scaleSeconds: 30,
  startupRuns: 5,
  startupJobs: 1_000_000,
  executionsLarge: 10_000_000,
};

/** `--quick`: every scenario in about a minute, for checking the bench itself (figures not comparable). */
export const QUICK_SIZES: Sizes = {
  ...DEFAULT_SIZES,
  burstCount: 5_000,
  keyedCount: 2_000,
  steadySeconds: 3,
  ingestSeconds: 2,
  ingestWarmupSeconds: 1,
  scalePending: 20_000,
  scaleSeconds: 3,
  startupRuns: 2,
  startupJobs: 20_000,
  executionsLarge: 20_000,
};

export interface BenchContext {
  store: BenchStore;
  /** Where the store lives (`--database-url`). */
  storeOptions: BenchStoreOptions;
  /**
   * `punctual serve` processes per scenario, all on the scenario's database (`--nodes`, default 1;
   * more only with a shared store). Each runs `--role all`; the bench spreads its requests over
   * them round-robin, and they share the dispatch.
   */
  nodes: number;
  runner: Runner;
  receiver: ReceiverProcess;
  sizes: Sizes;
  /** Extra node flags of every `punctual serve` (e.g. `--cpu-prof`). */
  serviceNodeArgs: string[];
  /** Extra environment of every `punctual serve` (`--service-env`). */
  serviceEnv: Record<string, string>;
  /** Progress on stderr. */
  log(msg: string): void;
  /**
   * Before a measurement: waits (bounded) until processes other than `pids`, the receiver and the
   * bench use under 0.15 of a core (see proc.ts waitForQuiet).
   */
  settle(what: string, pids?: number[]): Promise<void>;
}
