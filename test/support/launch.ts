/**
 * `punctual serve` started the three ways users start it, each in a process group of its own (as
 * a terminal or a supervisor starts it), for the signal tests: `npm start` (scripts/start.mjs),
 * `npx punctual serve` (in a folder where the package is installed) and `node dist/cli.js serve`.
 * Every process of a launch carries a marker in its environment, so that the test can find any
 * that survived, whatever its parent or group became.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { awaitServing, type Serving } from './child.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The ways of starting the server. */
export const LAUNCHES = ['npm start', 'npx punctual serve', 'node dist/cli.js serve'] as const;
export type Launch = (typeof LAUNCHES)[number];

/** A started server: its first process (npm, npx or node), the group it leads, its log. */
export interface Launched extends Serving {
  proc: ChildProcess;
  /** The pid of `proc`, which leads the process group. */
  pid: number;
  /** The marker every process of this launch carries (`PUNCTUAL_TEST_MARK`). */
  mark: string;
}

let npxDir: string | null = null;

/**
 * A folder where the package is installed, as `npm install punctual` would leave it for
 * `npx punctual`: node_modules/punctual (a link to this repository) and node_modules/.bin/punctual.
 */
function npxFolder(): string {
  if (npxDir !== null) return npxDir;
  const dir = mkdtempSync(join(tmpdir(), 'punctual-npx-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'npx-user', private: true, dependencies: { punctual: '*' } }));
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules/punctual'));
  symlinkSync('../punctual/dist/cli.js', join(dir, 'node_modules/.bin/punctual'));
  // npm makes a package's bin executable when it installs it.
  chmodSync(join(ROOT, 'dist/cli.js'), 0o755);
  npxDir = dir;
  return dir;
}

/** Removes the folder made for `npx punctual serve`, if any (for afterAll). */
export function removeNpxFolder(): void {
  if (npxDir !== null) rmSync(npxDir, { recursive: true, force: true });
  npxDir = null;
}

/** The environment without npm's own variables (npm sets its own for what it starts). */
function cleanEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith('npm_') && v !== undefined)) as Record<string, string>;
}

/**
 * Starts the server as `how` with `env` (PORT, DATABASE_URL, …), detached (a process group of
 * its own, led by the first process); resolves once it logs "punctual is serving", or, with
 * `until`, once it logs a line holding that text (then `url` is '' unless it was serving already).
 */
export async function launch(how: Launch, env: Record<string, string>, until?: string): Promise<Launched> {
  const mark = randomBytes(8).toString('hex');
  const [command, args, cwd] =
    how === 'npm start'
      ? ['npm', ['start', '--silent'], ROOT]
      : how === 'npx punctual serve'
        ? // --no: never install anything; the package is there.
          ['npx', ['--no', 'punctual', 'serve'], npxFolder()]
        : [process.execPath, [join(ROOT, 'dist/cli.js'), 'serve'], ROOT];
  const proc = spawn(command, args, {
    cwd,
    env: { ...cleanEnv(), LOG_LEVEL: 'info', PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS: 'true', ...env, PUNCTUAL_TEST_MARK: mark },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const { url, lines, stderr, exited, outputEnded } = await awaitServing(proc, { what: how, timeoutMs: 30_000, ...(until !== undefined && { until }) });
  return { proc, pid: proc.pid!, mark, lines, stderr, url, exited, outputEnded };
}

/** The live processes (not zombies) whose environment holds `PUNCTUAL_TEST_MARK=<mark>`, as "pid args". */
export function marked(mark: string): string[] {
  const needle = `PUNCTUAL_TEST_MARK=${mark}\0`;
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').includes(needle)) continue;
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push(`${name} ${args}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Resolves once no process of the launch is left, or with those left after `timeoutMs`. */
export async function survivors(mark: string, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = marked(mark);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}
