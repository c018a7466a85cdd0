/** The results: a table on stdout and a JSON file under bench/results/ (gitignored). */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { MachineInfo } from './machine.js';
import type { PeersResults } from './peers/run-peers.js';
import type { BurstResult } from './scenarios/burst.js';
import type { KeyedResult } from './scenarios/keyed.js';
import type { IngestScenarioResult } from './scenarios/ingest.js';
import { executionsRows, type ExecutionsResult } from './scenarios/executions.js';
import { PAGING_CASES, type PagingResult } from './scenarios/paging.js';
import type { ScaleResult } from './scenarios/scale.js';
import type { StartupResult } from './scenarios/startup.js';
import type { SteadyResult } from './scenarios/steady.js';

/** Everything one `npm run bench` measured. */
export interface BenchResults {
  startedAt: string;
  command: string;
  store: string;
  /** What the store is: version, settings (stores/*.ts describe()). */
  storeInfo: Record<string, string | number>;
  /** `punctual serve` processes per scenario on one database (`--nodes`). */
  nodes: number;
  runner: string;
  /** When dist/cli.js was built (runner dist), ISO 8601. */
  distBuiltAt: string | null;
  machine: MachineInfo;
  sizes: object;
  serviceNodeArgs: string[];
  serviceEnv: Record<string, string>;
  burst?: BurstResult;
  keyed?: KeyedResult;
  steady?: SteadyResult;
  ingest?: IngestScenarioResult;
  scale?: ScaleResult;
  paging?: PagingResult;
  executions?: ExecutionsResult;
  startup?: StartupResult;
  /** `--peers`: the side-by-side table's figures. */
  peers?: PeersResults;
  /** Scenarios that threw, with the message. */
  failures: { scenario: string; error: string }[];
}

interface Row {
  scenario: string;
  figure: string;
  value: string;
  goal: string;
  met: string;
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : String(n));
const ms = (n: number, d = 1) => (Number.isFinite(n) ? `${n.toFixed(d)} ms` : String(n));
const yes = (ok: boolean) => (ok ? 'yes' : 'NO');
type Cpu = Record<string, { cores: number }>;
/** "service 0.95, receiver 0.31, others 0.02" from a CpuMeter reading (cores). */
const cores = (cpu: Cpu | undefined, names: string[]) =>
  names
    .filter((n) => cpu?.[n])
    .map((n) => `${n} ${Math.max(0, cpu![n]!.cores).toFixed(2)}`)
    .join(', ');

/** `base` and, with several nodes, `base 1`, `base 2`, … (the names of proc.ts CpuMeter readings). */
const withNodes = (cpu: Cpu | undefined, base: string) => [base, ...Object.keys(cpu ?? {}).filter((k) => k.startsWith(`${base} `))];

/** Per delivered call: the store server's writing transactions and WAL (PostgreSQL), or no row. */
function activityRows(scenario: string, activity: Record<string, number> | null | undefined, calls: number): Row[] {
  if (!activity) return [];
  const per = (n: number | undefined, d: number) => ((n ?? Number.NaN) / calls).toFixed(d);
  return [
    {
      scenario,
      figure: 'store per call: writing transactions / WAL bytes (server-wide)',
      value: `${per(activity.writeTransactions, 3)} / ${per(activity.walBytes, 0)} B`,
      goal: '',
      met: '',
    },
  ];
}

function steadyRows(scenario: string, s: SteadyResult): Row[] {
  return [
    { scenario, figure: `lateness p50 (${int(s.count)} calls, ${s.rate}/s, ${s.seconds} s, ${int(s.pending)} pending)`, value: ms(s.lateness.p50, 2), goal: '≤ 5 ms', met: yes(s.lateness.p50 <= 5) },
    { scenario, figure: 'lateness p99', value: ms(s.lateness.p99, 2), goal: '≤ 25 ms', met: yes(s.lateness.p99 <= 25) },
    { scenario, figure: 'lateness max', value: ms(s.lateness.max), goal: '', met: '' },
    { scenario, figure: 'early calls / missing / duplicates', value: `${s.early} / ${s.missing} / ${s.duplicates}`, goal: '0 / 0 / 0', met: yes(s.early === 0 && s.missing === 0 && s.duplicates === 0) },
    { scenario, figure: 'CPU during the run (cores)', value: cores(s.cpu, [...withNodes(s.cpu, 'service'), 'postgres', 'receiver', 'others']), goal: '', met: '' },
    ...activityRows(scenario, s.storeActivity, s.count),
  ];
}

/**
 * Paging (docs/benchmarks.md): each case's page time at both sizes. Goal: the same time (×1.5 at
 * most for p50) where the indexes answer the query alone; the others look at a bounded number of
 * rows.
 */
