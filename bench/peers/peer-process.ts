/**
 * One peer library's worker, in its own process (forked by peers.ts with an IPC channel). Every
 * job carries `{ url, body }`; the job's work is what Punctual's dispatcher does for a call: a JSON
 * POST of `body` to `url` through an undici Agent made like src/dispatch/call/http-agent.ts (keep-alive
 * pool per origin, 10 s connect timeout), with a `user-agent`; any non-2xx answer fails the job.
 *
 * argv[2]: the library (graphile-worker | pg-boss | bullmq); argv[3]: a JSON {@link PeerWorkerConfig}.
 * Sends `{ type: 'ready' }` once the worker runs; on `{ type: 'stop' }` stops it gracefully and exits.
 */
import { Agent, request } from 'undici';
import type { PeerWorkerConfig } from './peers.js';

/** The payload of every peer job. */
export interface PeerJob {
  url: string;
  body: unknown;
}

const agent = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 10_000 } });

async function post(job: PeerJob): Promise<void> {
  const res = await request(job.url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', 'user-agent': 'peers-bench' },
    body: JSON.stringify(job.body),
  });
  await res.body.text();
  if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`${job.url} answered ${res.statusCode}`);
}

/** Starts the worker; resolves to its graceful stop. */
async function startGraphile(c: PeerWorkerConfig): Promise<() => Promise<void>> {
  const { run } = await import('graphile-worker');
  const s = c.settings;
  const runner = await run({
    connectionString: c.databaseUrl,
    schema: c.schema,
    concurrency: s.concurrentJobs as number,
    maxPoolSize: s.maxPoolSize as number,
    pollInterval: s.pollInterval as number,
    noHandleSignals: true,
    taskList: { post: async (payload) => post(payload as PeerJob) },
    preset: {
      worker: {
        localQueue: { size: s.localQueueSize as number },
        completeJobBatchDelay: s.completeJobBatchDelay as number,
        failJobBatchDelay: s.failJobBatchDelay as number,
      },
    },
    logger: quietGraphileLogger(await import('graphile-worker')),
  });
  return () => runner.stop();
}

/** graphile-worker logs every job at info level; keep warnings and errors only. */
function quietGraphileLogger(gw: typeof import('graphile-worker')) {
  return new gw.Logger(() => (level: string, message: string) => {
    if (level === 'error' || level === 'warning') process.stderr.write(`[graphile-worker ${level}] ${message}\n`);
  });
}

async function startPgBoss(c: PeerWorkerConfig): Promise<() => Promise<void>> {
  const { default: PgBoss } = await import('pg-boss');
  const s = c.settings;
  const boss = new PgBoss({ connectionString: c.databaseUrl, schema: c.schema, max: s.poolSize as number, schedule: false });
  boss.on('error', (err) => process.stderr.write(`[pg-boss] ${String(err)}\n`));
  await boss.start();
  for (let k = 0; k < (s.workers as number); k++) {
    await boss.work<PeerJob>(c.queue, { batchSize: s.batchSize as number, pollingIntervalSeconds: s.pollingIntervalSeconds as number }, async (jobs) => {
      // A batch's jobs run together; one failure fails the batch (pg-boss completes or fails it whole).
      await Promise.all(jobs.map((j) => post(j.data)));
    });
  }
  return () => boss.stop({ graceful: true, wait: true, timeout: 10_000 });
}

async function startBullmq(c: PeerWorkerConfig): Promise<() => Promise<void>> {
  const { Worker } = await import('bullmq');
  const s = c.settings;
  const worker = new Worker<PeerJob>(c.queue, async (job) => post(job.data), {
    connection: { host: c.redis.host, port: c.redis.port, maxRetriesPerRequest: null },
    concurrency: s.concurrency as number,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 1_000 },
  });
  worker.on('error', (err) => process.stderr.write(`[bullmq] ${String(err)}\n`));
  await worker.waitUntilReady();
  return () => worker.close();
}

const STARTERS: Record<string, (c: PeerWorkerConfig) => Promise<() => Promise<void>>> = {
  'graphile-worker': startGraphile,
  'pg-boss': startPgBoss,
  bullmq: startBullmq,
};

async function main(): Promise<void> {
  const start = STARTERS[process.argv[2] ?? ''];
  if (!start) throw new Error(`unknown peer ${process.argv[2]}`);
  const stop = await start(JSON.parse(process.argv[3] ?? '{}') as PeerWorkerConfig);
  process.on('message', (m: { type: string }) => {
    if (m.type !== 'stop') return;
    void stop()
      .catch((err: unknown) => process.stderr.write(`peer stop: ${String(err)}\n`))
      .finally(() => agent.close().finally(() => process.exit(0)));
  });
  process.send!({ type: 'ready' });
}

process.on('disconnect', () => process.exit(0));
main().catch((err: unknown) => {
  process.stderr.write(`peer worker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
