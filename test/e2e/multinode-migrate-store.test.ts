import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SIGNING_SECRET_SETTING } from '../../src/dispatch/call/signing.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { parseDatabaseUrl } from '../../src/store/open.js';
import { openPostgresTransferSource } from '../../src/store/postgres/queries/transfer.js';
import { openSqliteTransferSource } from '../../src/store/sqlite/queries/transfer.js';
import { TRANSFER_KINDS, type TransferKind, type TransferRecords } from '../../src/store/transfer/records.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { SQLITE, STORES, type TestDatabase } from '../support/stores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'migrate-store-bootstrap-token-0123456789';

/** Runs `punctual <args>` (from the sources) to its end. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Everything in the store at `url`, read through its transfer source (a snapshot), by kind. */
async function dump(url: string): Promise<{ [K in TransferKind]: TransferRecords[K][] }> {
  const target = parseDatabaseUrl(url);
  const source = target.kind === 'sqlite' ? openSqliteTransferSource(target.path) : await openPostgresTransferSource(target.url);
  try {
    const out = {} as { [K in TransferKind]: TransferRecords[K][] };
    for (const kind of TRANSFER_KINDS) {
      const all: unknown[] = [];
      let cursor: string | null = null;
      do {
        const page: { records: unknown[]; cursor: string | null } = await source.read(kind, { cursor, limit: 2 });
        all.push(...page.records);
        cursor = page.cursor;
      } while (cursor !== null);
      // Kinds without a list order come in each store's own order: compare them by key.
      if (kind === 'executions') all.sort((a, b) => ((a as { id: string }).id < (b as { id: string }).id ? -1 : 1));
      if (kind === 'settings') all.sort((a, b) => ((a as { key: string }).key < (b as { key: string }).key ? -1 : 1));
      (out as Record<TransferKind, unknown[]>)[kind] = all;
    }
    return out;
  } finally {
    await source.close();
  }
}

/**
 * `punctual migrate-store` (docs/multinode.md): a SQLite store with keys, a generated signing
 * secret, schedules, cron jobs and executions with attempts is copied into an empty store of each
 * kind (PostgreSQL when configured; SQLite always, which exercises both SQLite ends); the copy
 * holds the same records (read back, pages of 2, so paging is exercised), and a node serving the
 * copy authenticates the old tokens, shows the history, fires what is due and signs with the old
 * secret.
 */
