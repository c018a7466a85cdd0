import { readdirSync, readFileSync } from 'node:fs';

/**
 * Memory of a Linux process as /proc/<pid>/status reports it, in MB (10^6 bytes; /proc's "kB"
 * are KiB, converted), the unit of the Scale goal "at most 256 MB"
 * (docs/benchmarks.md).
 */
export interface MemoryReading {
  /** Resident set size now (VmRSS). */
  rssMB: number;
  /** Peak resident set size since the process started (VmHWM). */
  peakMB: number;
}

function kib(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!m) throw new Error(`/proc status has no ${field}`);
  return Number(m[1]);
}

/** Reads VmRSS and VmHWM of `pid`; null when the process is gone. */
export function readMemory(pid: number): MemoryReading | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  return { rssMB: (kib(status, 'VmRSS') * 1024) / 1e6, peakMB: (kib(status, 'VmHWM') * 1024) / 1e6 };
}

/** Samples {@link readMemory} every `everyMs` until stopped; bounded to `maxSamples` readings. */
export class MemorySampler {
  private readonly samples: { at: number; rssMB: number }[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 250,
    private readonly maxSamples = 20_000,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
    this.sample();
  }

  /** Takes a reading now (also called by the interval). */
  sample(): void {
    if (this.samples.length >= this.maxSamples) return;
    const m = readMemory(this.pid);
    if (m) this.samples.push({ at: Date.now(), rssMB: m.rssMB });
  }

  /** RSS readings taken in [from, to] (epoch ms). */
  between(from: number, to: number): number[] {
    return this.samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.rssMB);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux x86-64 and arm64). */
const USER_HZ = 100;

/** CPU time (user + system) `pid` has used so far, in ms; null when the process is gone. */
export function readCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after "pid (comm) ".
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/**
 * Processes counted together under one name by a {@link CpuMeter}, found by their command name
 * when the meter starts and stops (a database server's processes, whose backends come and go):
 * every process whose /proc/<pid>/comm is `comm` and whose command line `match`es.
 */
export interface ProcessGroup {
  name: string;
  comm: string;
  match(cmdline: string): boolean;
}

/** CPU ms so far of each process of `group`, by pid. */
function readGroupCpuMs(group: ProcessGroup): Map<number, number> {
  const out = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/comm`, 'utf8').trim() !== group.comm) continue;
      if (!group.match(readFileSync(`/proc/${e}/cmdline`, 'utf8').replaceAll('\0', ' '))) continue;
    } catch {
      continue; // gone meanwhile
    }
    const ms = readCpuMs(Number(e));
    if (ms !== null) out.set(Number(e), ms);
  }
  return out;
}

/** Busy and total CPU time of the whole machine so far (ms, all cores), from /proc/stat. */
function readMachineMs(): { busy: number; iowait: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  // cpu  user nice system idle iowait irq softirq steal …
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
  void idle;
  return { busy: ((user! + nice! + system! + irq! + softirq! + steal!) * 1000) / USER_HZ, iowait: (iowait! * 1000) / USER_HZ };
}

/** CPU use over a measured window: per named process, the whole machine, and everything else. */
export type CpuUse = Record<string, { cpuMs: number; cores: number }>;

/**
 * CPU used by each named process between {@link CpuMeter.start} and {@link CpuMeter.stop}, in
 * ms and in cores (1 = one core busy the whole time). Also `machine` (every process; busy, not
 * idle or iowait), `others` (machine − the named processes − this bench process: anything else
 * running on the machine disturbs the figures) and `iowait` (cores idle waiting for I/O).
 * A {@link ProcessGroup} (e.g. the PostgreSQL server's processes) is one more named figure, the
 * sum over its processes (a process that starts meanwhile counts from 0; one that exits
 * meanwhile is lost, and so missing from `others` too).
 */
export class CpuMeter {
  private readonly before = new Map<string, number>();
  private groupBefore = new Map<number, number>();
  private machine0 = { busy: 0, iowait: 0 };
  private t0 = 0;
  private readonly pids: Record<string, number>;

  constructor(
    pids: Record<string, number>,
    private readonly group?: ProcessGroup,
  ) {
    this.pids = Object.values(pids).includes(process.pid) ? pids : { ...pids, bench: process.pid };
  }

  start(): void {
    this.t0 = performance.now();
    this.machine0 = readMachineMs();
    for (const [name, pid] of Object.entries(this.pids)) this.before.set(name, readCpuMs(pid) ?? 0);
    if (this.group) this.groupBefore = readGroupCpuMs(this.group);
  }

  stop(): CpuUse {
    const wall = performance.now() - this.t0;
    const out: CpuUse = {};
    let ours = 0;
    for (const [name, pid] of Object.entries(this.pids)) {
      const cpuMs = (readCpuMs(pid) ?? Number.NaN) - (this.before.get(name) ?? 0);
      ours += cpuMs;
      out[name] = { cpuMs, cores: cpuMs / wall };
    }
    if (this.group) {
      let cpuMs = 0;
      for (const [pid, ms] of readGroupCpuMs(this.group)) cpuMs += ms - (this.groupBefore.get(pid) ?? 0);
      ours += cpuMs;
      out[this.group.name] = { cpuMs, cores: cpuMs / wall };
    }
    const m = readMachineMs();
    const busy = m.busy - this.machine0.busy;
    const iowait = m.iowait - this.machine0.iowait;
    out.machine = { cpuMs: busy, cores: busy / wall };
    out.others = { cpuMs: busy - ours, cores: (busy - ours) / wall };
    out.iowait = { cpuMs: iowait, cores: iowait / wall };
    return out;
  }
}

/**
 * Waits until the rest of the machine is quiet: the CPU used by every process except `ours`
 * (and this one), sampled over `windowMs`, stays below `maxCores`. Gives up after `timeoutMs`.
 * The bench shares the machine with whatever else runs; figures taken while something else
 * burns a core are not the service's.
 * @returns the last reading of the others' CPU (cores) and whether it was below `maxCores`
 */
export async function waitForQuiet(
  ours: number[],
  opts: { maxCores?: number; windowMs?: number; timeoutMs?: number } = {},
): Promise<{ others: number; quiet: boolean; waitedMs: number }> {
  const maxCores = opts.maxCores ?? 0.15;
  const windowMs = opts.windowMs ?? 2_000;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const start = Date.now();
  const pids = { ...Object.fromEntries(ours.map((pid, i) => [`p${i}`, pid])) };
  for (;;) {
    const meter = new CpuMeter(pids);
    meter.start();
    await new Promise((r) => setTimeout(r, windowMs));
    const others = meter.stop().others!.cores;
    if (others < maxCores || Date.now() >= deadline) return { others, quiet: others < maxCores, waitedMs: Date.now() - start };
  }
}
