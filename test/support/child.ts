import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A `punctual serve` running in its own process (through tsx, from the sources). */
export interface ChildServer {
  proc: ChildProcess;
  url: string;
  /** Every stdout line (pino JSON) so far. */
  lines: string[];
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `punctual serve` with `env` on an ephemeral port and resolves once it logs
 * "punctual is serving" (rejects if it exits first or takes over 20 s).
 */
export async function spawnServer(env: Record<string, string>): Promise<ChildServer> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = once(proc, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s\n${stderr}`)), 20_000);
    proc.stdout!.on('data', (c: Buffer) => {
      buffer += c.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        try {
          const rec = JSON.parse(line) as { msg?: string; url?: string };
          if (rec.msg === 'punctual is serving' && rec.url) {
            clearTimeout(timer);
            resolve(rec.url);
          }
        } catch {
          // not JSON: ignore
        }
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited before serving (code ${code}, signal ${signal})\n${stderr}`));
    });
  });
  return { proc, url, lines, exited };
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