describe.each(STORES)('migrate-store: SQLite → $name', (targetStore) => {
  let receiver: Receiver;
  let src: TestDatabase;
  let dst: TestDatabase;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    receiver = await startReceiver();
    src = await SQLITE.create();
    dst = await targetStore.create();
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await src?.drop();
    await dst?.drop();
  });

  const start = (url: string) =>
    startServer(loadConfig({ PORT: '0', DATABASE_URL: url, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN, PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS: 'true' }), {
      logger: pino({ level: 'silent' }),
    });
  const api = async (method: string, path: string, body?: unknown, token = TOKEN) => {
    const res = await fetch(server!.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as unknown };
  };
  const arrivals = (path: string) => receiver.arrivals.filter((a) => a.path === path);

  it('copies keys, the signing secret, jobs and history; a node on the copy serves them', async () => {
    // 1. History on the SQLite node.
    server = await start(src.url);
    const second = (await api('POST', '/api-keys', { name: 'second' })).body as { id: string; token: string };
    const off = (await api('POST', '/api-keys', { name: 'off' })).body as { id: string; token: string };
    expect((await api('PATCH', `/api-keys/${off.id}`, { status: 'Disabled' })).status).toBe(200);
    receiver.respond('/flaky', [{ status: 503 }, { status: 200, body: 'thanks' }]);
    const flaky = (
      await api('POST', '/schedules', {
        name: 'flaky',
        scheduledAt: new Date(Date.now() + 50).toISOString(),
        endpoint: `${receiver.url}/flaky`,
        data: { n: 1 },
        tags: ['migrated'],
        retry: { initialDelayMs: 100, maxDelayMs: 1_000 },
      })
    ).body as { id: string };
    const later = (
      await api('POST', '/schedules', { name: 'later', scheduledAt: new Date(Date.now() + 3_600_000).toISOString(), endpoint: `${receiver.url}/later` })
    ).body as { id: string };
    const tick = (await api('POST', '/cron', { expression: '* * * * * *', endpoint: `${receiver.url}/tick`, name: 'tick' })).body as { id: string };
    const paused = (await api('POST', '/cron', { expression: '0 0 1 1 *', endpoint: `${receiver.url}/yearly` })).body as { id: string };
    expect((await api('PATCH', `/cron/${paused.id}`, { status: 'Paused' })).status).toBe(200);
    const onCall = (
      await api('POST', '/notification-channels', {
        name: 'on call',
        type: 'slack',
        url: `${receiver.url}/slack`,
        events: ['cron.auto_paused', 'job.recovered'],
        jobIds: [paused.id],
      })
    ).body as { id: string };
    await receiver.waitFor((a) => a.filter((x) => x.path === '/flaky').length >= 2 && a.filter((x) => x.path === '/tick').length >= 2);
    await expect.poll(async () => ((await api('GET', `/schedules/${flaky.id}`)).body as { status: string }).status).toBe('Succeeded');
    // Due while no node runs: fires after the move, on the new store.
    const soon = (
      await api('POST', '/schedules', { name: 'soon', scheduledAt: new Date(Date.now() + 1_000).toISOString(), endpoint: `${receiver.url}/soon` })
    ).body as { id: string };
    await server.close();
    server = undefined;
    const stoppedAt = Date.now();
    expect(arrivals('/soon')).toHaveLength(0);
    // What only a claim after an outage writes (docs/cron.md): an execution standing for missed
    // occurrences and a count of skipped ones, set here in the file so the copy must carry them.
    const srcTarget = parseDatabaseUrl(src.url);
    if (srcTarget.kind !== 'sqlite') throw new Error('the source is SQLite');
    const file = new Database(srcTarget.path);
    const tickRun = file.prepare<[string], { id: string; scheduled_for: number }>(
      `SELECT id, scheduled_for FROM executions WHERE job_id = ? ORDER BY scheduled_for LIMIT 1`,
    ).get(tick.id)!;
    file
      .prepare(`UPDATE executions SET missed_count = 3, missed_first = scheduled_for, missed_last = scheduled_for + 2000, missed_capped = 0 WHERE id = ?`)
      .run(tickRun.id);
    file.prepare(`UPDATE cron_jobs SET skipped_occurrences = 7 WHERE id = ?`).run(tick.id);
    file.close();
    const before = await dump(src.url);
    expect(before.executions.find((e) => e.id === tickRun.id)?.missedOccurrences).toEqual({
      count: 3,
      first: tickRun.scheduled_for,
      last: tickRun.scheduled_for + 2000,
      capped: false,
    });
    expect(before.cronJobs.find((j) => j.id === tick.id)?.skippedOccurrences).toBe(7);
    expect(before.executions.length).toBeGreaterThanOrEqual(3);
    expect(before.settings.map((s) => s.key)).toContain(SIGNING_SECRET_SETTING);
    expect(before.notificationChannels.map((c) => c.id)).toEqual([onCall.id]);

    // 2. The move, with the command a user runs.
    const moved = await cli(['migrate-store', '--from', src.url, '--to', dst.url]);
    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/copied 3 API keys, 1 settings, 3 schedules, 2 cron jobs, \d+ executions, 1 notification channels/);
    expect(await dump(dst.url)).toEqual(before);
    // A second run refuses: the target is not empty.
    const again = await cli(['migrate-store', '--from', src.url, '--to', dst.url]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/not empty/);

    // 3. A node on the copy.
    server = await start(dst.url);
    const startedAt = Date.now();
    expect((await api('GET', '/api-keys', undefined, second.token)).status).toBe(200);
    expect((await api('GET', '/api-keys', undefined, off.token)).status).toBe(403);
    const keys = (await api('GET', '/api-keys')).body as { apiKeys: { name: string }[] };
    expect(keys.apiKeys.map((k) => k.name)).toEqual(['bootstrap', 'second', 'off']);
    const history = (await api('GET', `/schedules/${flaky.id}/executions`)).body as {
      executions: { status: string; attempts: { statusCode: number; responseBody: string }[] }[];
    };
    expect(history.executions).toHaveLength(1);
    expect(history.executions[0]!.attempts.map((a) => a.statusCode)).toEqual([503, 200]);
    expect(history.executions[0]!.attempts[1]!.responseBody).toBe('thanks');
    expect(((await api('GET', `/schedules/${later.id}`)).body as { status: string }).status).toBe('Pending');
    expect(((await api('GET', `/cron/${paused.id}`)).body as { status: string }).status).toBe('Paused');
    // The copy's tag index was filled by its own triggers: the list filters find the copies.
    const tagged = (await api('GET', '/schedules?tag=migrated')).body as { schedules: { id: string }[] };
    expect(tagged.schedules.map((x) => x.id)).toEqual([flaky.id]);
    const pausedJobs = (await api('GET', '/cron?status=Paused')).body as { cronJobs: { id: string }[] };
    expect(pausedJobs.cronJobs.map((x) => x.id)).toEqual([paused.id]);
    // What came due while no node ran fires once, on the new node; the cron job goes on; both are
    // signed with the secret generated on the SQLite node.
    await receiver.waitFor((a) => a.some((x) => x.path === '/soon') && a.filter((x) => x.path === '/tick' && x.at >= startedAt).length >= 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(arrivals('/soon')).toHaveLength(1);
    expect(arrivals('/soon')[0]!.at).toBeGreaterThanOrEqual(stoppedAt);
    expect(((await api('GET', `/schedules/${soon.id}`)).body as { status: string }).status).not.toBe('Pending');
    const secret = before.settings.find((s) => s.key === SIGNING_SECRET_SETTING)!.value;
    for (const a of [...arrivals('/soon'), ...arrivals('/tick').filter((x) => x.at >= startedAt)]) {
      expect(() => new Webhook(secret).verify(a.body, a.headers as Record<string, string>)).not.toThrow();
    }
    const cronJob = (await api('GET', `/cron/${tick.id}`)).body as { invocations: number };
    const cronHistory = (await api('GET', `/cron/${tick.id}/executions?limit=100`)).body as { executions: unknown[] };
    expect(cronHistory.executions.length).toBe(cronJob.invocations);
    expect(cronJob.invocations).toBeGreaterThan(before.executions.filter((e) => e.jobId === tick.id).length);
  }, 30_000);
});
