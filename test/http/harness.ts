/**
 * An app on a real SQLite file in a temp dir, with a key, for the HTTP, fuzz and security tests.
 * Not a test file itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildApp, type AppDeps } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

/** A clock tests set by hand (epoch ms, UTC). */
export interface ManualClock {
  t: number;
  now(): number;
}

/** 2026-11-21T10:00:00.000Z, the instant the tests start at. */
export const T0 = Date.parse('2026-11-21T10:00:00.000Z');

/** A clock at {@link T0}. */
export function manualClock(t = T0): ManualClock {
  return { t, now() { return this.t; } };
}

/** A running app, its store and the token of an `Enabled` key. */
export interface Harness {
  app: FastifyInstance;
  store: Store;
  clock: ManualClock;
  dir: string;
  dbFile: string;
  token: string;
  keyId: string;
  /** `{ authorization: 'Bearer <token>' }`. */
  headers: Record<string, string>;
  /** Closes the app and the store and removes the temp dir. */
  close(): Promise<void>;
}

/** Opens a fresh SQLite store in a temp dir (a copy of a migrated template) and builds the app on it with `options`. */
export async function openHarness(options: Partial<Omit<AppDeps, 'store'>> = {}, clock = manualClock()): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'punctual-harness-'));
  const dbFile = join(dir, 'test.db');
  await copyMigratedSqlite(dbFile);
  const store = await openStore('file:' + dbFile);
  await store.migrate(); // nothing to do: the copy is migrated
  const app = await buildApp({ clock, ...options, store });
  const { token, apiKey } = await createApiKey(store, clock, { name: 'harness' });
  return {
    app,
    store,
    clock,
    dir,
    dbFile,
    token,
    keyId: apiKey.id,
    headers: { authorization: `Bearer ${token}` },
    close: async () => {
      await app.close();
      await store.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Asserts an RFC 9457 problem with `status`; returns its body. */
export function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
): Record<string, unknown> & { errors?: { path: string; message: string }[] } {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown> & { errors?: { path: string; message: string }[] };
  expect(body.status).toBe(status);
  for (const k of ['type', 'title', 'detail']) expect(typeof body[k]).toBe('string');
  return body;
}

/** Everything the store holds that a request could have changed, for before/after comparisons. */
export async function snapshot(store: Store): Promise<unknown> {
  const [apiKeys, schedules, cronJobs] = await Promise.all([store.apiKeyList(), store.scheduleList(), store.cronList()]);
  const executions = await Promise.all(
    [...schedules.map((s) => ['schedule', s.id] as const), ...cronJobs.map((c) => ['cron', c.id] as const)].map(([jobType, jobId]) =>
      store.executionList({ jobType, jobId, limit: 100, cursor: null }),
    ),
  );
  // lastUsed moves with every authenticated request; it is not something a request "stores".
  return { apiKeys: apiKeys.map(({ lastUsed: _lastUsed, ...k }) => k), schedules, cronJobs, executions };
}

/**
 * Every row of every table of a SQLite store file, as one string, read through its own read-only
 * connection (WAL: it sees every committed write). `api_keys.last_used` is left out: it moves
 * with every authenticated request. Cheaper than {@link snapshot} on a store with many jobs (a
 * few queries instead of one per job), and it sees internal columns too.
 */
export function databaseDumper(dbFile: string): { dump(): string; close(): void } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
    (t) => t.name,
  );
  const reads = tables.map((table) => {
    const columns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[])
      .map((c) => c.name)
      .filter((c) => !(table === 'api_keys' && c === 'last_used'));
    // A WITHOUT ROWID table (schedule_tags) has no rowid: its rows in key order, by every column.
    const withoutRowid = (db.prepare('SELECT wr FROM pragma_table_list WHERE name = ?').get(table) as { wr: number } | undefined)?.wr === 1;
    const order = withoutRowid ? columns.map((_, i) => i + 1).join(', ') : 'rowid';
    // Failed sign-ins are counted in the audit log by design (an `auth.failure` event per address
    // and minute), as `last_used` moves on a key's use: neither is a change a request made.
    const where = table === 'audit_events' ? ` WHERE action <> 'auth.failure'` : '';
    return db.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${table}"${where} ORDER BY ${order}`).raw();
  });
  return {
    dump: () => JSON.stringify(reads.map((read) => read.all())),
    close: () => db.close(),
  };
}
