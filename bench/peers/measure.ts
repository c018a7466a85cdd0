/**
 * Burst and steady for one peer library (docs/benchmarks.md, "Peers, side by side"), measured as
 * bench/scenarios/burst.ts and steady.ts measure Punctual: the same receiver process, the same
 * sizes, the same reading of arrivals (burstArrivals, steadyLateness). The jobs are created from
 * this process with the library's bulk call while its worker (peer-process.ts, its own process)
 * runs; they must all exist 500 ms before the first is due.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchContext } from '../context.js';
import { CpuMeter, type CpuUse, type ProcessGroup } from '../proc.js';
import type { Summary } from '../stats.js';
import { burstArrivals } from '../scenarios/burst.js';
import { until } from '../scenarios/common.js';
import { steadyLateness } from '../scenarios/steady.js';
import type { Peer, PeerJobSpec, PeerSession } from './peers.js';

/** One peer's figures on one scenario. */
export interface PeerResult {
  count: number;
  /** Creating the `count` jobs: ms and per second. */
  createMs: number;
  createPerSecond: number;
  /** Burst: deliveries/s from T to the last arrival. */
  perSecond?: number;
  /** Burst: arrival − T (ms). Steady: lateness (ms). */
  arrival: Summary;
  missing: number;
  duplicates: number;
  early: number;
  cpu: CpuUse;
}

/** The store's processes for the CPU figures: PostgreSQL's (server-wide) or redis-server. */
function storeGroup(peer: Peer): ProcessGroup {
  return peer.name === 'bullmq'
    ? { name: 'store', comm: 'redis-server', match: () => true }
    : { name: 'store', comm: 'postgres', match: () => true };
}

