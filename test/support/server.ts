import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { guardOff } from './child.js';
import { SQLITE, type StoreKind } from './stores.js';

/** A token for the bootstrap key of test servers (≥ 32 chars). */
export const TEST_TOKEN = 'test-bootstrap-token-0123456789abcdef';

/** A running in-process server on a fresh database, plus a fetch helper that authenticates. */
export interface TestServer extends RunningServer {
  databaseUrl: string;
  /** fetch against the server with `Authorization: Bearer TEST_TOKEN` and JSON bodies. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Stops the server and removes its database (temp dir or PostgreSQL schema). */
  stop(): Promise<void>;
}

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** The store to serve from: a fresh database of it (default SQLite; see test/support/stores.ts). */
  store?: StoreKind;
}

/**
 * Starts `punctual serve` in this process on 127.0.0.1:0 with a fresh database of `opts.store`
 * (a SQLite file in a temp dir, or a PostgreSQL schema of its own), dropped at `stop()`.
 */
export async function startTestServer(env: Record<string, string> = {}, opts: TestServerOptions = {}): Promise<TestServer> {
  const db = await (opts.store ?? SQLITE).create();
  let server: RunningServer;
  try {
    const config = loadConfig({ PORT: '0', DATABASE_URL: db.url, PUNCTUAL_BOOTSTRAP_TOKEN: TEST_TOKEN, ...guardOff(env), ...env });
    server = await startServer(config, { logger: pino({ level: 'silent' }) });
  } catch (err) {
    await db.drop();
    throw err;
  }
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
    databaseUrl: db.url,
    api,
    stop: async () => {
      try {
        await server.close();
      } finally {
        await db.drop();
      }
    },
  };
}

/** The q-quantile (0..1) of `values` by the nearest-rank method. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}
