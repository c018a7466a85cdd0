/** Helpers shared by the scenarios: a service (or several nodes) on a fresh store, creating schedules ahead, waiting. */
import type { BenchContext } from '../context.js';
import { createMany, type Target } from '../load.js';
import type { CpuUse } from '../proc.js';
import { newToken, startService, type Service } from '../service.js';
import type { BenchDatabase } from '../stores/store.js';

/** 2100-01-01T00:00:00Z: far-future instants never fire during a bench. */
export const FAR_FUTURE = Date.UTC(2100, 0, 1);

/** Resolves at epoch ms `at`. */
export function until(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}

/** Date.now() − performance.now(), read at a tick of Date.now(): turns performance.now() into epoch ms. */
export function epochOffset(): number {
  const start = Date.now();
  let now = start;
  while (now === start) now = Date.now();
  return now - performance.now();
}

/** The POST /schedules target of a service. */
export function schedulesTarget(service: Service): Target {
  return { url: service.url, path: '/schedules', headers: { authorization: `Bearer ${service.token}` } };
}

/** The POST /schedules targets of every node (load.ts spreads requests over them round-robin). */
export function schedulesTargets(nodes: Service | Service[]): Target[] {
  return (Array.isArray(nodes) ? nodes : [nodes]).map(schedulesTarget);
}

/**
 * Names for a {@link CpuMeter}: `{ [name]: pid }` for one node (the names of a single-node run),
 * else `{ [name + ' 1']: pid1, … }`; {@link withNodeTotal} then adds their sum as `name`.
 */
export function nodePids(nodes: readonly { pid: number }[], name = 'service'): Record<string, number> {
  if (nodes.length === 1) return { [name]: nodes[0]!.pid };
  return Object.fromEntries(nodes.map((n, k) => [`${name} ${k + 1}`, n.pid]));
}

/** Adds `name`: the CPU of all nodes together (several nodes; one node is already `name`). */
export function withNodeTotal(cpu: CpuUse, nodes: readonly unknown[], name = 'service'): CpuUse {
  if (nodes.length === 1) return cpu;
  let cpuMs = 0;
  let cores = 0;
  for (let k = 1; k <= nodes.length; k++) {
    cpuMs += cpu[`${name} ${k}`]?.cpuMs ?? Number.NaN;
    cores += cpu[`${name} ${k}`]?.cores ?? Number.NaN;
  }
  return { [name]: { cpuMs, cores }, ...cpu };
}

/**
 * Reads the store's activity counters ({@link BenchDatabase.activity}) for a measurement that
 * starts at `startAt` (epoch ms); call it without awaiting, then await it once `startAt` came.
 * Null when the store has none, or when the reading ended after `startAt` (it would count part of
 * the measurement as before it).
 */
export async function activityBefore(db: BenchDatabase, startAt: number): Promise<Record<string, number> | null> {
  const counters = await activityNow(db);
  return Date.now() <= startAt ? counters : null;
}

/**
 * The store's activity counters now; null when the store has none or the reading failed (a
 * side figure: it never fails a scenario, and it may be pending unawaited without crashing).
 */
export async function activityNow(db: BenchDatabase): Promise<Record<string, number> | null> {
  if (!db.activity) return null;
  return db.activity().catch(() => null);
}

/** `after − before` of each counter; null when either reading is missing. */
export function activityDelta(
  before: Record<string, number> | null,
  after: Record<string, number> | null | undefined,
): Record<string, number> | null {
  if (!before || !after) return null;
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
}

/**
 * Starts `ctx.nodes` `punctual serve` processes on `db`, one after the other, sharing one
 * bootstrap token (each makes sure its key exists; the first creates it). Stops those started
 * if one fails.
 */
async function startNodes(ctx: BenchContext, db: BenchDatabase, env: Record<string, string> | undefined): Promise<Service[]> {
  const token = newToken();
  const nodes: Service[] = [];
  try {
    for (let k = 0; k < ctx.nodes; k++) {
      nodes.push(
        await startService({
          runner: ctx.runner,
          databaseUrl: db.databaseUrl,
          nodeArgs: ctx.serviceNodeArgs,
          env: { ...ctx.serviceEnv, ...env },
          token,
        }),
      );
    }
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw err;
  }
  if (ctx.nodes > 1) ctx.log(`  ${ctx.nodes} nodes: pids ${nodes.map((n) => n.pid).join(', ')}`);
  return nodes;
}

/** A POST /schedules body. */
export function scheduleBody(name: string, at: number, endpoint: string, data: Record<string, unknown>) {
  return { name, scheduledAt: new Date(at).toISOString(), endpoint, data };
}

/**
 * Runs `fn` with `punctual serve` on a fresh store holding `seedPending` far-future schedules
 * (written directly, before the service starts); stops the service and removes the store after.
 * With `--nodes n` (a shared store), n processes serve the store: `fn` gets the first as
 * `service` and all of them as `nodes`.
 */
