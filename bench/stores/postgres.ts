/**
 * PostgreSQL for the bench (`--store postgres`): a fresh database per scenario on a
 * server (`--database-url`, default {@link DEFAULT_SERVER_URL}: the local server, trust auth),
 * named `punctual_bench_<pid>_<n>`, migrated by the service's own `punctual migrate`, dropped
 * after the scenario (`DROP DATABASE … WITH (FORCE)`). Databases left behind by a bench that was
 * killed (its pid no longer runs on this machine) are dropped when the next one starts.
 *
 * Seeding (the PostgreSQL counterpart of sqlite.ts): from a connection of its own, multi-row
 * INSERTs of 50,000 rows each, one statement and one transaction per chunk — the rows' ids
 * (uuid v7, as the service makes them) travel as one `text[]` parameter and the other columns are
 * computed by the server from the row's ordinality (`unnest … WITH ORDINALITY`), so a chunk is a
 * single round trip (the schema's row triggers, e.g. `schedule_tags`, run as for any insert).
 * `synchronous_commit = off` for that session only (the seed is setup, its durability
 * irrelevant; the server's setting is untouched). Then `VACUUM (ANALYZE)` of every table and
 * `CHECKPOINT`, so that the planner knows the new sizes (PostgreSQL's documentation advises
 * ANALYZE after a bulk load; autovacuum would do it later, and is off on the local server) and
 * no checkpoint forced by the seed's WAL runs during the measurement that follows (sqlite.ts
 * ends with `wal_checkpoint(TRUNCATE)` for the same reason). Only the columns the seeding needs
 * are named; a NOT NULL column without a default added to `schedules`
 * (src/store/postgres/migrations/index.ts) makes the seeding fail with PostgreSQL's message.
 *
 * Nothing here changes the server's settings; {@link postgresStore}.describe records them.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { punctual, type Runner } from '../service.js';
import { EXECUTION_SEED, type BenchDatabase, type BenchStore, type BenchStoreOptions } from './store.js';

/** The local server with trust authentication (the test and CI set-up's server). */
export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Rows per INSERT statement (and transaction) when seeding. */
const SEED_CHUNK = 50_000;

/** Names of the bench's databases: `punctual_bench_<pid>_<n>`. */
const DB_NAME = /^punctual_bench_(\d+)_(\d+)$/;

/** Settings recorded in the results (SHOW <name>); none is changed by the bench. */
const SETTINGS = [
  'shared_buffers',
  'synchronous_commit',
  'fsync',
  'full_page_writes',
  'wal_level',
  'max_wal_size',
  'checkpoint_timeout',
  'work_mem',
  'max_connections',
  'autovacuum',
] as const;

let created = 0;

