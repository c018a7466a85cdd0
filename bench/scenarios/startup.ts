/**
 * Startup (docs/benchmarks.md, "Start time"): how long from spawning the service to the first 200
 * of GET /healthz, on an empty store and on one holding `startupJobs` (1,000,000) Pending
 * schedules (written straight into the store, stores/*.ts `seedPending`; the store is migrated
 * first by `punctual migrate`, so a start applies no migration). Two ways of starting:
 *
 *  - `punctual serve` (`node dist/cli.js serve`, or the runner's equivalent);
 *  - `npm start` (scripts/start.mjs) on a built checkout: a first, unmeasured `npm start` rebuilds
 *    dist/ if a source is newer, so the measured ones are second starts. Only with the runner
 *    `dist` on ./dist (what `npm start` runs); skipped otherwise.
 *
 * Each figure is the median of `startupRuns` starts, one after the other, each stopped (SIGTERM,
 * awaited) before the next. GET /healthz is polled every {@link POLL_MS} ms, so a figure is late
 * by at most that. One node, whatever `--nodes` says.
 */
import type { BenchContext } from '../context.js';
import { DIST, startService } from '../service.js';
import { summarize, type Summary } from '../stats.js';
import type { BenchDatabase } from '../stores/store.js';
import { FAR_FUTURE } from './common.js';

/** ms between two GET /healthz while a start is timed. */
const POLL_MS = 5;

/** The starts of one way on one store. */
export interface StartupCase {
  label: string;
  /** Jobs in the store. */
  jobs: number;
  /** `serve` (the CLI) or `npm start`. */
  how: 'serve' | 'npm start';
  /** ms from spawn to the first 200 of GET /healthz, each start in order. */
  runs: number[];
  summary: Summary;
}

export interface StartupResult {
  cases: StartupCase[];
  /** ms taken to write the jobs into the large store. */
  seedMs: number;
}

/** Starts and stops the service `runs` times on `db`; the ms from spawn to ready of each. */
async function timeStarts(ctx: BenchContext, db: BenchDatabase, runs: number, npmStart: boolean): Promise<number[]> {
  const times: number[] = [];
  for (let k = 0; k < runs; k++) {
    await ctx.settle(`start ${k + 1}`);
    const service = await startService({
      runner: ctx.runner,
      databaseUrl: db.databaseUrl,
      nodeArgs: ctx.serviceNodeArgs,
      env: ctx.serviceEnv,
      npmStart,
      pollMs: POLL_MS,
    });
    times.push(service.readyMs);
    const { code, signal } = await service.stop();
    // npm itself ends by the SIGTERM it forwarded to the script (which stops the server).
    if (code !== 0 && !(npmStart && signal === 'SIGTERM')) throw new Error(`the service exited with code ${code} signal ${signal}:\n${service.logLines.join('\n')}`);
  }
  return times;
}

/** The cases of one store: `serve`, and `npm start` when the runner is ./dist. */
async function measureStore(ctx: BenchContext, db: BenchDatabase, jobs: number, npmStart: boolean): Promise<StartupCase[]> {
  const runs = ctx.sizes.startupRuns;
  const label = jobs === 0 ? 'empty store' : `${jobs.toLocaleString('en')} jobs`;
  const cases: StartupCase[] = [];
  // One unmeasured start: the store's files in the page cache, as at a restart.
  await timeStarts(ctx, db, 1, false);
  const serve = await timeStarts(ctx, db, runs, false);
  cases.push({ label, jobs, how: 'serve', runs: serve, summary: summarize(serve) });
  ctx.log(`  ${label}, serve: median ${summarize(serve).p50.toFixed(0)} ms (${serve.map((t) => t.toFixed(0)).join(', ')})`);
  if (npmStart) {
    await timeStarts(ctx, db, 1, true); // rebuilds dist/ if a source is newer
    const npm = await timeStarts(ctx, db, runs, true);
    cases.push({ label, jobs, how: 'npm start', runs: npm, summary: summarize(npm) });
    ctx.log(`  ${label}, npm start: median ${summarize(npm).p50.toFixed(0)} ms (${npm.map((t) => t.toFixed(0)).join(', ')})`);
  }
  return cases;
}

export async function startup(ctx: BenchContext): Promise<StartupResult> {
  const npmStart = ctx.runner.kind === 'dist' && ctx.runner.dir === DIST && ctx.serviceNodeArgs.length === 0;
  if (!npmStart) ctx.log('startup: npm start skipped (it runs ./dist, without node flags)');
  const cases: StartupCase[] = [];
  let seedMs = 0;
  for (const jobs of [0, ctx.sizes.startupJobs]) {
    const db = await ctx.store.create(ctx.runner, ctx.storeOptions);
    try {
      if (jobs > 0) {
        ctx.log(`startup: seeding ${jobs.toLocaleString('en')} far-future schedules into the ${ctx.store.name} store`);
        seedMs = await db.seedPending(jobs, { firstAt: FAR_FUTURE, stepMs: 1_000, endpoint: `${ctx.receiver.url}/never` });
        ctx.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s`);
      }
      cases.push(...(await measureStore(ctx, db, jobs, npmStart)));
    } finally {
      await db.dispose();
    }
  }
  return { cases, seedMs };
}
