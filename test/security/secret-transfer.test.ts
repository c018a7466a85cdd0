/**
 * `punctual migrate-store` and job secrets (docs/deployment.md, "Moving from SQLite to
 * PostgreSQL"; docs/security.md, "Job secrets"): the copy carries each job's sealed values
 * unchanged (the `secrets` column's text is the same on both sides), needs no key, and neither its
 * output nor a `pg_dump` of the target holds a secret; a node on the target with the same keys
 * makes the jobs' calls with their secrets. The build (`node dist/cli.js`), real child processes,
 * a real SQLite file and the real PostgreSQL.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../src/domain/signing-secret.js';
import { generateKey, KeyRing } from '../../src/secrets/key-ring.js';
import { BUILT_CLI, call, spawnServer, stopChild, type ChildServer } from '../support/child.js';
import { punctual } from '../cli/run.js';
import { expectNoSecret, hasPgDump, pgDumpSchema, secretValue } from '../support/leaks.js';
import { adminQuery } from '../support/pg.js';
import { startReceiver, type Arrival, type Receiver } from '../support/receiver.js';
import { POSTGRES, SQLITE, type TestDatabase } from '../support/stores.js';

const TOKEN = 'secret-transfer-bootstrap-token-012345678';
const KEY = generateKey().toString('base64');
const KEY_ID = new KeyRing([Buffer.from(KEY, 'base64')]).currentKeyId;
const V = { header: 'moved-header-value-Pz81Kq', password: 'moved-basic-password-Lc27Wm', bearer: 'moved-bearer-token-Rf40Yd', signing: generateSigningSecret() };
const SECRETS = [
  secretValue('secret header', V.header),
  secretValue('basic password', V.password, [Buffer.from(`reports:${V.password}`).toString('base64')]),
  secretValue('bearer token', V.bearer),
  secretValue('job signing secret', V.signing, [V.signing.slice('whsec_'.length)]),
  secretValue('encryption key', KEY),
];
const SEALED_COLUMNS = 'SELECT id, secrets FROM schedules WHERE secrets IS NOT NULL UNION ALL SELECT id, secrets FROM cron_jobs WHERE secrets IS NOT NULL';

if (!existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: npm run build`);

describe.skipIf(POSTGRES === null)('migrate-store carries sealed secrets unchanged: SQLite → postgres', () => {
  let src: TestDatabase;
  let dst: TestDatabase;
  let receiver: Receiver;
  let child: ChildServer | undefined;

  const serve = async (url: string) => {
    child = await spawnServer({ DATABASE_URL: url, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN, PUNCTUAL_ENCRYPTION_KEYS: KEY, LOG_LEVEL: 'trace' }, { built: true });
    return child;
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await call(child!.url, TOKEN, method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body as { id: string };
  };
  const arrival = async (path: string): Promise<Arrival> =>
    (await receiver.waitFor((all) => all.some((a) => a.path === path))).find((a) => a.path === path)!;
  const soon = () => new Date(Date.now() + 50).toISOString();

  beforeAll(async () => {
    src = await SQLITE.create();
    dst = await POSTGRES!.create();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (child) await stopChild(child);
    await receiver?.close();
    await src?.drop();
    await dst?.drop();
  });

  it('copies the sealed values as they are, showing none; with the same keys the calls carry them', async () => {
    await serve(src.url);
    await api('POST', '/schedules', { name: 'due', scheduledAt: soon(), endpoint: `${receiver.url}/due`, secretHeaders: { 'X-Api-Key': V.header } });
    const later = await api('POST', '/schedules', {
      name: 'later',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      endpoint: `${receiver.url}/later`,
      secretHeaders: { 'X-Api-Key': V.header },
      auth: { type: 'basic', username: 'reports', password: V.password },
    });
    const cron = await api('POST', '/cron', {
      expression: '0 0 1 1 *',
      endpoint: `${receiver.url}/cron`,
      secretHeaders: { 'X-Api-Key': V.header },
      auth: { type: 'bearer', token: V.bearer },
      signingSecret: V.signing,
    });
    expect((await arrival('/due')).headers['x-api-key']).toBe(V.header);
    await stopChild(child!);

    // The copy: no key given, nothing shown.
    const copy = await punctual(['migrate-store', '--from', src.url, '--to', dst.url], {}, { built: true });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stdout).toMatch(/copied .*2 schedules, 1 cron jobs, 1 executions/);
    expectNoSecret(copy.stdout + copy.stderr, SECRETS, 'the output of migrate-store');

    // The `secrets` column, text for text.
    const conn = new Database(src.url.slice('file:'.length), { readonly: true });
    const before = (conn.prepare(SEALED_COLUMNS).all() as { id: string; secrets: string }[]).sort((a, b) => (a.id < b.id ? -1 : 1));
    conn.close();
    const schema = new URL(dst.url).searchParams.get('schema')!;
    const after = await adminQuery<{ id: string; secrets: string }>(
      dst.url,
      SEALED_COLUMNS.replaceAll('secrets FROM ', 'secrets::text AS secrets FROM ').replace(/FROM (\w+)/g, `FROM "${schema}".$1`) + ' ORDER BY id',
    );
    expect(before).toHaveLength(3);
    expect(before.every((r) => r.secrets.includes(`"v1.${KEY_ID}.`))).toBe(true);
    expect(after).toEqual(before);

    if (hasPgDump()) {
      const dump = await pgDumpSchema(dst.url);
      for (const row of before) for (const sealed of Object.values(JSON.parse(row.secrets) as Record<string, string>)) expect(dump).toContain(sealed);
      expectNoSecret(dump, SECRETS, 'the pg_dump of the target');
    } else {
      console.warn('pg_dump is not installed: the dump of the target schema was not searched');
    }

    // A node on the target with the same keys: the jobs' calls carry their secrets.
    await serve(dst.url);
    await api('PATCH', `/schedules/${later.id}`, { scheduledAt: soon() });
    await api('POST', `/cron/${cron.id}/trigger`);
    const moved = await arrival('/later');
    expect(moved.headers['x-api-key']).toBe(V.header);
    expect(moved.headers.authorization).toBe(`Basic ${Buffer.from(`reports:${V.password}`).toString('base64')}`);
    const triggered = await arrival('/cron');
    expect(triggered.headers['x-api-key']).toBe(V.header);
    expect(triggered.headers.authorization).toBe(`Bearer ${V.bearer}`);
    expect(() => new Webhook(V.signing).verify(triggered.body, triggered.headers as Record<string, string>)).not.toThrow();
    await stopChild(child!);
    expectNoSecret([...child!.lines, ...child!.stderr].join('\n'), SECRETS, 'the logs of the node on the target');
  });
});
