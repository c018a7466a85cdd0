/**
 * The job-queue libraries `npm run bench -- --peers` runs beside Punctual (docs/benchmarks.md,
 * "Peers, side by side"): graphile-worker and pg-boss on PostgreSQL, BullMQ on Redis. Each has
 * the settings its own documentation gives for throughput, printed with the figures; the bench
 * side here prepares a fresh schema (PostgreSQL) or queue (Redis), creates jobs through the
 * library's bulk API, and removes everything after. The worker runs in peer-process.ts.
 */
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import type { PeerJob } from './peer-process.js';

/** PostgreSQL of the peers (the tests' server and database; one fresh schema per run). */
export const PEERS_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** Redis of BullMQ. */
export const PEERS_REDIS = { host: '127.0.0.1', port: 6379 };

/** What peer-process.ts gets (argv[3], JSON). */
export interface PeerWorkerConfig {
  databaseUrl: string;
  schema: string;
  queue: string;
  redis: { host: string; port: number };
  settings: Record<string, number>;
}

/** A job to create: POST `body` to `url` at epoch ms `at`. */
export interface PeerJobSpec extends PeerJob {
  at: number;
}

/** One prepared schema or queue. */
export interface PeerSession {
  config: PeerWorkerConfig;
  /** Creates `jobs` with the library's bulk call, {@link CREATE_CHUNK} per call, one call at a time. */
  create(jobs: PeerJobSpec[]): Promise<void>;
  /** Drops the schema (PostgreSQL) or obliterates the queue (Redis). */
  close(): Promise<void>;
}

export interface Peer {
  name: string;
  /** "PostgreSQL" or "Redis 7.0.15, noeviction, …". */
  store(): string;
  /** The library's settings (printed in the table). */
  settings: Record<string, number>;
  /** Printed beside the settings: how jobs are created. */
  creates: string;
  open(): Promise<PeerSession>;
}

/** Jobs per bulk call when creating. */
export const CREATE_CHUNK = 1_000;

