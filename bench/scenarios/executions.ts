/**
 * Executions across jobs (docs/benchmarks.md): a page of `GET /executions` must cost the same with
 * 100 executions as with 10,000,000. Times pages over HTTP, one request at a time on a keep-alive
 * connection, with {@link EXECUTIONS_SMALL} and then `sizes.executionsLarge` executions in the
 * store (default 10,000,000; `--executions-large <n>`, or the environment variable
 * `PUNCTUAL_BENCH_EXECUTIONS`, for a quicker run): no filter, a status, a job, a time window, a
 * status in a time window, and a page in the middle (a cursor).
 *
 * Both sizes are measured in the same `punctual serve` process (as paging.ts does): the
 * executions are written straight into the store while the service idles (stores/store.ts,
 * `EXECUTION_SEED`: one INSERT … SELECT over a generated series per chunk), then the tables are
 * analysed. Each case's window and cursor sit in the middle of the seeded instants, so every page
 * is full at both sizes.
 */
import { Pool } from 'undici';
import { encodeCursor } from '../../src/store/rules/paging.js';
import type { BenchContext } from '../context.js';
import { summarize, type Summary } from '../stats.js';
import { EXECUTION_SEED } from '../stores/store.js';
import { withService } from './common.js';

/** Executions in the store for the first measurement. */
export const EXECUTIONS_SMALL = 100;

/** Timed requests per case and size (after {@link WARMUP} untimed ones). */
const REQUESTS = 300;
const WARMUP = 30;
/** Executions per page in every case (the small store fills every case's page). */
const LIMIT = 10;

/** One measured case: its query and its page times (ms). */
export interface ExecutionsCase {
  label: string;
  query: string;
  /** Executions in the answer. */
  size: number;
  latency: Summary;
}

/** The cases at one size of the store. */
export interface ExecutionsFigures {
  executions: number;
  cases: ExecutionsCase[];
}

export interface ExecutionsResult {
  small: ExecutionsFigures;
  large: ExecutionsFigures;
  /** ms taken to write the large store's extra executions. */
  extraSeedMs: number;
  requests: number;
}

/** The cases' labels and queries at a size of `n` executions (windows and cursors in the middle of the seeded instants). */
export function executionCases(n: number): Array<{ label: string; query: string }> {
  const at = (k: number) => EXECUTION_SEED.firstAt + Math.floor(k) * EXECUTION_SEED.stepMs;
  const iso = (k: number) => new Date(at(k)).toISOString();
  const window = `from=${iso(n / 4)}&to=${iso((3 * n) / 4)}`;
  const middle = encodeURIComponent(encodeCursor({ at: at(n / 2), id: 'bench-e-' }));
  return [
    { label: 'no filter', query: '' },
    { label: 'a page in the middle (cursor)', query: `cursor=${middle}` },
    { label: 'status=Failed', query: 'status=Failed' },
    { label: 'status=Failed&status=Succeeded', query: 'status=Failed&status=Succeeded' },
    { label: 'jobType + jobId', query: `jobType=cron&jobId=${EXECUTION_SEED.jobIds[0]}` },
    { label: 'from/to', query: window },
    { label: 'status=Failed + from/to', query: `status=Failed&${window}` },
  ];
}

export async function executions(ctx: BenchContext): Promise<ExecutionsResult> {
  const large = Number(process.env.PUNCTUAL_BENCH_EXECUTIONS ?? ctx.sizes.executionsLarge);
  if (!Number.isInteger(large) || large <= EXECUTIONS_SMALL) throw new Error(`executions: the large size must be a whole number above ${EXECUTIONS_SMALL}`);
  return withService(ctx, { seedPending: 0 }, async (service, db) => {
    await db.seedExecutions(EXECUTIONS_SMALL, { offset: 0 });
    const pool = new Pool(service.url, { connections: 1, pipelining: 1 });
    try {
      const get = async (path: string) => {
        const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${service.token}` } });
        const body = (await res.body.json()) as { size: number };
        if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${JSON.stringify(body)}`);
        return body;
      };
      const measure = async (n: number): Promise<ExecutionsFigures> => {
        await ctx.settle(`executions with ${n.toLocaleString('en')} executions`, [service.pid]);
        const cases: ExecutionsCase[] = [];
        for (const c of executionCases(n)) {
          const path = `/executions?limit=${LIMIT}${c.query ? `&${c.query}` : ''}`;
          let last = await get(path);
          for (let i = 0; i < WARMUP; i++) last = await get(path);
          const times: number[] = [];
          for (let i = 0; i < REQUESTS; i++) {
            const t0 = performance.now();
            last = await get(path);
            times.push(performance.now() - t0);
          }
          if (last.size !== LIMIT) throw new Error(`executions: ${c.label} gave ${last.size} executions, not a full page`);
          cases.push({ label: c.label, query: c.query, size: last.size, latency: summarize(times) });
        }
        return { executions: n, cases };
      };
      ctx.log(`executions: ${EXECUTIONS_SMALL} executions`);
      const small = await measure(EXECUTIONS_SMALL);
      ctx.log(`executions: writing ${(large - EXECUTIONS_SMALL).toLocaleString('en')} more executions into the store (service idle)`);
      const extraSeedMs = await db.seedExecutions(large - EXECUTIONS_SMALL, { offset: EXECUTIONS_SMALL });
      ctx.log(`  written in ${(extraSeedMs / 1000).toFixed(1)} s; executions: ${large.toLocaleString('en')} executions`);
      return { small, large: await measure(large), extraSeedMs, requests: REQUESTS };
    } finally {
      await pool.close();
    }
  });
}

/** The report's rows: each case's p50 / p99 at both sizes, and their ratio (goal: ≤ ×1.5 at p50). */
export function executionsRows(r: ExecutionsResult): Array<{ scenario: string; figure: string; value: string; goal: string; met: string }> {
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  return r.small.cases.map((small, k) => {
    const large = r.large.cases[k]!;
    const ratio = large.latency.p50 / small.latency.p50;
    return {
      scenario: 'executions',
      figure: `GET /executions ${small.label}, p50 / p99: ${r.small.executions.toLocaleString('en')} vs ${r.large.executions.toLocaleString('en')} executions`,
      value: `${ms(small.latency.p50)} / ${ms(small.latency.p99)} vs ${ms(large.latency.p50)} / ${ms(large.latency.p99)} (×${ratio.toFixed(2)})`,
      goal: '≤ ×1.5',
      met: ratio <= 1.5 ? 'yes' : 'NO',
    };
  });
}
