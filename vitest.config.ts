import { defineConfig } from 'vitest/config';

/**
 * Files that measure time or need timers to fire on time: lateness and latency bounds, real
 * deliveries awaited against deadlines, crash/restart timing, CPU and per-call cost bounds,
 * request timeouts raced against slow answers. They run one at a time, after every other file,
 * on a machine the parallel files no longer load. A new file belongs here when it asserts on a
 * duration or relies on a timer firing promptly; everything else runs in parallel.
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

/** Workers of the parallel group (one per core of a 2-core CI machine; `PUNCTUAL_TEST_WORKERS` sets another number). */
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
          exclude: TIMING_FILES,
          fileParallelism: true,
          maxWorkers: PARALLEL_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: TIMING_FILES,
          // Timing tests (lateness) need a quiet machine: one file at a time, after the others.
          fileParallelism: false,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
