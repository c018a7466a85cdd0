/**
 * `punctual backup <file>` (src/cli/backup.ts, docs/deployment.md "Backups"), all real: a
 * `punctual serve` child process on a SQLite file delivers a steady load of calls carrying a secret
 * header to a receiver on 127.0.0.1 while the backup command, another child process, copies the
 * store. The copy opens, passes `PRAGMA integrity_check`, holds the load's jobs, and a server
 * started on it (with the key file written beside it) delivers calls whose secret header opened.
 * The refusals run the command in this process (test/cli/run.ts).
 * The measured delivery rate is printed (`backup under load:`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { call, spawnServer, stopChild, until, type ChildServer } from '../support/child.js';
import { punctual } from './run.js';

const TOKEN = 'backup-test-bootstrap-token-0123456789';
const SECRET = 'secret-header-value-b4ck';

/** A receiver that only counts: the instant of each call and whether it carried the secret header. */
interface Counter {
  url: string;
  at: number[];
  /** Calls whose `x-secret` header was not {@link SECRET}. */
  wrong: number;
  /** Resolves once `n` calls arrived in all; rejects after `ms`. */
  reach(n: number, ms: number): Promise<void>;
  close(): Promise<void>;
}

async function startCounter(): Promise<Counter> {
  const waiters: (() => boolean)[] = [];
  const counter: Counter = {
    url: '',
    at: [],
    wrong: 0,
    reach: (n, ms) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${counter.at.length} of ${n} calls after ${ms} ms`)), ms);
        const check = () => {
          if (counter.at.length < n) return false;
          clearTimeout(timer);
          resolve();
          return true;
        };
        if (!check()) waiters.push(check);
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    counter.at.push(Date.now());
    if (req.headers['x-secret'] !== SECRET) counter.wrong++;
    req.resume();
    req.on('end', () => res.end());
    for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i]!()) waiters.splice(i, 1);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  counter.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return counter;
}

let dir: string;
let children: ChildServer[];
let counter: Counter | null;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'punctual-backup-')));
  children = [];
  counter = null;
});
afterEach(async () => {
  for (const c of children) await stopChild(c);
  await counter?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The settings of a server on the SQLite file `db` with its key file (no PUNCTUAL_ENCRYPTION_KEYS). */
const serveEnv = (db: string) => ({
  DATABASE_URL: `file:${db}`,
  PUNCTUAL_ENCRYPTION_KEYS: '',
  PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
});

describe('punctual backup', () => {
  it('copies the store while serve delivers a steady load; the copy passes integrity_check and serves its jobs with their secrets', async () => {
    const db = join(dir, 'punctual.db');
    const copy = join(dir, 'copy.db');
    const recv = (counter = await startCounter());
    const server = await spawnServer(serveEnv(db));
    children.push(server);

    // One job that never comes due on its own, to be triggered on the copy.
    const kept = await call(server.url, TOKEN, 'POST', '/schedules', {
      name: 'kept',
      scheduledAt: '2099-01-01T00:00:00Z',
      endpoint: `${recv.url}/kept`,
      secretHeaders: { 'X-Secret': SECRET },
    });
    expect(kept.status).toBe(201);
    const keptId = (kept.body as { id: string }).id;

    // The load: one call a millisecond for 5 s, each with a secret header, in 5 batches of 1 s each.
    const N = 5_000;
    const RATE_PER_MS = 1;
    const start = Date.now() + 7_500;
    for (let b = 0; b < N / 1_000; b++) {
      const schedules = Array.from({ length: 1_000 }, (_, i) => ({
        name: `load-${b * 1_000 + i}`,
        scheduledAt: new Date(start + Math.floor((b * 1_000 + i) / RATE_PER_MS)).toISOString(),
        endpoint: `${recv.url}/load`,
        secretHeaders: { 'X-Secret': SECRET },
      }));
      const r = await call(server.url, TOKEN, 'POST', '/schedules/batch', { schedules });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    // Stored before the load starts when the machine allows (about 1 s a batch on a busy one): then
    // the receiver's count is the load alone. Said in the figures, not asserted (only the rate depends on it).
    const lead = start - Date.now();

    // The backup, 0.5 s into the load (the command's own start-up, through tsx, is part of its run).
    await until(start + 500);
    const backupStarted = Date.now();
    const out = await punctual(['backup', copy, '--json'], { DATABASE_URL: `file:${db}`, PUNCTUAL_ENCRYPTION_KEYS: '' }, { spawn: true });
    const backupEnded = Date.now();
    expect(out.code, out.stderr).toBe(0);
    const written = JSON.parse(out.stdout) as { file: string; keyFile: string; keyIds: string[]; pages: number; bytes: number; durationMs: number };
    expect(written).toMatchObject({ file: copy, keyFile: `${copy}.key`, database: db, encryptionKeysFromEnvironment: false });
    expect(out.stderr).toBe('');
    await recv.reach(N, 20_000);
    await stopChild(server);

    // The rate the receiver saw: over the whole load, and while the backup command ran.
    const load = recv.at.slice(0, N);
    const seconds = (load.at(-1)! - load[0]!) / 1_000;
    const during = load.filter((t) => t >= backupStarted && t <= backupEnded).length;
    const duringRate = during / ((backupEnded - backupStarted) / 1_000);
    const before = load.filter((t) => t < backupStarted).length;
    const beforeRate = before / Math.max(0.001, (backupStarted - load[0]!) / 1_000);
    console.log(
      `backup under load: ${N} calls in ${seconds.toFixed(2)} s (${Math.round(N / seconds)}/s); ` +
        `${before} before the backup (${Math.round(beforeRate)}/s), ` +
        `${during} during the backup command's ${backupEnded - backupStarted} ms (${Math.round(duringRate)}/s); ` +
        `copy ${written.bytes} bytes, ${written.pages} pages, backup step ${written.durationMs} ms; batches stored ${lead} ms before the load`,
    );
    expect(recv.wrong).toBe(0);
    expect(during).toBeGreaterThan(0);

    // The copy and its key file: private, the same key as the database's.
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(statSync(`${copy}.key`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${copy}.key`, 'utf8')).toBe(readFileSync(`${db}.key`, 'utf8'));
    expect(existsSync(`${copy}-wal`)).toBe(false);
    const opened = new Database(copy, { readonly: true, fileMustExist: true });
    let pending: number;
    try {
      expect(opened.pragma('integrity_check', { simple: true })).toBe('ok');
      const byStatus = new Map(
        opened.prepare<[], { status: string; n: number }>('SELECT status, count(*) AS n FROM schedules GROUP BY status').all().map((r) => [r.status, r.n]),
      );
      expect([...byStatus.values()].reduce((a, b) => a + b, 0)).toBe(N + 1);
      // Taken in the middle of the load: some calls were made, some not yet.
      pending = (byStatus.get('Pending') ?? 0) - 1;
      expect(byStatus.get('Succeeded') ?? 0).toBeGreaterThan(0);
      expect(pending).toBeGreaterThan(0);
    } finally {
      opened.close();
    }

    // A server on the copy (its key file beside it) makes the calls the copy still owed, and a
    // trigger: each carries the secret header, so the secrets opened.
    const restored = await spawnServer(serveEnv(copy));
    children.push(restored);
    expect(restored.lines.join('\n')).not.toContain('generated the encryption key');
    const triggered = await call(restored.url, TOKEN, 'POST', `/schedules/${keptId}/trigger`);
    expect(triggered.status).toBe(202);
    await recv.reach(N + pending + 1, 20_000);
    expect(recv.wrong).toBe(0);
  }, 120_000);

  it('refuses PostgreSQL, an existing file without --force, a missing database; writes no key file with --no-key', async () => {
    const db = join(dir, 'p.db');
    const env = { DATABASE_URL: `file:${db}`, PUNCTUAL_ENCRYPTION_KEYS: '' };
    const missing = await punctual(['backup', join(dir, 'b.db')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no database at ${db}`);

    const store = await openStore(`file:${db}`);
    await store.migrate();
    await store.close();
    writeFileSync(`${db}.key`, `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 });
    const first = await punctual(['backup', join(dir, 'b.db')], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`backed up ${db} to ${join(dir, 'b.db')}`);
    expect(first.stdout).toContain(`with its key file ${join(dir, 'b.db.key')}`);

    const again = await punctual(['backup', join(dir, 'b.db')], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${join(dir, 'b.db')} exists: choose another file, or add --force`);
    expect((await punctual(['backup', join(dir, 'b.db'), '--force'], env)).code).toBe(0);

    const noKey = await punctual(['backup', join(dir, 'c.db'), '--no-key'], env);
    expect(noKey.code).toBe(0);
    expect(existsSync(join(dir, 'c.db'))).toBe(true);
    expect(existsSync(join(dir, 'c.db.key'))).toBe(false);
    expect(noKey.stderr).toContain(`--no-key: the key file ${db}.key was not copied`);

    const keysInEnv = await punctual(['backup', join(dir, 'd.db')], { ...env, PUNCTUAL_ENCRYPTION_KEYS: Buffer.alloc(32, 9).toString('base64') });
    expect(keysInEnv.code).toBe(0);
    expect(keysInEnv.stderr).toContain('PUNCTUAL_ENCRYPTION_KEYS is set: those keys are not in the backup');

    const pg = await punctual(['backup', join(dir, 'e.db')], { DATABASE_URL: 'postgres://postgres:pw@127.0.0.1:1/none' });
    expect(pg.code).toBe(2);
    expect(pg.stderr).toContain('punctual backup copies SQLite stores only. Back PostgreSQL up with pg_dump');
    expect(pg.stderr).not.toContain(':pw@');
    expect(existsSync(join(dir, 'e.db'))).toBe(false);
  }, 120_000);
});
