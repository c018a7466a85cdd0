/** The machine and the code a bench ran on, for the results file and docs/benchmarks.md. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { ROOT } from './service.js';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGB: number;
  node: string;
  kernel: string;
  /** `git describe --always --dirty` of the repository. */
  commit: string;
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    return m ? m[1]!.trim() : 'unknown';
  } catch {
    return 'unknown';
  }
}

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

export function machineInfo(): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpuModel(),
    memoryGB: Math.round((totalmem() / 1e9) * 10) / 10,
    node: process.version,
    kernel: sh('uname', ['-sr']),
    commit: sh('git', ['describe', '--always', '--dirty']),
  };
}
