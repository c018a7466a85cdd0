/** Helpers shared by the scenarios: a service on a fresh store, creating schedules ahead, waiting. */
import type { BenchContext } from '../context.js';
import { createMany, type Target } from '../load.js';
import { startService, type Service } from '../service.js';
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

/** A POST /schedules body. */
export function scheduleBody(name: string, at: number, endpoint: string, data: Record<string, unknown>) {
  return { name, scheduledAt: new Date(at).toISOString(), endpoint, data };
}

/**
 * Runs `fn` with `punctual serve` on a fresh store holding `seedPending` far-future schedules
 * (written directly, before the service starts); stops the service and removes the store after.
 */
export async function withService<T>(
  ctx: BenchContext,
  opts: { seedPending: number; env?: Record<string, string> },
  fn: (service: Service, db: BenchDatabase, seedMs: number) => Promise<T>,
): Promise<T> {
  const db = await ctx.store.create(ctx.runner);
  try {
    let seedMs = 0;
    if (opts.seedPending > 0) {
      ctx.log(`seeding ${opts.seedPending.toLocaleString('en')} far-future schedules directly into the ${ctx.store.name} store`);
      seedMs = await db.seedPending(opts.seedPending, { firstAt: FAR_FUTURE, stepMs: 1_000, endpoint: `${ctx.receiver.url}/never` });
      ctx.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s`);
    }
    const service = await startService({
      runner: ctx.runner,
      databaseUrl: db.databaseUrl,
      nodeArgs: ctx.serviceNodeArgs,
      env: { ...ctx.serviceEnv, ...opts.env },
    });
    try {
      return await fn(service, db, seedMs);
    } finally {
      const { code, signal } = await service.stop();
      if (code !== 0) ctx.log(`  warning: punctual serve exited with code ${code} signal ${signal}`);
      const problems = service.logLines.filter((l) => /"level":(50|60)/.test(l));
      if (problems.length > 0) ctx.log(`  warning: ${problems.length} error lines from the service, first: ${problems[0]}`);
    }
  } finally {
    await db.dispose();
  }
}

/**
 * Plans an instant for work created ahead: creates `probe` far-future schedules through the API
 * (they also warm the service up; the rate is timed over the second half, once warm), and
 * returns an instant by which `count` more creations will have finished with room to spare
 * (1.25× the estimate + 3 s).
 */
export async function planAhead(
  ctx: BenchContext,
  service: Service,
  count: number,
  probe = 2_000,
): Promise<{ at: number; probePerSecond: number }> {
  const create = (from: number, n: number) =>
    createMany(
      schedulesTarget(service),
      n,
      (i) => scheduleBody(`probe-${from + i}`, FAR_FUTURE + from + i, `${ctx.receiver.url}/never`, { probe: from + i }),
      { concurrency: ctx.sizes.createConcurrency },
    );
  const half = Math.floor(probe / 2);
  await create(0, half);
  const r = await create(half, probe - half);
  const at = Date.now() + Math.ceil((count / r.perSecond) * 1_250) + 3_000;
  return { at, probePerSecond: r.perSecond };
}

/**
 * Creates `count` schedules through the API (setup) and checks they were all created before
 * `mustEndBy` − 500 ms: creation overlapping the measured window would spoil it.
 */
export async function createAhead(
  ctx: BenchContext,
  service: Service,
  count: number,
  body: (i: number) => unknown,
  mustEndBy: number,
): Promise<{ perSecond: number; ms: number }> {
  const r = await createMany(schedulesTarget(service), count, body, {
    concurrency: ctx.sizes.createConcurrency,
    timeoutMs: Math.max(1_000, mustEndBy - Date.now()),
  });
  const slack = mustEndBy - Date.now();
  if (slack < 500) throw new Error(`setup overran: creating ${count} schedules ended ${-slack} ms before their instant`);
  ctx.log(`  created ${count.toLocaleString('en')} schedules ahead at ${Math.round(r.perSecond)}/s; ${(slack / 1000).toFixed(1)} s to spare`);
  return { perSecond: r.perSecond, ms: r.ms };
}
