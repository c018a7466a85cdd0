/**
 * Paging (docs/benchmarks.md): paging and filters must work on 100,000 jobs with the same page
 * time as on 100. Times `GET /schedules` pages over HTTP, one request at a time on a keep-alive
 * connection, with 100 and then 100,000 schedules ({@link PAGING_SIZES}) in the store:
 * the first page, a page in the middle (reached by following cursors), a status, a tag, a name
 * that many schedules contain, all three together, and a name that none contains (the worst case:
 * the page looks at PAGE_SCAN_MAX rows and answers empty with a cursor).
 *
 * Both sizes are measured in the same `punctual serve` process (as scale.ts does): the schedules
 * beyond the first 100 are written straight into the store while the service idles (setup;
 * stores/*.ts `seedPending`: `seed-<i>`, tag `bench-seed`, Pending). So only the store changes
 * between the two sets of figures. On PostgreSQL the tables are analysed after each seeding, as
 * autovacuum would soon do (the planner walks the list indexes once it knows the tables' sizes;
 * src/store/postgres/migrations/index.ts, version 2).
 */
import pg from 'pg';
import { Pool } from 'undici';
import type { BenchContext } from '../context.js';
import { summarize, type Summary } from '../stats.js';
import type { BenchDatabase } from '../stores/store.js';
import { FAR_FUTURE, withService } from './common.js';

/** Schedules in the store for the two measurements. */
export const PAGING_SIZES = { small: 100, large: 100_000 } as const;

/** Timed requests per case and size (after {@link WARMUP} untimed ones). */
const REQUESTS = 300;
const WARMUP = 30;
/** Jobs per page in every case. */
const LIMIT = 100;

/** One measured case: a query of GET /schedules and its page times (ms). */
export interface PagingCase {
  label: string;
  /** The query string, with `<cursor>` for a cursor taken from the list itself. */
  query: string;
  /** Schedules in the answer (the same for every request of a case). */
  size: number;
  /** Whether the answer had a nextCursor. */
  more: boolean;
  latency: Summary;
}

/** The cases at one size of the store. */
export interface PagingFigures {
  jobs: number;
  cases: PagingCase[];
}

export interface PagingResult {
  small: PagingFigures;
  large: PagingFigures;
  /** ms taken to write the extra schedules into the store while the service ran. */
  extraSeedMs: number;
  /** Requests timed per case and size. */
  requests: number;
}

/** The cases: label, query (without `limit`), and whether the store's indexes answer it alone. */
export const PAGING_CASES: readonly { label: string; query: string; indexed: boolean }[] = [
  { label: 'first page', query: '', indexed: true },
  { label: 'a page in the middle (cursor)', query: 'cursor=<middle>', indexed: true },
  { label: 'status=Pending', query: 'status=Pending', indexed: true },
  { label: 'tag=bench-seed', query: 'tag=bench-seed', indexed: true },
  { label: 'name=seed-1 (~11% match)', query: 'name=seed-1', indexed: false },
  { label: 'status + tag + name=seed-1', query: 'status=Pending&tag=bench-seed&name=seed-1', indexed: false },
  { label: 'name matching none (worst case)', query: 'name=no-such-name', indexed: false },
];

export async function paging(ctx: BenchContext): Promise<PagingResult> {
  const { small, large } = PAGING_SIZES;
  return withService(ctx, { seedPending: small }, async (service, db) => {
    await analyze(db);
    const pool = new Pool(service.url, { connections: 1, pipelining: 1 });
    try {
      const get = async (path: string) => {
        const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${service.token}` } });
        const body = (await res.body.json()) as { size: number; nextCursor: string | null };
        if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${JSON.stringify(body)}`);
        return body;
      };
      const measure = async (jobs: number): Promise<PagingFigures> => {
        // The cursor after half of the list, reached by following cursors as a client does.
        let middle: string | null = null;
        for (let seen = 0; seen < jobs / 2; ) {
          const step = Math.min(1_000, jobs / 2 - seen);
          const page = await get(`/schedules?limit=${step}${middle ? `&cursor=${encodeURIComponent(middle)}` : ''}`);
          seen += page.size;
          middle = page.nextCursor;
          if (middle === null) throw new Error('paging: the list ended before its middle');
        }
        await ctx.settle(`paging with ${jobs.toLocaleString('en')} schedules`, [service.pid]);
        const cases: PagingCase[] = [];
        for (const c of PAGING_CASES) {
          const path = `/schedules?limit=${LIMIT}${c.query ? `&${c.query.replace('<middle>', encodeURIComponent(middle!))}` : ''}`;
          let last = await get(path);
          for (let i = 0; i < WARMUP; i++) last = await get(path);
          const times: number[] = [];
          for (let i = 0; i < REQUESTS; i++) {
            const t0 = performance.now();
            last = await get(path);
            times.push(performance.now() - t0);
          }
          cases.push({ label: c.label, query: c.query, size: last.size, more: last.nextCursor !== null, latency: summarize(times) });
        }
        return { jobs, cases };
      };

      ctx.log(`paging: ${small.toLocaleString('en')} schedules`);
      const smallFigures = await measure(small);
      ctx.log(`paging: writing ${(large - small).toLocaleString('en')} more schedules into the store (service running, idle)`);
      const extraSeedMs = await db.seedPending(large - small, { firstAt: FAR_FUTURE, stepMs: 1_000, endpoint: `${ctx.receiver.url}/never` });
      await analyze(db);
      ctx.log(`  written in ${(extraSeedMs / 1000).toFixed(1)} s; paging: ${large.toLocaleString('en')} schedules`);
      const largeFigures = await measure(large);
      return { small: smallFigures, large: largeFigures, extraSeedMs, requests: REQUESTS };
    } finally {
      await pool.close();
    }
  });
}

/** PostgreSQL: statistics of the list tables, as autovacuum would gather them (see the module comment). */
async function analyze(db: BenchDatabase): Promise<void> {
  if (!/^postgres(ql)?:/.test(db.databaseUrl)) return;
  const client = new pg.Client({ connectionString: db.databaseUrl });
  await client.connect();
  try {
    await client.query('ANALYZE schedules, schedule_tags, cron_jobs');
  } finally {
    await client.end();
  }
}
