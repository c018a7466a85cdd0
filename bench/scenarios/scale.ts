/**
 * Scale (docs/benchmarks.md): RSS of the service with `scalePending` (1,000,000) Pending schedules
 * in the store (goal ≤ 256 MB) and steady lateness compared with the figure with `steadyPending`
 * (1,000) pending (goal within 20%).
 *
 * Both steady runs happen in the same `punctual serve` process: first with 1,000 far-future
 * schedules in the store, then — after 999,000 more were written straight into the store while the
 * service idled (setup; see stores/sqlite.ts, stores/postgres.ts) — again. So only the store changes between the two
 * figures, not the process (JIT, memory layout, the phase of its millisecond timers against the
 * wall clock): the goal is a 20% bound on a p50 of about 1 ms, which leaves no room for
 * process-to-process differences.
 *
 * With `--nodes n` (PostgreSQL), the same n processes serve both runs; RSS is per process and the
 * figure is the largest node's (each node's in `memoryByNode`), lateness is over all deliveries.
 */
import type { BenchContext } from '../context.js';
import { withService } from './common.js';
import { measureSteady, type SteadyResult } from './steady.js';

export interface ScaleResult {
  run: SteadyResult;
  baseline: SteadyResult;
  /** ms taken to write the extra pending schedules into the store while the service ran. */
  extraSeedMs: number;
  /** run / baseline of lateness p50 and p99. Goal ≤ 1.2. */
  p50Ratio: number;
  p99Ratio: number;
}

export async function scale(ctx: BenchContext): Promise<ScaleResult> {
  const { scaleSeconds: seconds, steadyPending, scalePending } = ctx.sizes;
  return withService(ctx, { seedPending: steadyPending }, async (_service, db, seedMs, nodes) => {
    ctx.log(`scale: baseline steady run with ${steadyPending.toLocaleString('en')} pending, ${seconds} s`);
    const baseline = await measureSteady(ctx, nodes, db, { pending: steadyPending, seconds, label: 'scale-baseline', seedMs });
    const extra = Math.max(0, scalePending - steadyPending);
    ctx.log(`scale: writing ${extra.toLocaleString('en')} more far-future schedules into the store (service running, idle)`);
    const extraSeedMs = await db.seedPending(extra, {
      firstAt: Date.UTC(2101, 0, 1),
      stepMs: 1_000,
      endpoint: `${ctx.receiver.url}/never`,
    });
    ctx.log(`  written in ${(extraSeedMs / 1000).toFixed(1)} s`);
    const run = await measureSteady(ctx, nodes, db, { pending: scalePending, seconds, label: 'scale', seedMs: extraSeedMs });
    return {
      run,
      baseline,
      extraSeedMs,
      p50Ratio: run.lateness.p50 / baseline.lateness.p50,
      p99Ratio: run.lateness.p99 / baseline.lateness.p99,
    };
  });
}
