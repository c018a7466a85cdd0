import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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
 * machine idle enough for each other's timers. They are taken out of {@link TIMING_FILES}. The
 * console's browser file is here: its waits are of 10 s and more. The node-liveness file is not:
 * its three servers and 300 calls in flight made the crash test beside it count its cron calls
 * wrong (twice on CI), so it runs alone, in the timing group.
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
  'test/e2e/notification-crash.test.ts',
  'test/e2e/notifications.test.ts',
  'test/faults/graceful-drain.test.ts',
  'test/faults/store-unavailable.test.ts',
  'test/browser/docs.test.ts',
  'test/browser/console.test.ts',
];

/**
 * Files that change process-wide state for their tests: fake timers (`vi.useFakeTimers`), the
 * environment, the global OpenTelemetry providers. Each runs in a fresh process (Vitest's
 * isolation), in its own group's place. Every other file runs without isolation: the files of one
 * worker share one module graph, imported once, rather than a fresh one per file (about 1 s a
 * file on a 2-core machine). A file shared so must leave nothing behind: it stops what it starts
 * (servers, stores, receivers, child processes, timers) in its own hooks and restores anything
 * global it touches; a new file that cannot goes in this list.
 */
export const ISOLATED_FILES = [
  'test/cli/binary.test.ts',
  'test/service/last-used.test.ts',
  'test/store/production-sqlite.test.ts',
  'test/unit/deadlines.test.ts',
  'test/unit/launch-queue.test.ts',
  'test/e2e/traces.test.ts',
];

/** Whether `file` (a path from the root) is one of {@link TIMING_FILES} (a folder's glob or a name). */
function isTiming(file: string): boolean {
  return TIMING_FILES.some((f) => (f.endsWith('/**/*.test.ts') ? file.startsWith(f.slice(0, -'**/*.test.ts'.length)) : file === f));
}

/**
 * The slowest files of their group (CI's report of the 20 slowest, .ci/run), slowest first: each
 * group starts them first, so that none of them is left running alone at the group's end. A
 * fresh clone has no record of durations, and Vitest's own order would then be the files' sizes.
 * The container test comes first: its image is built before its tests, while other files run.
 */
export const SLOWEST_FIRST = [
  'test/container/image.test.ts',
  'test/fuzz/api.test.ts',
  'test/store/production-postgres.test.ts',
  'test/store/production-sqlite.test.ts',
  'test/store/postgres.test.ts',
  'test/http/request-shape.test.ts',
  'test/cli/backup.test.ts',
  'test/http/endpoint-policy.test.ts',
  'test/cron/reference.test.ts',
  'test/security/key-missing.test.ts',
  'test/security/key-file.test.ts',
  'test/e2e/process-signals.test.ts',
  'test/browser/console.test.ts',
  'test/e2e/multinode-liveness.test.ts',
  'test/e2e/group-commit-crash.test.ts',
  'test/e2e/crash.test.ts',
  'test/e2e/notification-crash.test.ts',
  'test/e2e/calling-other-apis.test.ts',
  'test/e2e/retry-outage.test.ts',
  'test/e2e/multinode-migrate-store.test.ts',
  'test/faults/graceful-drain.test.ts',
  'test/e2e/missed-occurrences.test.ts',
];

/**
 * Vitest's order (by group, then project, then recorded duration or size), with the files of
 * {@link SLOWEST_FIRST} moved to the front of their group, in that list's order, whatever their
 * project: an isolated file among the slowest (production-sqlite) starts early beside the
 * others, rather than alone at the end of its group with one core idle.
 */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((f, i) => [f, i]));
    const rank = (f: TestSpecification) => {
      const i = SLOWEST_FIRST.indexOf(relative(f.project.config.root, f.moduleId));
      return i < 0 ? SLOWEST_FIRST.length : i;
    };
    return [...sorted].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        rank(a) - rank(b) ||
        (a.project.name < b.project.name ? -1 : a.project.name > b.project.name ? 1 : 0) ||
        position.get(a)! - position.get(b)!,
    );
  }
}

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
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: [...TIMING_FILES, ...REAL_TIME_FILES, ...ISOLATED_FILES],
          isolate: false,
          fileParallelism: true,
          maxWorkers: PARALLEL_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          // In the same group as 'parallel', each file in a process of its own, in the group's
          // order (SlowestFirst).
          name: 'parallel-isolated',
          include: ISOLATED_FILES,
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
          exclude: ISOLATED_FILES,
          isolate: false,
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
          exclude: [...REAL_TIME_FILES, ...ISOLATED_FILES],
          isolate: false,
          // Timing tests (lateness) need a quiet machine: one file at a time, after the others.
          fileParallelism: false,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          // The timing files of ISOLATED_FILES, one at a time, each in a process of its own.
          name: 'timing-isolated',
          include: ISOLATED_FILES.filter(isTiming),
          exclude: REAL_TIME_FILES,
          fileParallelism: false,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
