/**
 * Burst (docs/benchmarks.md): `burstCount` schedules created ahead through the API, all due at one
 * instant T; throughput = count / (last arrival − T). In the same run, the ceiling: the same
 * number of plain undici POSTs at the same receiver with the same concurrency (512, the
 * dispatcher's cap), count / (last arrival − first send), measured before and after the burst;
 * the ratio uses the better of the two (a disturbed ceiling run would flatter the ratio).
 * Goal: burst ≥ 0.4 × ceiling. With `--nodes n` the schedules are created through every node
 * (round-robin) and the n nodes share the dispatch; `cpu` has each node and their sum (`service`).
 */
import type { BenchContext } from '../context.js';
import { postBurst } from '../load.js';
import type { Collected } from '../receiver-client.js';
import { alignToWallClock } from '../clock.js';
import { CpuMeter } from '../proc.js';
import { summarize, type Summary } from '../stats.js';
import { VERSION } from '../../src/version.js';
import { activityBefore, activityDelta, activityNow, createAhead, epochOffset, nodePids, planAhead, scheduleBody, until, withNodeTotal, withService } from './common.js';

export interface BurstResult {
  count: number;
  /** Deliveries per second from T to the last arrival. */
  perSecond: number;
  /** ms from T to the first and to the last arrival. */
  firstArrivalMs: number;
  lastArrivalMs: number;
  /** Arrival − T of every call (ms), summarised. */
  arrival: Summary;
  missing: number;
  duplicates: number;
  /** Calls that arrived before T (Date.now() at the receiver < T). Must be 0. */
  early: number;
  createPerSecond: number;
  /** The better of the two ceiling runs; `runs` has both (per second). */
  ceiling: { perSecond: number; ms: number; concurrency: number; runs: number[] };
  /** perSecond / ceiling.perSecond. Goal ≥ 0.4. */
  ratio: number;
  /** CPU used during the burst (1 = one core busy the whole time). */
  cpu: Record<string, { cpuMs: number; cores: number }>;
  /** The store server's activity over the burst (see SteadyResult.storeActivity); null for SQLite. */
  storeActivity: Record<string, number> | null;
  /** CPU during each ceiling run. */
  ceilingCpu: Record<string, { cpuMs: number; cores: number }>[];
}

/** Plain POSTs at the receiver, through an Agent like the dispatcher's; see load.ts postBurst. */
async function measureCeiling(ctx: BenchContext, count: number, warmUp: boolean) {
  const { receiver, sizes } = ctx;
  if (warmUp) {
    // Warm the receiver (and this process's undici) first, so neither side runs cold code.
    const warm = await receiver.arm('warm', 5_000);
    await postBurst(warm, 5_000, (i) => ({ i }), { concurrency: sizes.burstConcurrency, timeoutMs: 60_000, userAgent: `Punctual/${VERSION}` });
    await receiver.collect('warm');
  }

  await ctx.settle('the ceiling');
  const prefix = await receiver.arm('ceiling', count);
  const cpu = new CpuMeter({ client: process.pid, receiver: receiver.pid });
  const offset = epochOffset();
  cpu.start();
  const t0 = performance.now() + offset;
  await postBurst(prefix, count, (i) => ({ i }), {
    concurrency: sizes.burstConcurrency,
    timeoutMs: 60_000 + count * 5,
    userAgent: `Punctual/${VERSION}`,
  });
  const cpuUse = cpu.stop();
  const got = await receiver.collect('ceiling');
  let last = Number.NEGATIVE_INFINITY;
  for (const at of alignToWallClock(got.hr, got.ms).aligned) if (at > last) last = at;
  const ms = last - t0;
  return { perSecond: (count * 1000) / ms, ms, concurrency: sizes.burstConcurrency, cpu: cpuUse };
}

/**
 * The arrivals of a burst of `count` calls due at epoch ms `dueAt`: arrival − T of each (ms,
 * aligned on the wall clock, clock.ts), deliveries per second from T to the last arrival, and the
 * calls missing or early (the receiver's Date.now() < T).
 */
export function burstArrivals(got: Collected, count: number, dueAt: number): { arrival: Summary; perSecond: number; missing: number; early: number } {
  const aligned = alignToWallClock(got.hr, got.ms).aligned;
  const offsets: number[] = [];
  let early = 0;
  for (let i = 0; i < count; i++) {
    const at = aligned[i]!;
    if (Number.isNaN(at)) continue;
    offsets.push(at - dueAt);
    if (got.ms[i]! < dueAt) early++;
  }
  const arrival = summarize(offsets);
  return { arrival, perSecond: (offsets.length * 1000) / arrival.max, missing: count - offsets.length, early };
}

export async function burst(ctx: BenchContext): Promise<BurstResult> {
  const count = ctx.sizes.burstCount;
  ctx.log(`burst: ceiling — ${count.toLocaleString('en')} plain undici POSTs, ${ctx.sizes.burstConcurrency} in flight`);
  const before = await measureCeiling(ctx, count, true);
  ctx.log(`  ceiling ${Math.round(before.perSecond)}/s`);

  const result = await withService(ctx, { seedPending: 0 }, async (_service, db, _seedMs, nodes) => {
    await ctx.settle('the burst', nodes.map((n) => n.pid));
    const { at: dueAt } = await planAhead(ctx, nodes, count);
    const prefix = await ctx.receiver.arm('burst', count);
    ctx.log(`burst: creating ${count.toLocaleString('en')} schedules due at ${new Date(dueAt).toISOString()}`);
    const created = await createAhead(ctx, nodes, count, (i) => scheduleBody(`burst-${i}`, dueAt, prefix + i, { i }), dueAt);

    const activity0 = activityBefore(db, dueAt - 200);
    const cpu = new CpuMeter({ ...nodePids(nodes), receiver: ctx.receiver.pid }, ctx.store.serverProcesses);
    await until(dueAt - 200);
    cpu.start();
    const progress = await ctx.receiver.waitFor('burst', count, dueAt - Date.now() + 60_000 + count * 5);
    const cpuUse = withNodeTotal(cpu.stop(), nodes);
    if (progress.received < count) ctx.log(`  warning: only ${progress.received} of ${count} calls arrived in time`);
    const got = await ctx.receiver.collect('burst');
    const storeActivity = activityDelta(await activity0, await activityNow(db));

    const { arrival, perSecond, missing, early } = burstArrivals(got, count, dueAt);
    ctx.log(`  burst ${Math.round(perSecond)}/s (last call ${Math.round(arrival.max)} ms after T)`);
    return {
      count,
      perSecond,
      firstArrivalMs: arrival.min,
      lastArrivalMs: arrival.max,
      arrival,
      missing,
      duplicates: got.duplicates,
      early,
      createPerSecond: created.perSecond,
      cpu: cpuUse,
      storeActivity,
    };
  });

  ctx.log(`burst: ceiling again, after the burst`);
  const after = await measureCeiling(ctx, count, false);
  ctx.log(`  ceiling ${Math.round(after.perSecond)}/s`);
  const best = after.perSecond > before.perSecond ? after : before;
  return {
    ...result,
    ceiling: { perSecond: best.perSecond, ms: best.ms, concurrency: best.concurrency, runs: [before.perSecond, after.perSecond] },
    ratio: result.perSecond / best.perSecond,
    ceilingCpu: [before.cpu, after.cpu],
  };
}