function pagingRows(p: PagingResult): Row[] {
  const scenario = 'paging';
  return p.small.cases.map((small, k) => {
    const large = p.large.cases[k]!;
    const ratio = large.latency.p50 / small.latency.p50;
    const indexed = PAGING_CASES[k]?.indexed ?? false;
    return {
      scenario,
      figure: `GET /schedules ${small.label}, p50 / p99: ${int(p.small.jobs)} vs ${int(p.large.jobs)} jobs (sizes ${small.size}${small.more ? '+' : ''} / ${large.size}${large.more ? '+' : ''})`,
      value: `${ms(small.latency.p50, 2)} / ${ms(small.latency.p99, 2)} vs ${ms(large.latency.p50, 2)} / ${ms(large.latency.p99, 2)} (×${ratio.toFixed(2)})`,
      goal: indexed ? '≤ ×1.5' : '(bounded)',
      met: indexed ? yes(ratio <= 1.5) : '',
    };
  });
}

/**
 * Startup (docs/benchmarks.md, "Start time"): median ms from spawn to the first 200 of /healthz.
 * Goals: `punctual serve` well under a second (≤ 500 ms), `npm start` on a built checkout ≤ 2 s.
 */
function startupRows(s: StartupResult): Row[] {
  return s.cases.map((c) => {
    const goalMs = c.how === 'serve' ? 500 : 2_000;
    return {
      scenario: 'startup',
      figure: `${c.how} → GET /healthz 200, ${c.label}: median of ${c.runs.length} (${c.runs.map((t) => t.toFixed(0)).join(', ')})`,
      value: ms(c.summary.p50, 0),
      goal: `≤ ${goalMs.toLocaleString('en')} ms`,
      met: yes(c.summary.p50 <= goalMs),
    };
  });
}