/** `url` with its path naming `database`. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs `fn` with a connected client to `url`; always ends the connection. */
async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Whether a process with this id runs on this machine. */
function alive(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

/**
 * Drops `punctual_bench_<pid>_<n>` databases whose pid no longer runs here (a bench stopped by
 * Ctrl-C or a kill leaves its database behind). Only on a loopback server: another machine's pids
 * mean nothing here.
 */
async function dropAbandoned(server: string): Promise<void> {
  const host = new URL(server).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') return;
  await withClient(server, async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'punctual\\_bench\\_%'`);
    for (const { datname } of rows) {
      const m = DB_NAME.exec(datname);
      if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
      await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  });
}

/**
 * Median and p99 of `n` single-row INSERT commits (ms) in a scratch table of `url`'s database:
 * what one durable commit costs on this server (WAL flush with the server's settings).
 */
async function commitLatency(url: string, n = 300): Promise<{ p50: number; p99: number }> {
  return withClient(url, async (c) => {
    await c.query('CREATE TABLE bench_commit_probe (id bigint PRIMARY KEY, at bigint NOT NULL)');
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await c.query('INSERT INTO bench_commit_probe (id, at) VALUES ($1, $2)', [i, Date.now()]);
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    return { p50: ms[Math.ceil(n * 0.5) - 1]!, p99: ms[Math.ceil(n * 0.99) - 1]! };
  });
}

export const postgresStore: BenchStore = {
  name: 'postgres',
  shared: true,
  // The server's processes that work for this bench: the backends of its databases (their
  // titles name the database: `postgres: 15/main: postgres punctual_bench_<pid>_<n> 127.0.0.1(…)`)
  // and the shared background processes (checkpointer, WAL writer, …, whose titles name no client).
  // Backends of other databases (e.g. tests running meanwhile) stay among `others`.
  serverProcesses: {
    name: 'postgres',
    comm: 'postgres',
    match: (cmdline) => cmdline.includes(`punctual_bench_${process.pid}_`) || !/\(\d+\)|\[local\]|autovacuum worker/.test(cmdline),
  },

  /** Server version and {@link SETTINGS}, and a single-row commit's latency (in a scratch database). */
  async describe(opts: BenchStoreOptions) {
    const server = opts.serverUrl ?? DEFAULT_SERVER_URL;
    const info: Record<string, string | number> = {};
    await withClient(server, async (c) => {
      info.version = (await c.query<{ v: string }>('SELECT version() AS v')).rows[0]!.v;
      for (const name of SETTINGS) {
        const { rows } = await c.query<Record<string, string>>(`SHOW ${name}`);
        info[name] = Object.values(rows[0]!)[0]!;
      }
    });
    const probe = `punctual_bench_${process.pid}_0`;
    await withClient(server, (c) => c.query(`CREATE DATABASE "${probe}"`));
    try {
      const commit = await commitLatency(withDatabase(server, probe));
      info.commitP50Ms = Math.round(commit.p50 * 1000) / 1000;
      info.commitP99Ms = Math.round(commit.p99 * 1000) / 1000;
    } finally {
      await withClient(server, (c) => c.query(`DROP DATABASE IF EXISTS "${probe}" WITH (FORCE)`));
    }
    return info;
  },

  async create(runner: Runner, opts: BenchStoreOptions): Promise<BenchDatabase> {
    const server = opts.serverUrl ?? DEFAULT_SERVER_URL;
    await dropAbandoned(server);
    const name = `punctual_bench_${process.pid}_${++created}`;
    await withClient(server, (c) => c.query(`CREATE DATABASE "${name}"`));
    const databaseUrl = withDatabase(server, name);
    const dispose = () => withClient(server, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined);
    try {
      await punctual(runner, ['migrate'], databaseUrl);
    } catch (err) {
      await dispose();
      throw err;
    }
    return {
      databaseUrl,
      async seedPending(count, { firstAt, stepMs, endpoint }) {
        const t0 = performance.now();
        await withClient(databaseUrl, async (c) => {
          await c.query('SET synchronous_commit = off');
          const now = Date.now();
          for (let from = 0; from < count; from += SEED_CHUNK) {
            const n = Math.min(count, from + SEED_CHUNK) - from;
            const ids = Array.from({ length: n }, () => uuidv7());
            // i = $2 + ordinality − 1: the row's index in the whole seed.
            await c.query(
              `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at)
               SELECT t.id, 'seed-' || (t.n + $2::bigint - 1), $3::bigint + (t.n + $2::bigint - 1) * $4::bigint, 'Pending', $5,
                      ('{"seed":' || (t.n + $2::bigint - 1) || '}')::json, '["bench-seed"]'::json, $6::bigint
                 FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`,
              [ids, from, firstAt, stepMs, endpoint, now],
            );
          }
          // Every table (schedules and the tables its triggers fill, e.g. schedule_tags).
          await c.query('VACUUM (ANALYZE)');
          // Superuser or pg_checkpoint only; without the right the seed's WAL is checkpointed later.
          await c.query('CHECKPOINT').catch((err: { code?: string }) => {
            if (err.code !== '42501') throw err;
          });
        });
        return performance.now() - t0;
      },
      async seedExecutions(count, { offset }) {
        const t0 = performance.now();
        await withClient(databaseUrl, async (c) => {
          await c.query('SET synchronous_commit = off');
          // One statement: generate_series makes the rows in the server.
          await c.query(
            `INSERT INTO executions (${EXECUTION_SEED.columns})
             SELECT ${EXECUTION_SEED.seedSelect('g', Date.now())} FROM generate_series($1::bigint, $2::bigint) AS g`,
            [offset, offset + count - 1],
          );
          await c.query('VACUUM (ANALYZE) executions');
        });
        return performance.now() - t0;
      },
      // Exact at the instant of reading, unlike pg_stat_database (whose counters a backend may
      // hold back up to 10 s in PostgreSQL 15): the next transaction id to be assigned (only
      // transactions that write or lock rows take one: a claim that finds nothing does not) and
      // the WAL position. Both are server-wide: other databases' work meanwhile counts too.
      activity: () =>
        withClient(databaseUrl, async (c) => {
          const { rows } = await c.query<{ xids: string; wal_bytes: string }>(
            `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xids,
                    pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS wal_bytes`,
          );
          return { writeTransactions: Number(rows[0]!.xids), walBytes: Number(rows[0]!.wal_bytes) };
        }),
      sizeBytes: () =>
        withClient(databaseUrl, async (c) =>
          Number((await c.query<{ b: string }>('SELECT pg_database_size(current_database()) AS b')).rows[0]!.b),
        ),
      dispose,
    };
  },
};
