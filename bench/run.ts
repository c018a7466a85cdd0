/**
 * `npm run bench` (docs/benchmarks.md). Starts `punctual serve` as a user would (its own process,
 * real HTTP, the embedded store; or PostgreSQL, with one node or several), a receiver in
 * another process, and runs the scenarios; prints a table and writes the figures as JSON to
 * bench/results/.
 *
 *   npm run bench                                   # every scenario, full sizes (several minutes)
 *   npm run bench -- --scenario burst               # one scenario
 *   npm run bench -- --scenario startup             # start times, empty and 1,000,000-job store
 *   npm run bench -- --scenario executions          # GET /executions, 100 vs 10,000,000 executions
 *   PUNCTUAL_BENCH_EXECUTIONS=100000 npm run bench -- --scenario executions   # the same, 100,000
 *   npm run bench -- --quick                        # small sizes: checks the bench, not the service
 *   npm run bench -- --burst-count 20000 --steady-seconds 10 --runner tsx
 *   npm run bench -- --store postgres --nodes 3     # three nodes on one PostgreSQL database
 *   npm run bench -- --peers                        # burst and steady: Punctual beside graphile-worker, pg-boss, BullMQ
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SIZES, QUICK_SIZES, type BenchContext, type Sizes } from './context.js';
import { machineInfo } from './machine.js';
import { PEER_SYSTEMS, peersTable, runPeers } from './peers/run-peers.js';
import { waitForQuiet } from './proc.js';
import { ReceiverProcess } from './receiver-client.js';
import { table, writeResults, type BenchResults } from './report.js';
import { burst } from './scenarios/burst.js';
import { keyed } from './scenarios/keyed.js';
import { executions } from './scenarios/executions.js';
import { ingest } from './scenarios/ingest.js';
import { paging } from './scenarios/paging.js';
import { scale } from './scenarios/scale.js';
import { startup } from './scenarios/startup.js';
import { steady } from './scenarios/steady.js';
import { build, describeRunner, distBuiltAt, ROOT, type Runner } from './service.js';
import { STORES } from './stores/index.js';
import { DEFAULT_SERVER_URL } from './stores/postgres.js';

const SCENARIOS = ['ingest', 'burst', 'keyed', 'steady', 'scale', 'paging', 'executions', 'startup'] as const;
type Scenario = (typeof SCENARIOS)[number];

/** Command-line name → key of {@link Sizes}. */
const SIZE_FLAGS: Record<string, keyof Sizes> = {
  'burst-count': 'burstCount',
  'keyed-count': 'keyedCount',
  'burst-concurrency': 'burstConcurrency',
  'create-concurrency': 'createConcurrency',
  'create-batch': 'createBatch',
  'create-batch-clients': 'createBatchClients',
  'steady-rate': 'steadyRate',
  'steady-seconds': 'steadySeconds',
  'steady-pending': 'steadyPending',
  'ingest-clients': 'ingestClients',
  'ingest-seconds': 'ingestSeconds',
  'ingest-warmup-seconds': 'ingestWarmupSeconds',
  'scale-pending': 'scalePending',
  'scale-seconds': 'scaleSeconds',
  'startup-runs': 'startupRuns',
  'startup-jobs': 'startupJobs',
  'executions-large': 'executionsLarge',
};

const USAGE = `usage: npm run bench -- [options]
  --scenario burst|keyed|steady|ingest|scale|paging|executions|startup|all   (default all; may be repeated)
  --store sqlite|postgres                    store under test (default sqlite); postgres: a fresh database
                                             per scenario on --database-url's server, dropped after
  --database-url <url>                       with --store postgres: the server (default
                                             ${DEFAULT_SERVER_URL})
  --nodes <n>                                punctual serve processes on each scenario's database, all
                                             --role all, requests spread over them (default 1; >1 needs postgres)
  --runner dist|tsx                          dist: npm run build + node dist/cli.js (default); tsx: src/cli.ts
  --skip-build                               with --runner dist: use dist/ as it is (no npm run build)
  --dist <dir>                               with --runner dist: run <dir>/cli.js, a saved build (implies --skip-build)
  --quiet-timeout <s>                        before each measurement, wait up to <s> s for other processes
                                             to use < 0.15 core (default 120; 0: do not wait)
  --quick                                    small sizes, to check the bench itself
  --peers                                    burst and steady only, one table: Punctual on SQLite and on
                                             PostgreSQL beside graphile-worker, pg-boss and BullMQ
                                             (docs/benchmarks.md, "Peers, side by side")
  --peer <name>                              with --peers: only these systems (repeatable):
                                             ${PEER_SYSTEMS.join(', ')}
  --out <file>                               JSON results (default bench/results/<time>.json)
  --service-node-args='<args>'               node flags of punctual serve, e.g. ='--cpu-prof --cpu-prof-dir=/tmp/prof'
  --service-env KEY=VALUE                    extra environment of punctual serve (repeatable)
${Object.entries(SIZE_FLAGS)
  .map(([flag, key]) => `  --${flag} <n>`.padEnd(45) + `(default ${DEFAULT_SIZES[key]})`)
  .join('\n')}`;

