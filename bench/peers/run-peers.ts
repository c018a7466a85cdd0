/**
 * `npm run bench -- --peers` (docs/benchmarks.md, "Peers, side by side"): burst and steady for
 * Punctual on SQLite and on PostgreSQL (the scenarios of bench/scenarios/, unchanged) and for
 * graphile-worker, pg-boss and BullMQ (measure.ts), with the same receiver, sizes and HTTP client;
 * one table, with the ceiling (plain undici POSTs) the Punctual bursts measure. Punctual's jobs
 * are created as the sizes say (`--create-batch`, default batches of 1,000 via POST
 * /schedules/batch, so the create column of a 100,000 burst is "100,000 through the batch API"),
 * and each Punctual row also runs the ingest scenario (single POST /schedules, 64 clients, beside a
 * bare Fastify route).
 */
import type { BenchContext } from '../context.js';
import { burst, type BurstResult } from '../scenarios/burst.js';
import { createdHow } from '../scenarios/common.js';
import { ingest, type IngestScenarioResult } from '../scenarios/ingest.js';
import { steady, type SteadyResult } from '../scenarios/steady.js';
import type { Summary } from '../stats.js';
import { STORES } from '../stores/index.js';
import { peerBurst, peerSteady, type PeerResult } from './measure.js';
import { ensureRedis, PEERS, type Peer } from './peers.js';

/** The systems `--peer` can name, in the table's order. */
export const PEER_SYSTEMS = ['punctual-sqlite', 'punctual-postgres', ...PEERS.map((p) => p.name)] as const;

/** The figures of one system (a row of the table). */
export interface PeerRow {
  system: string;
  store: string;
  settings: string;
  burst?: { count: number; createMs: number; perSecond: number; arrival: Summary; missing: number; duplicates: number; early: number; cpu: Record<string, { cores: number }> };
  steady?: { count: number; lateness: Summary; missing: number; duplicates: number; early: number };
  /** Punctual only: single `POST /schedules` from 64 clients beside a bare Fastify route (the ingest scenario). */
  ingest?: { clients: number; perSecond: number; p99: number; barePerSecond: number; ratio: number };
  failures: string[];
}