/** The table's rows, with the goals of docs/benchmarks.md. */
export function rows(r: BenchResults): Row[] {
  const out: Row[] = [];
  if (r.burst) {
    const b = r.burst;
    out.push(
      { scenario: 'burst', figure: `deliveries/s (${int(b.count)} due at one instant)`, value: `${int(b.perSecond)}/s`, goal: '', met: '' },
      { scenario: 'burst', figure: `ceiling: plain undici POSTs, ${b.ceiling.concurrency} in flight (best of ${b.ceiling.runs.map(int).join(', ')})`, value: `${int(b.ceiling.perSecond)}/s`, goal: '', met: '' },
      { scenario: 'burst', figure: 'ratio to the ceiling', value: b.ratio.toFixed(2), goal: '≥ 0.4', met: yes(b.ratio >= 0.4) },
      { scenario: 'burst', figure: 'first / last call after the instant', value: `${ms(b.firstArrivalMs)} / ${ms(b.lastArrivalMs, 0)}`, goal: '', met: '' },
      { scenario: 'burst', figure: 'early calls / missing / duplicates', value: `${b.early} / ${b.missing} / ${b.duplicates}`, goal: '0 / 0 / 0', met: yes(b.early === 0 && b.missing === 0 && b.duplicates === 0) },
      { scenario: 'burst', figure: 'CPU during the burst (cores)', value: cores(b.cpu, [...withNodes(b.cpu, 'service'), 'postgres', 'receiver', 'others']), goal: '', met: '' },
      ...activityRows('burst', b.storeActivity, b.count),
      { scenario: 'burst', figure: 'CPU during the ceiling runs (cores)', value: b.ceilingCpu.map((c) => cores(c, ['client', 'receiver', 'others'])).join(' | '), goal: '', met: '' },
    );
  }
  if (r.keyed) {
    const k = r.keyed;
    out.push(
      { scenario: 'keyed', figure: `deliveries/s (${int(k.count)} of one key, parallelism ${k.parallelism}, receiver ${k.receiverDelayMs} ms)`, value: `${int(k.perSecond)}/s`, goal: '', met: '' },
      { scenario: 'keyed', figure: 'ratio to parallelism ÷ latency', value: `${k.ratio.toFixed(2)} of ${int(k.boundPerSecond)}/s`, goal: '', met: '' },
      { scenario: 'keyed', figure: 'most calls in flight at the receiver', value: String(k.maxInFlight), goal: `≤ ${k.parallelism}`, met: yes(k.maxInFlight <= k.parallelism) },
      { scenario: 'keyed', figure: 'early calls / missing / duplicates', value: `${k.early} / ${k.missing} / ${k.duplicates}`, goal: '0 / 0 / 0', met: yes(k.early === 0 && k.missing === 0 && k.duplicates === 0) },
      { scenario: 'keyed', figure: 'CPU during the keyed burst (cores)', value: cores(k.cpu, [...withNodes(k.cpu, 'service'), 'postgres', 'receiver', 'others']), goal: '', met: '' },
    );
  }
  if (r.steady) out.push(...steadyRows('steady', r.steady));
  if (r.ingest) {
    const i = r.ingest;
    out.push(
      { scenario: 'ingest', figure: `Punctual POST /schedules, ${i.clients} clients`, value: `${int(i.punctual.perSecond)} req/s, p99 ${ms(i.punctual.latency.p99)}`, goal: '', met: '' },
      { scenario: 'ingest', figure: 'bare Fastify route, same body', value: `${int(i.bare.perSecond)} req/s, p99 ${ms(i.bare.latency.p99)}`, goal: '', met: '' },
      { scenario: 'ingest', figure: 'ratio (Punctual / bare)', value: i.ratio.toFixed(2), goal: '(no goal)', met: '' },
      { scenario: 'ingest', figure: 'CPU (cores): Punctual run | bare run', value: `${cores(i.punctual.cpu, [...withNodes(i.punctual.cpu, 'server'), 'postgres', 'client', 'others', 'iowait'])} | ${cores(i.bare.cpu, ['server', 'client', 'others'])}`, goal: '', met: '' },
    );
  }
  if (r.scale) {
    const { run, baseline } = r.scale;
    // Several nodes: RSS is per process; the figures are the largest node's.
    const per = run.memoryByNode ? `, largest of ${run.memoryByNode.length} nodes` : '';
    out.push(
      { scenario: 'scale', figure: `RSS peak (VmHWM, whole process life), ${int(run.pending)} pending${per}`, value: `${run.memory.peakMB.toFixed(0)} MB`, goal: '≤ 256 MB', met: yes(run.memory.peakMB <= 256) },
      ...(run.memoryByNode
        ? [{ scenario: 'scale', figure: 'RSS peak of each node', value: run.memoryByNode.map((m) => `${m.peakMB.toFixed(0)}`).join(' / ') + ' MB', goal: '', met: '' }]
        : []),
      { scenario: 'scale', figure: `RSS idle / during the run (median, max)${per}`, value: `${run.memory.idleMB.toFixed(0)} / ${run.memory.steadyMedianMB.toFixed(0)}, ${run.memory.steadyMaxMB.toFixed(0)} MB`, goal: '≤ 256 MB', met: yes(run.memory.steadyMaxMB <= 256) },
      { scenario: 'scale', figure: `RSS during the run with ${int(baseline.pending)} pending (${per ? `same processes${per}` : 'same process'}): median, max`, value: `${baseline.memory.steadyMedianMB.toFixed(0)}, ${baseline.memory.steadyMaxMB.toFixed(0)} MB`, goal: '', met: '' },
      ...steadyRows('scale', run).filter((x) => !x.figure.startsWith('lateness p')),
      { scenario: 'scale', figure: `lateness p50 vs ${int(baseline.pending)} pending`, value: `${ms(run.lateness.p50, 2)} vs ${ms(baseline.lateness.p50, 2)} (×${r.scale.p50Ratio.toFixed(2)})`, goal: '≤ ×1.2', met: yes(r.scale.p50Ratio <= 1.2) },
      { scenario: 'scale', figure: `lateness p99 vs ${int(baseline.pending)} pending`, value: `${ms(run.lateness.p99, 2)} vs ${ms(baseline.lateness.p99, 2)} (×${r.scale.p99Ratio.toFixed(2)})`, goal: '≤ ×1.2', met: yes(r.scale.p99Ratio <= 1.2) },
    );
  }
  if (r.paging) out.push(...pagingRows(r.paging));
  if (r.executions) out.push(...executionsRows(r.executions));
  if (r.startup) out.push(...startupRows(r.startup));
  for (const f of r.failures) out.push({ scenario: f.scenario, figure: 'FAILED', value: f.error.split('\n')[0]!.slice(0, 80), goal: '', met: 'NO' });
  return out;
}

/** A plain-text table (also valid Markdown). */
export function table(r: BenchResults): string {
  const head: Row = { scenario: 'Scenario', figure: 'Figure', value: 'Value', goal: 'Goal', met: 'Met' };
  const all = [head, ...rows(r)];
  const keys = Object.keys(head) as (keyof Row)[];
  const width = Object.fromEntries(keys.map((k) => [k, Math.max(...all.map((x) => x[k].length))])) as Record<keyof Row, number>;
  const line = (x: Row) => `| ${keys.map((k) => x[k].padEnd(width[k])).join(' | ')} |`;
  return [line(head), `|${keys.map((k) => '-'.repeat(width[k] + 2)).join('|')}|`, ...all.slice(1).map(line)].join('\n');
}

/** Writes `r` as JSON to `path` (creating the directory). */
export async function writeResults(path: string, r: BenchResults): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(r, null, 2)}\n`);
}
