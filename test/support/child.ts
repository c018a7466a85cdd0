import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Arrival, Receiver } from './receiver.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A `punctual serve` running in its own process (the build by default; see {@link SpawnOptions}). */
export interface ChildServer {
  proc: ChildProcess;
  url: string;
  /** Every stdout line (pino JSON) so far. */
  lines: string[];
  /** Everything written to stderr so far, chunk by chunk. */
  stderr: string[];
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The receivers of tests listen on 127.0.0.1: unless `env` configures the SSRF guard (docs/security.md)
 * itself, test servers run with `PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=true`.
 */
export function guardOff(env: Record<string, string>): Record<string, string> {
  return 'PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS' in env || 'PUNCTUAL_ALLOWED_NETWORKS' in env
    ? {}
    : { PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS: 'true' };
}

/** The node id a child logged at start, and the (executionId, attempt) pairs it finished (debug lines). */
export function nodeLog(child: ChildServer): { nodeId: string; finished: { executionId: string; attempt: number }[] } {
  let nodeId = '';
  const finished: { executionId: string; attempt: number }[] = [];
  for (const line of child.lines) {
    if (!line.includes('"msg":"dispatch: attempt finished"') && !line.includes('"msg":"punctual is serving"')) continue;
    const rec = JSON.parse(line) as { msg: string; nodeId?: string; executionId?: string; attempt?: number };
    if (rec.msg === 'punctual is serving') nodeId = rec.nodeId ?? '';
    else finished.push({ executionId: rec.executionId!, attempt: rec.attempt! });
  }
  return { nodeId, finished };
}

/** Options of {@link spawnServer}. */
export interface SpawnOptions {
  /** Extra arguments after `serve`, e.g. `['--role', 'dispatcher']`. */
  args?: string[];
  /**
   * true (the default): run the build, `node dist/cli.js serve` (kept fresh by
   * test/support/global-setup.ts); false: the sources through tsx (slower to start).
   */
  built?: boolean;
}

/** The built command (`npm run build`), what the package's `punctual` bin runs. */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/**
 * Spawns `punctual serve` with `env` on an ephemeral port and resolves once it logs
 * "punctual is serving" (rejects if it exits first or takes over 20 s).
 */
export async function spawnServer(env: Record<string, string>, opts: SpawnOptions = {}): Promise<ChildServer> {
  const command = (opts.built ?? true) ? [BUILT_CLI] : ['--import', 'tsx', 'src/cli.ts'];
  const proc = spawn(process.execPath, [...command, 'serve', ...(opts.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...guardOff(env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { url, lines, stderr, exited } = await awaitServing(proc, { what: 'server', timeoutMs: 20_000 });
  return { proc, url, lines, stderr, exited };
}

/** A process that runs `punctual serve` (or a command that starts it), and what it has written. */
export interface Serving {
  /** The URL it serves on, from "punctual is serving"; '' when it stopped at `until`. */
  url: string;
  /** Every stdout line so far (pino JSON, and whatever else the command printed). */
  lines: string[];
  /** Everything written to stderr so far, chunk by chunk. */
  stderr: string[];
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stdout has ended: every process that held it has closed it or ended. */
  outputEnded: Promise<void>;
}

/** Options of {@link awaitServing}. */
export interface ServingOptions {
  /** Names the process in the errors, e.g. `server` or `npm start`. */
  what: string;
  /** How long it may take to serve, ms. */
  timeoutMs: number;
  /** Resolve (with `url` '') at the first stdout line holding this text, if it comes first. */
  until?: string;
}

/**
 * The one reader of a started server's output: collects `proc`'s stdout lines and stderr, and
 * resolves once a line is pino's "punctual is serving" (or holds `o.until`). Rejects with
 * `<what> exited before serving (code, signal)` or `<what> did not serve in <s> s`, stderr
 * appended. `proc` must have been spawned with stdout and stderr piped.
 */
export async function awaitServing(proc: ChildProcess, o: ServingOptions): Promise<Serving> {
  const lines: string[] = [];
  const stderr: string[] = [];
  proc.stderr!.on('data', (c: Buffer) => stderr.push(c.toString()));
  const outputEnded = once(proc.stdout!, 'close').then(() => undefined);
  const exited = once(proc, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`${o.what} did not serve in ${o.timeoutMs / 1000} s\n${stderr.join('')}`)), o.timeoutMs);
    proc.stdout!.on('data', (c: Buffer) => {
      buffer += c.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        const served = servingUrl(line);
        if (served !== null || (o.until !== undefined && line.includes(o.until))) {
          clearTimeout(timer);
          resolve(served ?? '');
        }
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${o.what} exited before serving (code ${code}, signal ${signal})\n${stderr.join('')}`));
    });
  });
  return { url, lines, stderr, exited, outputEnded };
}

/** The URL of a "punctual is serving" line, or null for any other line (JSON or not). */
function servingUrl(line: string): string | null {
  try {
    const rec = JSON.parse(line) as { msg?: string; url?: string };
    return rec.msg === 'punctual is serving' && rec.url ? rec.url : null;
  } catch {
    return null; // not JSON: npm's own lines, for one
  }
}

/**
 * Ends a child: SIGTERM, then SIGKILL after `graceMs` if it is still running. Resolves once it has
 * exited. A child that already exited resolves at once.
 */
export async function stopChild(child: ChildServer, graceMs = 5_000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** fetch with a bearer token and JSON body; returns status and parsed body. */
export async function call(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** Resolves at epoch ms `at` (a wait for a known instant, not a guess). */
export function until(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}

/** A receiver in its own process (test/support/receiver-process.ts): arrivals come over IPC. */
export interface ChildReceiver extends Pick<Receiver, 'url' | 'arrivals' | 'waitFor' | 'close'> {
  /** Answers requests whose path starts with `prefix` after `ms` (instead of at once). */
  delay(prefix: string, ms: number): void;
}

/**
 * Starts a receiver in its own process: its arrival times are taken there, so neither the test's
 * own work nor the nodes' logs parsed here make them late, and it answers bursts at once. Only
 * Punctual's headers are reported (`webhook-id`, `punctual-*`), not bodies.
 */
export async function spawnReceiver(): Promise<ChildReceiver> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/support/receiver-process.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const arrivals: Arrival[] = [];
  const waiters = new Set<() => void>();
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`receiver process exited (${code})`)));
    proc.on('message', (m: { type: string; port?: number; arrivals?: Arrival[] }) => {
      if (m.type === 'listening') resolve(m.port!);
      if (m.type === 'arrivals') {
        arrivals.push(...m.arrivals!);
        for (const w of [...waiters]) w();
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    delay: (prefix, ms) => proc.send({ type: 'delay', prefix, ms }),
    waitFor(pred, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pred(arrivals)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(arrivals);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${arrivals.length} arrivals)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** Endpoints that accept connections in the kernel and never answer (test/support/stuck-process.ts). */
export interface StuckServers {
  /** `http://127.0.0.1:<port>`, one origin each. */
  urls: string[];
  /** Kills the process (SIGKILL: its thread is blocked) and waits for its end. */
  close(): Promise<void>;
}

/** Starts `count` stuck servers in one child process; see test/support/stuck-process.ts. */
export function spawnStuckServers(count: number): Promise<StuckServers> {
  return spawnEndpoints(count, 'hang');
}

/**
 * Starts `count` HTTP servers in one child process that answer 200 at once (test/support/stuck-process.ts,
 * mode `answer`): healthy origins of their own, apart from the test's receiver.
 */
export function spawnAnsweringServers(count: number): Promise<StuckServers> {
  return spawnEndpoints(count, 'answer');
}

async function spawnEndpoints(count: number, mode: 'hang' | 'answer'): Promise<StuckServers> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/support/stuck-process.ts', String(count), mode], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ports = await new Promise<number[]>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`stuck servers process exited (${code})`)));
    proc.once('message', (m: { type: string; ports: number[] }) => resolve(m.ports));
  });
  return {
    urls: ports.map((p) => `http://127.0.0.1:${p}`),
    close: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = once(proc, 'exit');
      proc.kill('SIGKILL');
      await exited;
    },
  };
}
