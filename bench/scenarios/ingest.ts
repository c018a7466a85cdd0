/**
 * Ingest (docs/benchmarks.md): POST /schedules over HTTP from `ingestClients` (64) concurrent
 * undici clients for a fixed time, against Punctual and against a bare Fastify route in its own
 * process (bare-fastify-process.ts) in the same run; requests/s, latency p99, and the ratio.
 * The schedules are due far in the future, so the dispatcher stays idle. With `--nodes n` the
 * clients are spread over the n nodes (client k → node k mod n) and compared with one bare
 * Fastify process; `cpu` has each node and their sum (`server`).
 */
import { startBareFastify } from '../bare-fastify.js';
import type { BenchContext } from '../context.js';
import { ingestFor, type IngestResult, type Target } from '../load.js';
import { CpuMeter } from '../proc.js';
import { FAR_FUTURE, nodePids, scheduleBody, schedulesTargets, withNodeTotal, withService } from './common.js';

export interface IngestScenarioResult {
  clients: number;
  punctual: IngestResult & { cpu: Record<string, { cpuMs: number; cores: number }> };
  bare: IngestResult & { cpu: Record<string, { cpuMs: number; cores: number }> };
  /** punctual.perSecond / bare.perSecond. */
  ratio: number;
}

export async function ingest(ctx: BenchContext): Promise<IngestScenarioResult> {
  const { ingestClients: clients, ingestSeconds, ingestWarmupSeconds } = ctx.sizes;
  const endpoint = `${ctx.receiver.url}/never`;
  const body = (n: number) => ({ ...scheduleBody(`ingest-${n}`, FAR_FUTURE + n, endpoint, { n, kind: 'ingest' }), tags: ['bench'] });
  const measure = async (name: string, target: Target | Target[], nodes: readonly { pid: number }[]) => {
    await ctx.settle(`ingest (${name})`, nodes.map((n) => n.pid));
    ctx.log(`ingest: ${name}, ${clients} clients, ${ingestWarmupSeconds} s warm-up + ${ingestSeconds} s`);
    const cpu = new CpuMeter({ ...nodePids(nodes, 'server'), client: process.pid }, ctx.store.serverProcesses);
    cpu.start();
    const r = await ingestFor(target, body, {
      clients,
      durationMs: ingestSeconds * 1000,
      warmupMs: ingestWarmupSeconds * 1000,
      expectStatus: 201,
    });
    const used = withNodeTotal(cpu.stop(), nodes, 'server');
    // A figure that counts refusals is not a throughput: any unexpected answer fails the scenario.
    if (r.errors > 0) throw new Error(`${name}: ${r.errors} of ${r.requests} answers were not 201; first: ${r.firstError}`);
    ctx.log(`  ${Math.round(r.perSecond)} req/s, p99 ${r.latency.p99.toFixed(1)} ms`);
    return { ...r, cpu: used };
  };

  const bareServer = await startBareFastify();
  let bare;
  try {
    bare = await measure('bare Fastify', { url: bareServer.url, path: '/schedules', headers: {} }, [bareServer]);
  } finally {
    await bareServer.close();
  }
  const punctual = await withService(ctx, { seedPending: 0 }, (_service, _db, _seedMs, nodes) =>
    measure(nodes.length > 1 ? `punctual (${nodes.length} nodes)` : 'punctual', schedulesTargets(nodes), nodes),
  );
  return { clients, punctual, bare, ratio: punctual.perSecond / bare.perSecond };
}
