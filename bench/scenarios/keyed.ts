/**
 * Keyed burst (docs/benchmarks.md, docs/flow-control.md): `keyedCount` schedules due at one
 * instant T, all naming one flow-control key with `parallelism` {@link PARALLELISM}, at a receiver
 * that answers each call {@link DELAY_MS} ms after it arrives. The most the receiver can be sent is
 * parallelism ÷ latency (2,500 calls/s here); the figure is deliveries per second from T to the
 * last arrival, its ratio to that bound, and the most calls the receiver saw in flight at once
 * (never more than the parallelism).
 */
import type { BenchContext } from '../context.js';
import { CpuMeter } from '../proc.js';
import { createAhead, nodePids, planAhead, scheduleBody, until, withNodeTotal, withService } from './common.js';
import { burstArrivals } from './burst.js';
import type { Summary } from '../stats.js';

/** The key's parallelism. */
export const PARALLELISM = 50;
/** How long the receiver takes to answer each call, ms. */
export const DELAY_MS = 20;
const KEY = 'bench-keyed';

export interface KeyedResult {
  count: number;
  parallelism: number;
  receiverDelayMs: number;
  /** Deliveries per second from T to the last arrival. */
  perSecond: number;
  /** parallelism × 1,000 ÷ receiverDelayMs: what the receiver allows. */
  boundPerSecond: number;
  /** perSecond ÷ boundPerSecond. */
  ratio: number;
  /** The most calls the receiver had in flight at once; never above `parallelism`. */
  maxInFlight: number;
  arrival: Summary;
  missing: number;
  duplicates: number;
  early: number;
  cpu: Record<string, { cpuMs: number; cores: number }>;
}

export async function keyed(ctx: BenchContext): Promise<KeyedResult> {
  const count = ctx.sizes.keyedCount;
  return withService(ctx, { seedPending: 0 }, async (service, _db, _seedMs, nodes) => {
    const put = await fetch(`${service.url}/flow-control-keys/${KEY}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ parallelism: PARALLELISM }),
    });
    if (!put.ok) throw new Error(`PUT /flow-control-keys/${KEY}: ${put.status} ${await put.text()}`);
    await ctx.settle('the keyed burst', nodes.map((n) => n.pid));
    const { at: dueAt } = await planAhead(ctx, nodes, count);
    const prefix = await ctx.receiver.arm('keyed', count, DELAY_MS);
    ctx.log(`keyed: creating ${count.toLocaleString('en')} schedules of one key (parallelism ${PARALLELISM}) due at ${new Date(dueAt).toISOString()}`);
    await createAhead(ctx, nodes, count, (i) => ({ ...scheduleBody(`keyed-${i}`, dueAt, prefix + i, { i }), flowControlKey: KEY }), dueAt);
    const cpu = new CpuMeter({ ...nodePids(nodes), receiver: ctx.receiver.pid }, ctx.store.serverProcesses);
    await until(dueAt - 200);
    cpu.start();
    const bound = (PARALLELISM * 1_000) / DELAY_MS;
    const progress = await ctx.receiver.waitFor('keyed', count, dueAt - Date.now() + 60_000 + (count * 3_000) / bound);
    const cpuUse = withNodeTotal(cpu.stop(), nodes);
    if (progress.received < count) ctx.log(`  warning: only ${progress.received} of ${count} calls arrived in time`);
    const got = await ctx.receiver.collect('keyed');
    const { arrival, perSecond, missing, early } = burstArrivals(got, count, dueAt);
    ctx.log(`  keyed ${Math.round(perSecond)}/s of ${Math.round(bound)}/s allowed; at most ${got.maxInFlight} in flight`);
    return {
      count,
      parallelism: PARALLELISM,
      receiverDelayMs: DELAY_MS,
      perSecond,
      boundPerSecond: bound,
      ratio: perSecond / bound,
      maxInFlight: got.maxInFlight,
      arrival,
      missing,
      duplicates: got.duplicates,
      early,
      cpu: cpuUse,
    };
  });
}