function parse() {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string', multiple: true },
      store: { type: 'string', default: 'sqlite' },
      'database-url': { type: 'string' },
      nodes: { type: 'string', default: '1' },
      runner: { type: 'string', default: 'dist' },
      quick: { type: 'boolean', default: false },
      peers: { type: 'boolean', default: false },
      peer: { type: 'string', multiple: true },
      'skip-build': { type: 'boolean', default: false },
      dist: { type: 'string' },
      'quiet-timeout': { type: 'string', default: '120' },
      out: { type: 'string' },
      'service-node-args': { type: 'string' },
      'service-env': { type: 'string', multiple: true },
      help: { type: 'boolean', default: false },
      ...Object.fromEntries(Object.keys(SIZE_FLAGS).map((f) => [f, { type: 'string' as const }])),
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const asked = (values.scenario as string[] | undefined) ?? ['all'];
  const scenarios = asked.includes('all') ? [...SCENARIOS] : asked;
  for (const s of scenarios) if (!(SCENARIOS as readonly string[]).includes(s)) throw new Error(`unknown scenario ${s}\n${USAGE}`);
  const store = STORES[values.store as string];
  if (!store) throw new Error(`unknown store ${values.store} (known: ${Object.keys(STORES).join(', ')})`);
  const nodes = Number(values.nodes);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 16) throw new Error('--nodes must be a whole number from 1 to 16');
  if (nodes > 1 && !store.shared) throw new Error(`--nodes ${nodes}: the ${store.name} store serves one node (use --store postgres)`);
  const databaseUrl = values['database-url'] as string | undefined;
  if (databaseUrl !== undefined && store.name !== 'postgres') throw new Error('--database-url applies to --store postgres only');
  const runnerName = values.runner as string;
  if (runnerName !== 'dist' && runnerName !== 'tsx') throw new Error(`--runner must be dist or tsx`);
  const distDir = values.dist as string | undefined;
  const runner: Runner = runnerName === 'tsx' ? { kind: 'tsx' } : { kind: 'dist', dir: resolve(ROOT, distDir ?? 'dist') };
  const sizes: Sizes = { ...(values.quick ? QUICK_SIZES : DEFAULT_SIZES) };
  for (const [flag, key] of Object.entries(SIZE_FLAGS)) {
    const raw = (values as Record<string, unknown>)[flag];
    if (typeof raw !== 'string') continue;
    const n = Number(raw.replaceAll('_', ''));
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${flag} must be a positive number`);
    sizes[key] = n;
  }
  // Bounds: the bench never runs away.
  if (sizes.burstCount > 1_000_000 || sizes.scalePending > 10_000_000 || sizes.startupJobs > 10_000_000 || sizes.startupRuns > 100 || sizes.steadySeconds > 600 || sizes.scaleSeconds > 600 || sizes.ingestSeconds > 600) {
    throw new Error('sizes above the bench bounds (burst 1e6, pending 1e7, 600 s, 100 starts)');
  }
  if (!Number.isInteger(sizes.createBatch) || sizes.createBatch > 1_000) throw new Error('--create-batch must be a whole number from 1 to 1000 (the service\'s PUNCTUAL_MAX_BATCH)');
  // Fixed order, whatever the command line's.
  const ordered = SCENARIOS.filter((s) => scenarios.includes(s));
  const nodeArgs = values['service-node-args'] as string | undefined;
  const serviceNodeArgs = nodeArgs ? nodeArgs.split(/\s+/).filter(Boolean) : [];
  const serviceEnv: Record<string, string> = {};
  for (const kv of (values['service-env'] as string[] | undefined) ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new Error(`--service-env takes KEY=VALUE, not ${kv}`);
    serviceEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const skipBuild = (values['skip-build'] as boolean) || distDir !== undefined;
  const quietTimeoutS = Number(values['quiet-timeout']);
  if (!Number.isFinite(quietTimeoutS) || quietTimeoutS < 0) throw new Error('--quiet-timeout must be a number of seconds');
  const peers = values.peers as boolean;
  const peer = (values.peer as string[] | undefined) ?? [];
  if (peer.length > 0 && !peers) throw new Error('--peer applies to --peers only');
  return { peers, peer, scenarios: ordered as Scenario[], store, storeOptions: { serverUrl: databaseUrl }, nodes, runner, skipBuild, quietTimeoutS, sizes, serviceNodeArgs, serviceEnv, out: values.out as string | undefined };
}

/** "PostgreSQL 15.20, shared_buffers 128MB, …" for the table's heading. */
function describeStore(info: Record<string, string | number>): string {
  const version = /^(PostgreSQL \S+)/.exec(String(info.version ?? ''))?.[1] ?? String(info.version ?? '');
  const settings = ['shared_buffers', 'synchronous_commit', 'fsync'].filter((k) => k in info).map((k) => `${k} ${info[k]}`);
  return [version, ...settings].join(', ');
}

async function main(): Promise<void> {
  const args = parse();
  const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
  if (args.runner.kind === 'dist' && !args.skipBuild) {
    log('npm run build');
    await build();
  }
  const startedAt = new Date();
  const results: BenchResults = {
    startedAt: startedAt.toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    store: args.store.name,
    storeInfo: await args.store.describe(args.storeOptions),
    nodes: args.nodes,
    runner: describeRunner(args.runner),
    distBuiltAt: args.runner.kind === 'dist' ? await distBuiltAt(args.runner.dir) : null,
    machine: machineInfo(),
    sizes: args.sizes,
    serviceNodeArgs: args.serviceNodeArgs,
    serviceEnv: args.serviceEnv,
    failures: [],
  };
  const receiver = await ReceiverProcess.start();
  const settle = async (what: string, pids: number[] = []) => {
    if (args.quietTimeoutS === 0) return;
    const q = await waitForQuiet([receiver.pid, ...pids], { timeoutMs: args.quietTimeoutS * 1000 });
    if (!q.quiet) log(`  warning: other processes still use ${q.others.toFixed(2)} core before ${what} (waited ${Math.round(q.waitedMs / 1000)} s)`);
    else if (q.waitedMs > 5_000) log(`  waited ${Math.round(q.waitedMs / 1000)} s for a quiet machine before ${what}`);
  };
  const ctx: BenchContext = {
    store: args.store,
    storeOptions: args.storeOptions,
    nodes: args.nodes,
    runner: args.runner,
    receiver,
    sizes: args.sizes,
    serviceNodeArgs: args.serviceNodeArgs,
    serviceEnv: args.serviceEnv,
    log,
    settle,
  };
  try {
    if (args.peers) results.peers = await runPeers(ctx, args.peer);
    else for (const scenario of args.scenarios) {
      try {
        if (scenario === 'burst') results.burst = await burst(ctx);
        else if (scenario === 'keyed') results.keyed = await keyed(ctx);
        else if (scenario === 'steady') results.steady = await steady(ctx);
        else if (scenario === 'ingest') results.ingest = await ingest(ctx);
        else if (scenario === 'paging') results.paging = await paging(ctx);
        else if (scenario === 'executions') results.executions = await executions(ctx);
        else if (scenario === 'startup') results.startup = await startup(ctx);
        else results.scale = await scale(ctx);
      } catch (err) {
        log(`${scenario} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        results.failures.push({ scenario, error: err instanceof Error ? err.message : String(err) });
      }
    }
  } finally {
    await receiver.close();
  }
  const out = args.out ?? join(ROOT, 'bench', 'results', `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeResults(out, results);
  const m = results.machine;
  if (results.peers) {
    const failed = results.peers.rows.some((r) => r.failures.length > 0);
    process.stdout.write(`\nPeers, side by side — ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGB} GB, Node ${m.node}, ${m.commit}, runner ${results.runner}\n\n${peersTable(results.peers)}\n\nresults: ${out}\n`);
    process.exitCode = failed ? 1 : 0;
    return;
  }
  process.stdout.write(
    `\nPunctual bench — store ${results.store}${results.store === 'sqlite' ? '' : ` (${describeStore(results.storeInfo)})`}, ` +
      `${results.nodes} node${results.nodes > 1 ? 's' : ''}, runner ${results.runner}${results.distBuiltAt ? ` (dist built ${results.distBuiltAt})` : ''}, ${m.cpus} CPUs (${m.cpuModel}), ` +
      `${m.memoryGB} GB, Node ${m.node}, ${m.commit}\n\n${table(results)}\n\nresults: ${out}\n`,
  );
  process.exitCode = results.failures.length > 0 ? 1 : 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
