/**
 * The store's share of the burst on PostgreSQL, measured without HTTP (the companion of
 * burst.bench.ts for SQLite): `count` schedules due at once are claimed in batches (as the
 * dispatcher does) by 1 claimer, then by 3 concurrent claimers (three stores, three pools, as
 * three nodes would), and their outcomes recorded in batches. Clock 'database' (production).
 * Prints µs per claimed item and per recorded outcome (wall time / items: with 3 claimers, the
 * cluster's throughput).
 *
 * Not a test: `PUNCTUAL_TEST_DATABASE_URL=postgres://… npx tsx test/store/burst-postgres.bench.ts [count] [batch] [rounds]`,
 * rounds being the claimers of each round (default `1,3`).
 * Runs in a schema of its own, dropped at the end.
 */
import type { AttemptOutcome, ClaimedExecution } from '../../src/domain/types.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { createTestSchema, pgTestUrl } from '../support/pg.js';

const base = pgTestUrl() ?? 'postgres://postgres@127.0.0.1:5432/test';
const count = Number(process.argv[2] ?? 100_000);
const batch = Number(process.argv[3] ?? 256);
/** Claimers of each round, in order (default `1,3`). */
const rounds = (process.argv[4] ?? '1,3').split(',').map(Number);

const us = (ms: number, n: number) => ((ms * 1000) / Math.max(1, n)).toFixed(1);

async function seed(store: PostgresStore, dueAt: number): Promise<void> {
  await store.sql.rows('TRUNCATE execution_attempts, executions, schedules');
  await store.sql.rows(
    `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at)
     SELECT gen_random_uuid()::text, 'burst', $1::bigint, 'Pending', 'http://127.0.0.1:1/hook', '{"n":1}', '[]', $1::bigint - 60000
       FROM generate_series(1, $2::int)`,
    [dueAt, count],
  );
  await store.sql.rows('VACUUM ANALYZE schedules');
}

/** Claims until nothing is due; returns what was claimed. */
async function drain(store: PostgresStore, nodeId: string): Promise<ClaimedExecution[]> {
  const claimed: ClaimedExecution[] = [];
  for (;;) {
    const got = (await store.claimDue({ now: 0, limit: batch, nodeId, leaseMs: 60_000, misfireThresholdMs: 60_000 })).claimed;
    if (got.length === 0) return claimed;
    for (const c of got) claimed.push(c);
  }
}

function outcomeOf(c: ClaimedExecution, status: AttemptOutcome['status'], at: number): AttemptOutcome {
  return {
    executionId: c.executionId,
    attempt: c.attempt,
    status,
    nextAttemptAt: status === 'Retrying' ? at + 3_600_000 : null,
    startedAt: at,
    durationMs: 1.25,
    statusCode: status === 'Succeeded' ? 200 : 503,
    error: status === 'Succeeded' ? null : 'HTTP 503',
    responseBody: 'ok',
  };
}

/** Records the outcomes of `claimed` in batches: the first tenth Retrying, the rest Succeeded. */
async function finishAll(store: PostgresStore, nodeId: string, claimed: ClaimedExecution[], at: number): Promise<void> {
  const tenth = Math.floor(claimed.length / 10);
  for (let i = 0; i < claimed.length; i += batch) {
    const outcomes = claimed.slice(i, i + batch).map((c, j) => outcomeOf(c, i + j < tenth ? 'Retrying' : 'Succeeded', at));
    await store.executionsFinish({ nodeId, outcomes });
  }
}

async function round(stores: PostgresStore[]): Promise<void> {
  const [first] = stores as [PostgresStore];
  const dbNow = (await first.now())!;
  await seed(first, dbNow - 1);
  let t = performance.now();
  const claims = await Promise.all(stores.map((s, i) => drain(s, `node-${i}`)));
  const claimMs = performance.now() - t;
  const all = claims.flat();
  const unique = new Set(all.map((c) => c.jobId)).size;
  if (all.length !== count || unique !== count) throw new Error(`claimed ${all.length} (${unique} distinct) of ${count}`);
  t = performance.now();
  await Promise.all(stores.map((s, i) => finishAll(s, `node-${i}`, claims[i]!, dbNow)));
  const finishMs = performance.now() - t;
  const [check] = await first.sql.rows<{ done: number; retrying: number }>(
    `SELECT count(*) FILTER (WHERE status = 'Succeeded') AS done, count(*) FILTER (WHERE status = 'Retrying') AS retrying FROM executions`,
  );
  const split = claims.map((c) => c.length).join(' + ');
  console.log(
    `${stores.length} claimer(s): claim ${all.length} items (${split}) ${claimMs.toFixed(0)} ms  ${us(claimMs, all.length)} µs/item;  ` +
      `finish ${all.length} outcomes ${finishMs.toFixed(0)} ms  ${us(finishMs, all.length)} µs/outcome  ` +
      `(${check!.done} Succeeded, ${check!.retrying} Retrying)`,
  );
}

const schema = await createTestSchema(base);
const stores = Array.from({ length: Math.max(...rounds) }, () => 0).map(() => PostgresStore.open(schema.url, { clock: 'database' }));
try {
  await stores[0]!.migrate();
  const [settings] = await stores[0]!.sql.rows<{ v: string; sc: string; fsync: string }>(
    `SELECT version() AS v, current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fsync`,
  );
  let t = performance.now();
  for (let i = 0; i < 1000; i++) await stores[0]!.ping();
  const rtt = ((performance.now() - t) * 1000) / 1000;
  t = performance.now();
  for (let i = 0; i < 1000; i++) await stores[0]!.nextDueAt();
  const nextDue = ((performance.now() - t) * 1000) / 1000;
  console.log(
    `rows ${count}, batch ${batch}; ${settings!.v.split(',')[0]}, synchronous_commit=${settings!.sc}, fsync=${settings!.fsync}; ` +
      `round trip (SELECT 1) ${rtt.toFixed(0)} µs, nextDueAt (empty) ${nextDue.toFixed(0)} µs`,
  );
  for (const n of rounds) await round(stores.slice(0, n));
} finally {
  await Promise.all(stores.map((s) => s.close()));
  await schema.drop();
}
