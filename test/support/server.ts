import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/main.js';

/** A token for the bootstrap key of test servers (≥ 32 chars). */
export const TEST_TOKEN = 'test-bootstrap-token-0123456789abcdef';

/** A running in-process server on a temp SQLite file, plus a fetch helper that authenticates. */
export interface TestServer extends RunningServer {
  dir: string;
  databaseUrl: string;
  /** fetch against the server with `Authorization: Bearer TEST_TOKEN` and JSON bodies. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Stops the server and removes the temp dir. */
  stop(): Promise<void>;
}

/** Starts `punctual serve` in this process on 127.0.0.1:0 with a fresh SQLite file. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'punctual-test-'));
  const databaseUrl = `file:${join(dir, 'punctual.db')}`;
  const config = loadConfig({ PORT: '0', DATABASE_URL: databaseUrl, PUNCTUAL_BOOTSTRAP_TOKEN: TEST_TOKEN, ...env });
  const server = await startServer(config, { logger: pino({ level: 'silent' }) });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
  return {
    ...server,
    dir,
    databaseUrl,
    api,
    stop: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The q-quantile (0..1) of `values` by the nearest-rank method. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}