/** Forks peer-process.ts for `peer` and waits for its `ready`. */
async function startWorker(peer: Peer, session: PeerSession): Promise<ChildProcess> {
  const proc = fork(fileURLToPath(new URL('./peer-process.ts', import.meta.url)), [peer.name, JSON.stringify(session.config)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${peer.name} worker did not start in 30 s`)), 30_000);
    proc.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.once('exit', (code) => reject(new Error(`${peer.name} worker exited with ${code}`)));
  });
  return proc;
}

/** Asks the worker to stop gracefully; kills it after 15 s. */
async function stopWorker(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.send({ type: 'stop' });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `fn` with a fresh schema or queue and the peer's worker running; removes both after. */
async function withPeer<T>(peer: Peer, fn: (session: PeerSession, worker: ChildProcess) => Promise<T>): Promise<T> {
  const session = await peer.open();
  try {
    const worker = await startWorker(peer, session);
    try {
      return await fn(session, worker);
    } finally {
      await stopWorker(worker);
    }
  } finally {
    await session.close();
  }
}

/**
 * Like scenarios/common.ts planAhead: creates `probe` jobs due in a day (which never fire during
 * the run), timed over the second half, and returns an instant by which `count` more will exist
 * (1.25× the estimate + 3 s).
 */
async function planAhead(ctx: BenchContext, session: PeerSession, count: number, probe = 2_000): Promise<number> {
  const later = Date.now() + 86_400_000;
  const jobs = (from: number, n: number): PeerJobSpec[] =>
    Array.from({ length: n }, (_, i) => ({ url: `${ctx.receiver.url}/never`, body: { probe: from + i }, at: later }));
  await session.create(jobs(0, probe / 2));
  const t0 = performance.now();
  await session.create(jobs(probe / 2, probe / 2));
  const perSecond = (probe / 2) * 1000 / (performance.now() - t0);
  return Date.now() + Math.ceil((count / perSecond) * 1_250) + 3_000;
}

/** Creates `jobs`, timed; throws when it ended less than 500 ms before `mustEndBy`. */
async function createAhead(ctx: BenchContext, session: PeerSession, jobs: PeerJobSpec[], mustEndBy: number) {
  const t0 = performance.now();
  await session.create(jobs);
  const ms = performance.now() - t0;
  const slack = mustEndBy - Date.now();
  if (slack < 500) throw new Error(`setup overran: creating ${jobs.length} jobs ended ${-slack} ms before their instant`);
  ctx.log(`  created ${jobs.length.toLocaleString('en')} jobs at ${Math.round((jobs.length * 1000) / ms)}/s; ${(slack / 1000).toFixed(1)} s to spare`);
  return { createMs: ms, createPerSecond: (jobs.length * 1000) / ms };
}

/** `count` jobs due at one instant T; throughput = delivered / (last arrival − T). */
export function peerBurst(ctx: BenchContext, peer: Peer): Promise<PeerResult> {
  const count = ctx.sizes.burstCount;
  const run = `${peer.name}-burst`;
  return withPeer(peer, async (session, worker) => {
    await ctx.settle(`the ${peer.name} burst`, [worker.pid!]);
    const dueAt = await planAhead(ctx, session, count);
    const prefix = await ctx.receiver.arm(run, count);
    ctx.log(`${peer.name} burst: creating ${count.toLocaleString('en')} jobs due at ${new Date(dueAt).toISOString()}`);
    const jobs = Array.from({ length: count }, (_, i) => ({ url: prefix + i, body: { i }, at: dueAt }));
    const created = await createAhead(ctx, session, jobs, dueAt);
    const cpu = new CpuMeter({ worker: worker.pid!, receiver: ctx.receiver.pid }, storeGroup(peer));
    await until(dueAt - 200);
    cpu.start();
    const progress = await ctx.receiver.waitFor(run, count, dueAt - Date.now() + 60_000 + count * 5);
    const cpuUse = cpu.stop();
    if (progress.received < count) ctx.log(`  warning: only ${progress.received} of ${count} calls arrived in time`);
    const got = await ctx.receiver.collect(run);
    const { arrival, perSecond, missing, early } = burstArrivals(got, count, dueAt);
    ctx.log(`  ${peer.name} burst ${Math.round(perSecond)}/s (last call ${Math.round(arrival.max)} ms after T), missing ${missing}, early ${early}`);
    return { count, ...created, perSecond, arrival, missing, duplicates: got.duplicates, early, cpu: cpuUse };
  });
}

/** `steadyRate` jobs due per second for `steadySeconds`, job i at T0 + ⌊i·1000/rate⌋ ms; lateness. */
export function peerSteady(ctx: BenchContext, peer: Peer): Promise<PeerResult> {
  const rate = ctx.sizes.steadyRate;
  const count = Math.round(rate * ctx.sizes.steadySeconds);
  const run = `${peer.name}-steady`;
  return withPeer(peer, async (session, worker) => {
    await ctx.settle(`the ${peer.name} steady run`, [worker.pid!]);
    const t0 = await planAhead(ctx, session, count);
    const due = (i: number) => t0 + Math.floor((i * 1000) / rate);
    const prefix = await ctx.receiver.arm(run, count);
    ctx.log(`${peer.name} steady: ${count.toLocaleString('en')} jobs due from ${new Date(t0).toISOString()}, ${rate}/s`);
    const jobs = Array.from({ length: count }, (_, i) => ({ url: prefix + i, body: { i }, at: due(i) }));
    const created = await createAhead(ctx, session, jobs, t0);
    const cpu = new CpuMeter({ worker: worker.pid!, receiver: ctx.receiver.pid }, storeGroup(peer));
    await until(t0 - 100);
    cpu.start();
    const progress = await ctx.receiver.waitFor(run, count, due(count - 1) - Date.now() + 30_000);
    const cpuUse = cpu.stop();
    if (progress.received < count) ctx.log(`  warning: only ${progress.received} of ${count} calls arrived in time`);
    const got = await ctx.receiver.collect(run);
    const { lateness, early, missing } = steadyLateness(got, count, due);
    ctx.log(`  ${peer.name} lateness p50 ${lateness.p50.toFixed(2)} ms, p99 ${lateness.p99.toFixed(2)} ms, early ${early}, missing ${missing}`);
    return { count, ...created, arrival: lateness, missing, duplicates: got.duplicates, early, cpu: cpuUse };
  });
}
