/**
 * `punctual serve` as a user starts it: its own process, configured by environment variables,
 * real HTTP on 127.0.0.1, the store under test (DATABASE_URL). Two runners:
 *   - `dist`: `npm run build`, then `node dist/cli.js serve` (what `npm start` does; the default),
 *     or a saved build's `cli.js` (`--dist <dir>`, no build);
 *   - `tsx`:  `node --import tsx src/cli.ts serve` (from the sources, as test/support/child.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMemory, type MemoryReading } from './proc.js';

/** Root of the repository. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** ROOT's build, the one `npm start` runs. */
export const DIST = join(ROOT, 'dist');

/**
 * How the service is started: `dist` runs `<dir>/cli.js` (a build: ./dist by default, or a saved
 * one, to compare builds), `tsx` runs src/cli.ts through tsx.
 */
export type Runner = { kind: 'dist'; dir: string } | { kind: 'tsx' };

/** `dist (<dir>)` or `tsx`, for the report. */
export function describeRunner(runner: Runner): string {
  return runner.kind === 'dist' ? `dist (${runner.dir})` : 'tsx (src/cli.ts)';
}

function cliArgs(runner: Runner, args: string[], nodeArgs: string[] = []): string[] {
  return runner.kind === 'dist'
    ? [...nodeArgs, join(runner.dir, 'cli.js'), ...args]
    : [...nodeArgs, '--import', 'tsx', 'src/cli.ts', ...args];
}

/** Runs a command in ROOT; resolves with its output, rejects with it on a non-zero exit. */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${out}`)),
    );
  });
}

/** `npm run build` (tsc -p tsconfig.build.json into dist/). */
export async function build(): Promise<void> {
  await run('npm', ['run', 'build', '--silent']);
}

/** Modification time of `<dir>/cli.js` (ISO 8601), or null when there is no build. */
export async function distBuiltAt(dir: string): Promise<string | null> {
  return stat(join(dir, 'cli.js')).then(
    (s) => s.mtime.toISOString(),
    () => null,
  );
}

/** Runs a `punctual` subcommand (e.g. `migrate`) against `databaseUrl` and returns its output. */
export function punctual(runner: Runner, args: string[], databaseUrl: string): Promise<string> {
  return run(process.execPath, cliArgs(runner, args), { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
}

/** A free TCP port on 127.0.0.1 (bound, read, released). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** Whether a process of the group `pgid` still runs. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A running `punctual serve`. */
export interface Service {
  url: string;
  pid: number;
  /** Bearer token of the bootstrap key. */
  token: string;
  /** ms from spawning the process to its readiness (the log line or the first 200 of GET /healthz). */
  readyMs: number;
  /** stdout/stderr lines at LOG_LEVEL (warn: warnings and errors only). */
  logLines: string[];
  memory(): MemoryReading | null;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs` + 5 s). */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Options of {@link startService}. */
export interface ServiceOptions {
  runner: Runner;
  databaseUrl: string;
  /** Extra environment (overrides the defaults below). */
  env?: Record<string, string>;
  /** node flags before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** PUNCTUAL_BOOTSTRAP_TOKEN (nodes of one database share it); default: a new random one. */
  token?: string;
  /**
   * Start it as `npm start` in ROOT (scripts/start.mjs: rebuilds dist/ when a source is newer, then
   * runs `node dist/cli.js serve`) instead of running the CLI directly. Only with the runner
   * `dist` on ROOT's dist/; `nodeArgs` do not apply.
   */
  npmStart?: boolean;
  /** ms between two GET /healthz while waiting for readiness (default 50). */
  pollMs?: number;
}

/** A new bootstrap token (`bench-` + 48 hex digits). */
export function newToken(): string {
  return `bench-${randomBytes(24).toString('hex')}`;
}

/**
 * Starts `punctual serve` with PORT (a free port), HOST=127.0.0.1, DATABASE_URL,
 * PUNCTUAL_BOOTSTRAP_TOKEN, LOG_LEVEL=warn, PUNCTUAL_ALLOWED_NETWORKS=127.0.0.0/8 and
 * PUNCTUAL_RATE_LIMIT_PER_SECOND=0 (no per-key rate limit). Ready when it logs "punctual is
 * serving" (printed at `info`, so only when LOG_LEVEL allows it) or, at `warn`, when GET /healthz
 * answers 200.
 */
export async function startService(opts: ServiceOptions): Promise<Service> {
  const token = opts.token ?? newToken();
  const port = await freePort();
  if (opts.npmStart && (opts.runner.kind !== 'dist' || opts.runner.dir !== DIST)) {
    throw new Error(`npm start runs ${DIST}, not the runner ${describeRunner(opts.runner)}`);
  }
  const [command, args] = opts.npmStart ? ['npm', ['start', '--silent']] : [process.execPath, cliArgs(opts.runner, ['serve'], opts.nodeArgs)];
  const spawnedAt = performance.now();
  const proc: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: opts.databaseUrl,
      PUNCTUAL_BOOTSTRAP_TOKEN: token,
      LOG_LEVEL: 'warn',
      // The receiver is on 127.0.0.1; the SSRF guard (docs/security.md) refuses loopback unless
      // allowed.
      PUNCTUAL_ALLOWED_NETWORKS: '127.0.0.0/8',
      // The per-key rate limit (default 1,000/s, docs/security.md) would cap creation and ingest at
      // its own figure: the bench measures capacity, so it is off.
      PUNCTUAL_RATE_LIMIT_PER_SECOND: '0',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // npm start: a process group of its own, signalled as a whole, as a terminal's Ctrl-C does (the
    // server runs in the process npm starts; a SIGTERM to npm alone would reach it only through
    // its watch of npm, a second later: docs/deployment.md, "Stopping").
    detached: opts.npmStart ?? false,
  });
  const signal = (sig: NodeJS.Signals) => (opts.npmStart ? process.kill(-proc.pid!, sig) : proc.kill(sig));
  const logLines: string[] = [];
  const exited = once(proc, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  let servingUrl: string | null = null;
  const onData = (c: Buffer) => {
    for (const line of c.toString().split('\n')) {
      if (line === '') continue;
      if (logLines.length < 10_000) logLines.push(line);
      try {
        const rec = JSON.parse(line) as { msg?: string; url?: string };
        if (rec.msg === 'punctual is serving' && rec.url) servingUrl = rec.url;
      } catch {
        // not JSON
      }
    }
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);

  const fallbackUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    if (done) throw new Error(`punctual serve exited before serving:\n${logLines.join('\n')}`);
    if (servingUrl) break;
    try {
      const res = await fetch(`${fallbackUrl}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      signal('SIGKILL');
      throw new Error(`punctual serve did not serve within 30 s:\n${logLines.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 50));
  }
  const readyMs = performance.now() - spawnedAt;
  const url = servingUrl ?? fallbackUrl;
  return {
    url,
    pid: proc.pid!,
    token,
    readyMs,
    logLines,
    memory: () => readMemory(proc.pid!),
    async stop(graceMs = 10_000) {
      if (proc.exitCode === null && proc.signalCode === null) signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs + 5_000);
      const r = await exited;
      // npm start: npm may end first; the server, still in the group, ends after it.
      while (opts.npmStart && groupAlive(proc.pid!)) await new Promise((res) => setTimeout(res, 20));
      clearTimeout(timer);
      return r;
    },
  };
}
