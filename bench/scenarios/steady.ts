/**
 * Steady (docs/benchmarks.md): `rate` schedules due per second for `seconds`, each at its own
 * instant (T0 + i·1000/rate ms, whole ms), created ahead through the API, with `pending` far-future
 * schedules in the store beside them. Lateness = arrival at the receiver − scheduledAt.
 * Goals: p50 ≤ 5 ms, p99 ≤ 25 ms, no early call. Scale runs the same with 1,000,000 pending.
 */
import type { BenchContext } from '../context.js';
import { alignToWallClock } from '../clock.js';
import type { Collected } from '../receiver-client.js';
import { CpuMeter, MemorySampler } from '../proc.js';
import { round, summarize, type Summary } from '../stats.js';
import type { Service } from '../service.js';
import type { BenchDatabase } from '../stores/store.js';
import { activityBefore, activityDelta, activityNow, createAhead, nodePids, planAhead, scheduleBody, until, withNodeTotal, withService } from './common.js';

export interface SteadyResult {
  /** Far-future Pending schedules in the store beside the due ones. */
  pending: number;
  rate: number;
  seconds: number;
  count: number;
  /** Lateness in ms (high-resolution arrival, aligned on the wall clock (clock.ts), − scheduledAt). */
  lateness: Summary;
  /** Lateness with the receiver's whole-ms Date.now() (a cross-check of the clock). */
  latenessWholeMs: Summary;
  /** Lateness p50 / p99 / max (ms) per second of the run: shows periodic stalls. */
  bySecond: { p50: number; p99: number; max: number }[];
  /** How the receiver's clock was aligned (clock.ts). */
  clock: { inconsistentWindows: number; maxCorrectionMs: number; maxUncertaintyMs: number };
  /** Calls with Date.now() at arrival < scheduledAt. Must be 0. */
  early: number;
  missing: number;
  duplicates: number;
  createPerSecond: number;
  /** ms taken to seed the far-future schedules directly into the store. */
  seedMs: number;
  /** Size of the store on disk at the end (bytes), when known. */
  storeBytes: number | null;
  /** `punctual serve` processes sharing the store and the dispatch (`--nodes`). */
  nodes: number;
  /**
   * RSS of the service (MB, 10^6 bytes): idle before T0, median and max during the run, peak
   * (VmHWM) at the end. Several nodes: each figure is the largest node's (RSS is per process).
   */
  memory: SteadyMemory;
  /** Several nodes: {@link SteadyResult.memory} of each. */
  memoryByNode?: SteadyMemory[];
  cpu: Record<string, { cpuMs: number; cores: number }>;
  /**
   * The store server's activity over the run (stores/store.ts `activity`: PostgreSQL's writing
   * transactions and WAL bytes), from just before T0 to after the last call; null for SQLite or
   * when not measurable.
   */
  storeActivity: Record<string, number> | null;
}

/** RSS figures of one process over a steady run (MB). */
export interface SteadyMemory {
  idleMB: number;
  steadyMedianMB: number;
  steadyMaxMB: number;
  peakMB: number;
}

function median(values: number[]): number {
  return summarize(values).p50;
}

/**
 * Lateness of `count` calls, call i due at epoch ms `due(i)`: arrival (aligned on the wall clock,
 * clock.ts) − due, in ms; the same with the receiver's whole-ms Date.now(); the calls early
 * (Date.now() < due) and missing.
 */
export function steadyLateness(got: Collected, count: number, due: (i: number) => number) {
  const clock = alignToWallClock(got.hr, got.ms);
  const late: number[] = [];
  const lateMs: number[] = [];
  let early = 0;
  for (let i = 0; i < count; i++) {
    const hr = clock.aligned[i]!;
    if (Number.isNaN(hr)) continue;
    late.push(hr - due(i));
    lateMs.push(got.ms[i]! - due(i));
    if (got.ms[i]! < due(i)) early++;
  }
  return { clock, lateness: summarize(late), latenessWholeMs: summarize(lateMs), early, missing: count - late.length };
}

/** A steady run on a fresh service whose store holds `pending` far-future schedules. */
export function steadyRun(
  ctx: BenchContext,
  opts: { pending: number; seconds: number; label: string },
): Promise<SteadyResult> {
  return withService(ctx, { seedPending: opts.pending }, (_service, db, seedMs, nodes) =>
    measureSteady(ctx, nodes, db, { ...opts, seedMs }),
  );
}

/**
 * A steady run on a running service: `rate`/s for `seconds`, created ahead, then measured.
 * `pending` and `seedMs` describe the store for the report. Several nodes (`service` an array):
 * created through all of them round-robin, delivered by whichever claims; lateness over all
 * deliveries, RSS per node.
 */