export async function withService<T>(
  ctx: BenchContext,
  opts: { seedPending: number; env?: Record<string, string> },
  fn: (service: Service, db: BenchDatabase, seedMs: number, nodes: Service[]) => Promise<T>,
): Promise<T> {
  const db = await ctx.store.create(ctx.runner, ctx.storeOptions);
  try {
    let seedMs = 0;
    if (opts.seedPending > 0) {
      ctx.log(`seeding ${opts.seedPending.toLocaleString('en')} far-future schedules directly into the ${ctx.store.name} store`);
      seedMs = await db.seedPending(opts.seedPending, { firstAt: FAR_FUTURE, stepMs: 1_000, endpoint: `${ctx.receiver.url}/never` });
      ctx.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s`);
    }
    const nodes = await startNodes(ctx, db, opts.env);
    try {
      return await fn(nodes[0]!, db, seedMs, nodes);
    } finally {
      await Promise.all(
        nodes.map(async (service, k) => {
          const which = nodes.length > 1 ? ` (node ${k + 1})` : '';
          const { code, signal } = await service.stop();
          if (code !== 0) ctx.log(`  warning: punctual serve${which} exited with code ${code} signal ${signal}`);
          const problems = service.logLines.filter((l) => /"level":(50|60)/.test(l));
          if (problems.length > 0) ctx.log(`  warning: ${problems.length} error lines from the service${which}, first: ${problems[0]}`);
        }),
      );
    }
  } finally {
    await db.dispose();
  }
}

/**
 * Creates `count` schedules `body(i)` through the API as the sizes say: one `POST /schedules`
 * each from `createConcurrency` clients (`createBatch` 1), or `POST /schedules/batch` requests of
 * `createBatch` schedules from `createBatchClients` clients. Several nodes: requests go to them
 * round-robin. Throws on any answer but 201, or after `timeoutMs`.
 */
export async function createSchedules(
  ctx: BenchContext,
  service: Service | Service[],
  count: number,
  body: (i: number) => unknown,
  timeoutMs?: number,
): Promise<{ perSecond: number; ms: number }> {
  const { createBatch: per, createConcurrency, createBatchClients } = ctx.sizes;
  if (per <= 1) {
    const r = await createMany(schedulesTargets(service), count, body, { concurrency: createConcurrency, timeoutMs });
    return { perSecond: r.perSecond, ms: r.ms };
  }
  const targets = schedulesTargets(service).map((t) => ({ ...t, path: '/schedules/batch' }));
  const batch = (k: number) => {
    const schedules: unknown[] = [];
    for (let i = k * per; i < Math.min(count, (k + 1) * per); i++) schedules.push(body(i));
    return { schedules };
  };
  const r = await createMany(targets, Math.ceil(count / per), batch, { concurrency: createBatchClients, timeoutMs });
  return { perSecond: (count * 1000) / r.ms, ms: r.ms };
}

/** How {@link createSchedules} creates, for the logs and the tables. */
export function createdHow(ctx: BenchContext): string {
  const { createBatch, createConcurrency, createBatchClients } = ctx.sizes;
  return createBatch <= 1
    ? `one by one via POST /schedules, ${createConcurrency} clients`
    : `POST /schedules/batch of ${createBatch.toLocaleString('en')}, ${createBatchClients} clients`;
}

/**
 * Plans an instant for work created ahead: creates `probe` far-future schedules through the API
 * as {@link createSchedules} does (they also warm the service up; the rate is timed over the
 * second half, once warm), and returns an instant by which `count` more creations will have
 * finished with room to spare (1.25× the estimate + 3 s). Several nodes: the probes are spread
 * over them.
 */
export async function planAhead(
  ctx: BenchContext,
  service: Service | Service[],
  count: number,
  probe = Math.max(2_000, 4 * ctx.sizes.createBatch * ctx.sizes.createBatchClients),
): Promise<{ at: number; probePerSecond: number }> {
  const create = (from: number, n: number) =>
    createSchedules(ctx, service, n, (i) => scheduleBody(`probe-${from + i}`, FAR_FUTURE + from + i, `${ctx.receiver.url}/never`, { probe: from + i }));
  const half = Math.floor(probe / 2);
  await create(0, half);
  const r = await create(half, probe - half);
  const at = Date.now() + Math.ceil((count / r.perSecond) * 1_250) + 3_000;
  return { at, probePerSecond: r.perSecond };
}

/**
 * Creates `count` schedules through the API (setup, {@link createSchedules}) and checks they
 * were all created before `mustEndBy` − 500 ms: creation overlapping the measured window would
 * spoil it.
 */
export async function createAhead(
  ctx: BenchContext,
  service: Service | Service[],
  count: number,
  body: (i: number) => unknown,
  mustEndBy: number,
): Promise<{ perSecond: number; ms: number }> {
  const r = await createSchedules(ctx, service, count, body, Math.max(1_000, mustEndBy - Date.now()));
  const slack = mustEndBy - Date.now();
  if (slack < 500) throw new Error(`setup overran: creating ${count} schedules ended ${-slack} ms before their instant`);
  ctx.log(`  created ${count.toLocaleString('en')} schedules ahead (${createdHow(ctx)}) at ${Math.round(r.perSecond)}/s in ${(r.ms / 1000).toFixed(2)} s; ${(slack / 1000).toFixed(1)} s to spare`);
  return r;
}