let serial = 0;
const uniqueName = (prefix: string) => `${prefix}_${process.pid}_${++serial}`;

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PEERS_DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function inChunks(jobs: PeerJobSpec[], fn: (chunk: PeerJobSpec[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < jobs.length; i += CREATE_CHUNK) await fn(jobs.slice(i, i + CREATE_CHUNK));
}

/**
 * graphile-worker: the configuration of its "Performance" page (a local queue, batched
 * completion, a pool of 25) with `concurrentJobs` raised to the bench's cap of calls in flight
 * (512; its jobs here wait on HTTP, not on the CPU) and the local queue as large (its own warning
 * asks for a local queue at least as large as the concurrency), and `pollInterval` — the only way
 * it sees a job whose `runAt` comes (no notification fires at that instant) — lowered from
 * 2,000 ms to 20 ms, as its users tune it for low latency. It warns that a pool smaller than the concurrency may not be optimal; the
 * concurrency + 2 it suggests would exceed the server's max_connections (100).
 */
const graphileWorker: Peer = {
  name: 'graphile-worker',
  store: () => 'PostgreSQL',
  settings: { concurrentJobs: 512, maxPoolSize: 25, localQueueSize: 512, completeJobBatchDelay: 0, failJobBatchDelay: 0, pollInterval: 20 },
  creates: `addJobs with runAt, ${CREATE_CHUNK} per call`,
  async open() {
    const { makeWorkerUtils } = await import('graphile-worker');
    const schema = uniqueName('peers_graphile');
    const utils = await makeWorkerUtils({ connectionString: PEERS_DATABASE_URL, schema });
    await utils.migrate();
    return {
      config: { databaseUrl: PEERS_DATABASE_URL, schema, queue: 'post', redis: PEERS_REDIS, settings: graphileWorker.settings },
      create: (jobs) => inChunks(jobs, (c) => utils.addJobs(c.map((j) => ({ identifier: 'post', payload: { url: j.url, body: j.body }, runAt: new Date(j.at) })))),
      async close() {
        await utils.release();
        await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      },
    };
  },
};

/**
 * pg-boss 10: `work()` fetches `batchSize` jobs per poll and polls every `pollingIntervalSeconds`
 * (0.5, its minimum; after a fetch and its jobs, a worker waits out the rest of that interval,
 * so 4 × 128 jobs per 0.5 s bounds its rate near 1,000/s on any machine). It has no `teamSize`
 * since version 10; its documentation says to call `work()` several times for concurrency: 4
 * workers × 128 jobs = the cap of 512 calls in flight.
 */
const pgBoss: Peer = {
  name: 'pg-boss',
  store: () => 'PostgreSQL',
  settings: { workers: 4, batchSize: 128, pollingIntervalSeconds: 0.5, poolSize: 10 },
  creates: `insert with startAfter, ${CREATE_CHUNK} per call`,
  async open() {
    const { default: PgBoss } = await import('pg-boss');
    const schema = uniqueName('peers_pgboss');
    const queue = 'post';
    const boss = new PgBoss({ connectionString: PEERS_DATABASE_URL, schema, supervise: false, schedule: false, max: 4 });
    boss.on('error', () => undefined);
    await boss.start();
    await boss.createQueue(queue);
    return {
      config: { databaseUrl: PEERS_DATABASE_URL, schema, queue, redis: PEERS_REDIS, settings: pgBoss.settings },
      create: (jobs) => inChunks(jobs, (c) => boss.insert(c.map((j) => ({ name: queue, data: { url: j.url, body: j.body }, startAfter: new Date(j.at) })))),
      async close() {
        await boss.stop({ graceful: false, wait: true });
        await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      },
    };
  },
};

/** Redis's version and the settings that matter to BullMQ (its documentation asks for noeviction). */
function describeRedis(): string {
  const cli = (...args: string[]) => execFileSync('redis-cli', ['-h', PEERS_REDIS.host, '-p', String(PEERS_REDIS.port), ...args], { encoding: 'utf8' });
  const version = /redis_version:(\S+)/.exec(cli('info', 'server'))?.[1] ?? '?';
  const get = (key: string) => cli('config', 'get', key).split('\n')[1]?.trim() ?? '?';
  return `Redis ${version}, maxmemory-policy ${get('maxmemory-policy')}, appendonly ${get('appendonly')}, save "${get('save')}"`;
}

/**
 * BullMQ: delayed jobs (`delay` = the instant − now, at creation) added with `addBulk`; one
 * Worker with `concurrency` 512 (the cap); completed jobs removed at once (`removeOnComplete`,
 * which its guide recommends for throughput); the connection with `maxRetriesPerRequest: null`,
 * which its Worker requires.
 */
const bullmq: Peer = {
  name: 'bullmq',
  store: describeRedis,
  settings: { concurrency: 512 },
  creates: `addBulk with delay, ${CREATE_CHUNK} per call`,
  async open() {
    const { Queue } = await import('bullmq');
    const name = uniqueName('peers');
    const queue = new Queue<PeerJob>(name, { connection: { ...PEERS_REDIS, maxRetriesPerRequest: null } });
    await queue.waitUntilReady();
    return {
      config: { databaseUrl: '', schema: '', queue: name, redis: PEERS_REDIS, settings: bullmq.settings },
      create: (jobs) =>
        inChunks(jobs, (c) => {
          const now = Date.now();
          return queue.addBulk(c.map((j) => ({ name: 'post', data: { url: j.url, body: j.body }, opts: { delay: Math.max(0, j.at - now), removeOnComplete: true } })));
        }),
      async close() {
        await queue.obliterate({ force: true });
        await queue.close();
      },
    };
  },
};

export const PEERS: Peer[] = [graphileWorker, pgBoss, bullmq];

/** Makes sure Redis answers; starts `redis-server --daemonize yes` if not. Returns what it did. */
export function ensureRedis(): string {
  const ping = () => {
    try {
      return execFileSync('redis-cli', ['-h', PEERS_REDIS.host, '-p', String(PEERS_REDIS.port), 'ping'], { encoding: 'utf8' }).trim() === 'PONG';
    } catch {
      return false;
    }
  };
  if (ping()) return 'Redis was running';
  execFileSync('redis-server', ['--daemonize', 'yes']);
  for (let k = 0; k < 50 && !ping(); k++) execFileSync('sleep', ['0.1']);
  if (!ping()) throw new Error('redis-server --daemonize yes: Redis still does not answer');
  return 'Redis was not running: started with redis-server --daemonize yes';
}