export async function measureSteady(
  ctx: BenchContext,
  service: Service | Service[],
  db: BenchDatabase,
  opts: { pending: number; seconds: number; label: string; seedMs: number },
): Promise<SteadyResult> {
  const nodes = Array.isArray(service) ? service : [service];
  const rate = ctx.sizes.steadyRate;
  const count = Math.round(rate * opts.seconds);
  const run = opts.label;
  const seedMs = opts.seedMs;
  {
    const samplers = nodes.map((n) => new MemorySampler(n.pid, 200));
    try {
      await ctx.settle(`the ${run} run`, nodes.map((n) => n.pid));
      const { at: t0 } = await planAhead(ctx, nodes, count);
      const due = (i: number) => t0 + Math.floor((i * 1000) / rate);
      const prefix = await ctx.receiver.arm(run, count);
      ctx.log(`${run}: ${count.toLocaleString('en')} schedules due from ${new Date(t0).toISOString()}, ${rate}/s for ${opts.seconds} s`);
      const created = await createAhead(ctx, nodes, count, (i) => scheduleBody(`${run}-${i}`, due(i), prefix + i, { i }), t0);

      const createdAt = Date.now();
      const activity0 = activityBefore(db, t0 - 100);
      const cpu = new CpuMeter({ ...nodePids(nodes), receiver: ctx.receiver.pid }, ctx.store.serverProcesses);
      await until(t0 - 100);
      cpu.start();
      const lastDue = due(count - 1);
      const progress = await ctx.receiver.waitFor(run, count, lastDue - Date.now() + 30_000);
      const cpuUse = withNodeTotal(cpu.stop(), nodes);
      if (progress.received < count) ctx.log(`  warning: only ${progress.received} of ${count} calls arrived in time`);
      const got = await ctx.receiver.collect(run);
      for (const s of samplers) s.sample();
      const storeActivity = activityDelta(await activity0, await activityNow(db));

      const { clock, lateness, latenessWholeMs, early, missing } = steadyLateness(got, count, due);
      const perSecond = Math.max(1, Math.round(rate));
      const bySecond: SteadyResult['bySecond'] = [];
      for (let i = 0; i < count; i += perSecond) {
        const part = [];
        for (let j = i; j < Math.min(count, i + perSecond); j++) if (!Number.isNaN(clock.aligned[j]!)) part.push(clock.aligned[j]! - due(j));
        const s = summarize(part);
        bySecond.push({ p50: round(s.p50), p99: round(s.p99), max: round(s.max) });
      }
      ctx.log(`  lateness p50 ${lateness.p50.toFixed(2)} ms, p99 ${lateness.p99.toFixed(2)} ms, max ${lateness.max.toFixed(1)} ms, early ${early}`);
      const memoryByNode: SteadyMemory[] = nodes.map((node, k) => {
        const idle = samplers[k]!.between(createdAt, t0);
        const during = samplers[k]!.between(t0, lastDue);
        return {
          idleMB: idle.length ? median(idle) : Number.NaN,
          steadyMedianMB: during.length ? median(during) : Number.NaN,
          steadyMaxMB: during.length ? Math.max(...during) : Number.NaN,
          peakMB: node.memory()?.peakMB ?? Number.NaN,
        };
      });
      const largest = (f: keyof SteadyMemory) => Math.max(...memoryByNode.map((m) => m[f]));
      return {
        pending: opts.pending,
        rate,
        seconds: opts.seconds,
        count,
        lateness,
        latenessWholeMs,
        bySecond,
        clock: { inconsistentWindows: clock.inconsistentWindows, maxCorrectionMs: clock.maxCorrectionMs, maxUncertaintyMs: clock.maxUncertaintyMs },
        early,
        missing,
        duplicates: got.duplicates,
        createPerSecond: created.perSecond,
        seedMs,
        storeBytes: await db.sizeBytes(),
        nodes: nodes.length,
        memory: {
          idleMB: largest('idleMB'),
          steadyMedianMB: largest('steadyMedianMB'),
          steadyMaxMB: largest('steadyMaxMB'),
          peakMB: largest('peakMB'),
        },
        ...(nodes.length > 1 && { memoryByNode }),
        cpu: cpuUse,
        storeActivity,
      };
    } finally {
      for (const s of samplers) s.stop();
    }
  }
}

export function steady(ctx: BenchContext): Promise<SteadyResult> {
  return steadyRun(ctx, { pending: ctx.sizes.steadyPending, seconds: ctx.sizes.steadySeconds, label: 'steady' });
}