/** Everything `--peers` measured (written as JSON beside the other results). */
export interface PeersResults {
  redis: string | null;
  /** The best of the Punctual bursts' ceiling runs (per second), and all of them. */
  ceiling: { perSecond: number; runs: number[] } | null;
  rows: PeerRow[];
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function attempt<T>(ctx: BenchContext, row: PeerRow, what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    ctx.log(`${row.system} ${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    row.failures.push(`${what}: ${message(err)}`);
    return undefined;
  }
}

/** Punctual on `storeName`, one node: the bench's own burst and steady scenarios. */
async function punctualRow(ctx: BenchContext, storeName: 'sqlite' | 'postgres', ceilings: number[]): Promise<PeerRow> {
  const store = STORES[storeName]!;
  const c: BenchContext = { ...ctx, store, nodes: 1, storeOptions: {} };
  const row: PeerRow = {
    system: `Punctual (${storeName === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`,
    store: storeName === 'sqlite' ? 'SQLite (embedded)' : 'PostgreSQL',
    settings: `defaults (512 calls in flight); created ${createdHow(c)}`,
    failures: [],
  };
  const b: BurstResult | undefined = await attempt(ctx, row, 'burst', () => burst(c));
  if (b) {
    ceilings.push(...b.ceiling.runs);
    row.burst = { count: b.count, createMs: (b.count * 1000) / b.createPerSecond, perSecond: b.perSecond, arrival: b.arrival, missing: b.missing, duplicates: b.duplicates, early: b.early, cpu: b.cpu };
  }
  const s: SteadyResult | undefined = await attempt(ctx, row, 'steady', () => steady(c));
  if (s) row.steady = { count: s.count, lateness: s.lateness, missing: s.missing, duplicates: s.duplicates, early: s.early };
  const i: IngestScenarioResult | undefined = await attempt(ctx, row, 'ingest', () => ingest(c));
  if (i) row.ingest = { clients: i.clients, perSecond: i.punctual.perSecond, p99: i.punctual.latency.p99, barePerSecond: i.bare.perSecond, ratio: i.ratio };
  return row;
}

async function peerRow(ctx: BenchContext, peer: Peer): Promise<PeerRow> {
  const settings = Object.entries(peer.settings).map(([k, v]) => `${k} ${v}`).join(', ');
  const row: PeerRow = { system: peer.name, store: peer.store(), settings: `${settings}; ${peer.creates}`, failures: [] };
  const b: PeerResult | undefined = await attempt(ctx, row, 'burst', () => peerBurst(ctx, peer));
  if (b) row.burst = { count: b.count, createMs: b.createMs, perSecond: b.perSecond!, arrival: b.arrival, missing: b.missing, duplicates: b.duplicates, early: b.early, cpu: b.cpu };
  const s: PeerResult | undefined = await attempt(ctx, row, 'steady', () => peerSteady(ctx, peer));
  if (s) row.steady = { count: s.count, lateness: s.arrival, missing: s.missing, duplicates: s.duplicates, early: s.early };
  return row;
}

/** Runs the systems named in `only` (all of {@link PEER_SYSTEMS} when empty), in the table's order. */
export async function runPeers(ctx: BenchContext, only: string[]): Promise<PeersResults> {
  for (const s of only) if (!(PEER_SYSTEMS as readonly string[]).includes(s)) throw new Error(`--peer ${s}: known are ${PEER_SYSTEMS.join(', ')}`);
  const wanted = (s: string) => only.length === 0 || only.includes(s);
  let redis: string | null = null;
  if (wanted('bullmq')) {
    redis = ensureRedis();
    ctx.log(redis);
  }
  const ceilings: number[] = [];
  const rows: PeerRow[] = [];
  if (wanted('punctual-sqlite')) rows.push(await punctualRow(ctx, 'sqlite', ceilings));
  if (wanted('punctual-postgres')) rows.push(await punctualRow(ctx, 'postgres', ceilings));
  for (const peer of PEERS) if (wanted(peer.name)) rows.push(await peerRow(ctx, peer));
  return { redis, ceiling: ceilings.length ? { perSecond: Math.max(...ceilings), runs: ceilings } : null, rows };
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : String(n));
const ms = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? `${n < 100 ? n.toFixed(1) : int(n)} ms` : '—');

/** The one table (Markdown), then the settings of each system and any failure. */
export function peersTable(r: PeersResults): string {
  const ceiling = r.ceiling?.perSecond;
  const head = ['System', 'Store', 'Create N (jobs/s)', 'Burst: deliveries/s', '× ceiling', 'Burst: last arrival', 'Burst: missing / dup / early', 'Burst CPU: worker, store (cores)', 'Steady: lateness p50', 'p99', 'Steady: missing / dup / early'];
  const lines: string[][] = [head];
  if (r.ceiling) lines.push(['ceiling: plain undici POSTs, 512 in flight', '—', '—', `${int(r.ceiling.perSecond)}/s`, '1.00', '—', '—', '—', '—', '—', '—']);
  for (const row of r.rows) {
    const b = row.burst;
    const s = row.steady;
    const worker = b?.cpu.worker ?? b?.cpu.service;
    const store = b?.cpu.store ?? b?.cpu.postgres;
    lines.push([
      row.system,
      row.store.split(',')[0]!,
      b ? `${int(b.count)} in ${(b.createMs / 1000).toFixed(1)} s (${int((b.count * 1000) / b.createMs)}/s)` : '—',
      b ? `${int(b.perSecond)}/s` : 'FAILED',
      b && ceiling ? (b.perSecond / ceiling).toFixed(2) : '—',
      b ? ms(b.arrival.max) : '—',
      b ? `${b.missing} / ${b.duplicates} / ${b.early}` : '—',
      b ? `${worker ? worker.cores.toFixed(2) : '—'}, ${store ? store.cores.toFixed(2) : '—'}` : '—',
      s ? ms(s.lateness.p50) : 'FAILED',
      s ? ms(s.lateness.p99) : '—',
      s ? `${s.missing} / ${s.duplicates} / ${s.early}` : '—',
    ]);
  }
  const width = head.map((_, k) => Math.max(...lines.map((l) => l[k]!.length)));
  const fmt = (l: string[]) => `| ${l.map((c, k) => c.padEnd(width[k]!)).join(' | ')} |`;
  const table = [fmt(head), `|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.slice(1).map(fmt)].join('\n');
  const notes = r.rows.map((row) => `- ${row.system} — ${row.store}: ${row.settings}`);
  const ingests = r.rows.flatMap((row) =>
    row.ingest
      ? [`- ${row.system}, single POST /schedules from ${row.ingest.clients} clients: ${int(row.ingest.perSecond)} req/s (p99 ${ms(row.ingest.p99)}) = ${row.ingest.ratio.toFixed(2)} × a bare Fastify route (${int(row.ingest.barePerSecond)} req/s, same run)`]
      : [],
  );
  const failures = r.rows.flatMap((row) => row.failures.map((f) => `- ${row.system} FAILED ${f.split('\n')[0]!.slice(0, 200)}`));
  return [table, '', 'Settings:', ...notes, ...(r.redis ? [`- ${r.redis}`] : []), ...(ingests.length ? ['', 'Ingest:', ...ingests] : []), ...failures].join('\n');
}
