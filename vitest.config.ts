import { defineConfig } from 'vitest/config';

/**
 * Files that measure time or need timers to fire on time: lateness and latency bounds, real
 * deliveries awaited against deadlines, bursts that must be created before their instants,
 * CPU and per-call cost bounds, request timeouts raced against slow answers. They run one at a
 * time, after every other file, on a machine the other files no longer load. A new file belongs
 * here when it asserts on a duration of less than a few seconds or relies on a timer firing
 * promptly.
 */
export const TIMING_FILES = [
  'test/e2e/**/*.test.ts',
  'test/faults/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/cron/next.test.ts',
  'test/metrics/process-cpu.test.ts',
  'test/unit/held-calls.test.ts',
  'test/unit/target-auth.test.ts',
  'test/unit/wake-timer.test.ts',
];

/**
 * Files that wait in real time (processes started, killed and restarted; calls awaited) with
 * bounds of seconds, never milliseconds, and create no burst against a deadline: two at a time,
 * after the parallel group and before the timing files. Mostly waiting, two of them leave the
 * machine idle enough for each other's timers. They are taken out of {@link TIMING_FILES}.
 */
export const REAL_TIME_FILES = [
  'test/e2e/process-signals.test.ts',
  'test/e2e/crash.test.ts',
  'test/e2e/group-commit-crash.test.ts',
  'test/e2e/missed-occurrences.test.ts',
  'test/e2e/multinode-migrate-store.test.ts',
  'test/e2e/calling-other-apis.test.ts',
  'test/e2e/job-secrets.test.ts',
  'test/e2e/retry-outage.test.ts',
  'test/faults/graceful-drain.test.ts',
  'test/faults/store-unavailable.test.ts',
  'test/browser/docs.test.ts',
];

/**
 * Workers of the parallel group (`PUNCTUAL_TEST_WORKERS` sets another number): one per core of
 * the 2-core CI machine. Its files are CPU-bound: a third worker did not shorten the group there
 * (341 s with 3 against 324 s with 2), and pushed a CPU-bound test past its timeout.
 */
const PARALLEL_WORKERS = Number(process.env.PUNCTUAL_TEST_WORKERS ?? 2);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Says once whether the PostgreSQL suites run (PUNCTUAL_TEST_DATABASE_URL), and checks the server.
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: [...TIMING_FILES, ...REAL_TIME_FILES],
          fileParallelism: true,
          maxWorkers: PARALLEL_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'real-time',
          include: REAL_TIME_FILES,
          fileParallelism: true,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: TIMING_FILES,
          exclude: REAL_TIME_FILES,
          // Timing tests (lateness) need a quiet machine: one file at a time, after the others.
          fileParallelism: false,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
