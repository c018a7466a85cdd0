/**
 * No job secret leaks (docs/security.md, "Job secrets"): on every store, `node dist/cli.js serve`
 * (the build: `npm run build`) at LOG_LEVEL=trace gets schedules and a cron job with distinctive
 * secret headers, Basic, bearer and OAuth 2.0 credentials and signing secrets; calls succeed, one
 * refreshes its OAuth token after a 401, one fails; invalid bodies carrying secrets are refused.
 * Then no spelling of any secret (nor the OAuth access tokens handed out, nor the encryption key)
 * is in any API answer, attempt, log line, `/metrics`, the SQLite file and its WAL, or a
 * `pg_dump` of the PostgreSQL schema; and a stolen SQLite file without its key opens none.
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../src/domain/signing-secret.js';
import { SecretKeyMissingError } from '../../src/secrets/errors.js';
import { generateKey, KeyRing } from '../../src/secrets/key-ring.js';
import { BUILT_CLI, spawnServer, stopChild, type ChildServer } from '../support/child.js';
import { expectNoSecret, hasPgDump, pgDumpSchema, secretValue, type SecretValue } from '../support/leaks.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { STORES, type TestDatabase } from '../support/stores.js';
import { startTokenEndpoint, type TokenEndpoint } from '../support/token-endpoint.js';

const TOKEN = 'secret-leaks-bootstrap-token-0123456789';
const KEY = generateKey();
const KEY_ID = new KeyRing([KEY]).currentKeyId;
const V = {
  header: 'leak-header-value-Qm7Zt2',
  patched: 'leak-patched-header-Wd4Lp0',
  password: 'leak-basic-password-Xk94Rb',
  bearer: 'leak-bearer-token-Jd83Nc',
  clientSecret: 'leak-client-secret-Vn15Hs',
  failing: 'leak-failing-header-Ty62Ge',
  signing: generateSigningSecret(),
};
const RETRY_ONCE = { maxAttempts: 1, initialDelayMs: 1000, maxDelayMs: 1000 };

type Json = Record<string, unknown>;
interface Execution {
  id: string;
  status: string;
  attempts: { statusCode: number | null; error: string | null }[];
}

if (!existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: npm run build`);

describe.each(STORES)('no secret value leaks ($name)', (store) => {
  let db: TestDatabase;
  let receiver: Receiver;
  let tokens: TokenEndpoint;
  let child: ChildServer;
  /** The text of every API answer, except the one that shows a generated signing secret once. */
  const answers: string[] = [];
  const generated: string[] = [];
  let secrets: SecretValue[] = [];

  const api = async (method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(child.url + path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined && raw === undefined ? {} : { 'content-type': 'application/json' }) },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    if (!path.endsWith('/signing-secret')) answers.push(text);
    return { status: res.status, body: text !== '' && text.startsWith('{') ? (JSON.parse(text) as Json) : {} };
  };
  const soon = () => new Date(Date.now() + 50).toISOString();
  const schedule = async (path: string, fields: Json): Promise<string> => {
    const res = await api('POST', '/schedules', { name: path, scheduledAt: soon(), endpoint: receiver.url + path, ...fields });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  const ended = async (prefix: string, id: string): Promise<Execution> => {
    for (let i = 0; i < 750; i++) {
      const [e] = (await api('GET', `${prefix}/${id}/executions`)).body.executions as Execution[];
      if (e && (e.status === 'Succeeded' || e.status === 'Failed')) return e;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`the execution of ${id} did not end`);
  };
  const header = (path: string, name: string) => receiver.arrivals.filter((a) => a.path === path).map((a) => String(a.headers[name]));

  beforeAll(async () => {
    db = await store.create();
    receiver = await startReceiver();
    tokens = await startTokenEndpoint('leak-access-token-');
    child = await spawnServer(
      { DATABASE_URL: db.url, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN, PUNCTUAL_ENCRYPTION_KEYS: KEY.toString('base64'), LOG_LEVEL: 'trace' },
      { built: true },
    );
  });
  afterAll(async () => {
    if (child) await stopChild(child);
    await receiver?.close();
    await tokens?.close();
    await db?.drop();
  });

  it('calls carry the secrets; answers, attempts, logs, /metrics and the database hold none', async () => {
    const oauth = { type: 'oauth2', tokenUrl: tokens.url, clientId: 'leaks', clientSecret: V.clientSecret, scope: 'jobs' };
    receiver.respond('/oauth-401', [{ status: 401 }, { status: 200 }]);
    receiver.respond('/fail', { status: 500, body: 'refused' });
    const ids = {
      headers: await schedule('/headers', { secretHeaders: { 'X-Api-Key': V.header }, signingSecret: V.signing }),
      basic: await schedule('/basic', { auth: { type: 'basic', username: 'reports', password: V.password } }),
      bearer: await schedule('/bearer', { auth: { type: 'bearer', token: V.bearer } }),
      oauth: await schedule('/oauth', { auth: oauth }),
      refresh: await schedule('/oauth-401', { auth: oauth }),
      fail: await schedule('/fail', { secretHeaders: { 'X-Failing': V.failing }, auth: { type: 'bearer', token: V.bearer }, retry: RETRY_ONCE }),
    };
    const later = await api('POST', '/schedules', {
      name: 'later',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      endpoint: receiver.url + '/later',
      secretHeaders: { 'X-Api-Key': V.header },
    });
    expect((await api('PATCH', `/schedules/${later.body.id as string}`, { secretHeaders: { 'X-Api-Key': V.patched } })).status).toBe(200);
    const cron = await api('POST', '/cron', {
      expression: '* * * * * *',
      endpoint: receiver.url + '/cron',
      secretHeaders: { 'X-Api-Key': V.header },
      auth: { type: 'bearer', token: V.bearer },
    });
    expect(cron.status).toBe(201);
    const cronId = cron.body.id as string;
    const made = await api('POST', `/cron/${cronId}/signing-secret`);
    generated.push((made.body as { signingSecret: string }).signingSecret);
    expect(generated[0]).toMatch(/^whsec_/);

    // Invalid bodies carrying secrets: refused, naming fields, never quoting the values.
    const base = { name: 'bad', scheduledAt: soon(), endpoint: receiver.url + '/bad' };
    const refusals: [string, string, unknown, string?][] = [
      ['POST', '/schedules', { ...base, name: '', secretHeaders: { 'X-Api-Key': V.header }, auth: { type: 'bearer', token: V.bearer } }],
      ['POST', '/schedules', { ...base, secretHeaders: { 'X-Bad': `${V.header}\r\nInjected: 1` } }],
      ['POST', '/schedules', { ...base, secretHeaders: V.header }],
      ['POST', '/schedules', { ...base, secretHeaders: { Host: V.header } }],
      ['POST', '/schedules', { ...base, auth: { type: 'bearer', token: V.bearer, password: V.password } }],
      ['POST', '/schedules', { ...base, auth: { type: 'digest', password: V.password } }],
      ['POST', '/schedules', { ...base, auth: { type: 'basic', username: 'a:b', password: V.password } }],
      ['POST', '/schedules', { ...base, auth: { type: 'oauth2', tokenUrl: 'ftp://x', clientId: 'c', clientSecret: V.clientSecret } }],
      ['POST', '/schedules', { ...base, auth: { type: 'bearer', token: `${V.bearer}\u0007` } }],
      ['POST', '/schedules', { ...base, signingSecret: `whsec_${V.clientSecret}` }],
      ['POST', '/schedules', { ...base, signingSecret: V.signing, password: V.password }],
      ['POST', '/cron', { expression: 'not cron', endpoint: receiver.url + '/bad', auth: { type: 'bearer', token: V.bearer } }],
      ['PATCH', `/cron/${cronId}`, { secretHeaders: { 'X-Api-Key': V.header }, headers: { 'x-api-key': V.password } }],
      ['PATCH', `/schedules/${ids.headers}`, { secretHeaders: { 'X-Api-Key': V.patched } }], // no longer Pending: 409
      ['POST', '/schedules', undefined, `{"auth":{"type":"bearer","token":"${V.bearer}"`],
    ];
    for (const [method, path, body, raw] of refusals) {
      const res = await api(method, path, body, raw);
      expect(res.status, `${method} ${path} ${JSON.stringify(body ?? raw)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }

    // The calls happened, with the secrets.
    await receiver.waitFor((all) => ['/headers', '/basic', '/bearer', '/oauth', '/fail'].every((p) => all.some((a) => a.path === p)));
    await receiver.waitFor((all) => all.filter((a) => a.path === '/oauth-401').length >= 2 && all.filter((a) => a.path === '/cron').length >= 2);
    expect((await api('PATCH', `/cron/${cronId}`, { status: 'Paused' })).status).toBe(200);
    expect(header('/headers', 'x-api-key')).toEqual([V.header]);
    expect(header('/basic', 'authorization')).toEqual([`Basic ${Buffer.from(`reports:${V.password}`).toString('base64')}`]);
    expect(header('/bearer', 'authorization')).toEqual([`Bearer ${V.bearer}`]);
    expect(header('/fail', 'x-failing')).toEqual([V.failing]);
    expect(header('/cron', 'x-api-key')).toContain(V.header);
    const refreshed = header('/oauth-401', 'authorization');
    expect(tokens.issued.length).toBeGreaterThanOrEqual(2);
    expect(refreshed.slice(0, 2).map((h) => tokens.issued.includes(h.slice('Bearer '.length)))).toEqual([true, true]);
    expect(refreshed[1]).not.toBe(refreshed[0]);

    for (const [name, id] of Object.entries(ids)) expect((await ended('/schedules', id)).status, name).toBe(name === 'fail' ? 'Failed' : 'Succeeded');

    // Every answer a key holder can get.
    for (const path of ['/schedules', '/cron', '/api-keys', '/openapi.json', '/metrics', `/cron/${cronId}`, `/cron/${cronId}/executions`]) {
      expect((await api('GET', path)).status, path).toBe(200);
    }
    for (const id of [...Object.values(ids), later.body.id as string]) {
      await api('GET', `/schedules/${id}`);
      const list = (await api('GET', `/schedules/${id}/executions`)).body.executions as Execution[];
      for (const e of list) await api('GET', `/executions/${e.id}`);
    }
    const metrics = answers.find((a) => a.includes('punctual_secret_decrypt_failures_total'));
    expect(metrics).toBeDefined();

    secrets = [
      secretValue('secret header', V.header),
      secretValue('patched secret header', V.patched),
      secretValue('secret header of the failing job', V.failing),
      secretValue('basic password', V.password, [Buffer.from(`reports:${V.password}`).toString('base64')]),
      secretValue('bearer token', V.bearer),
      secretValue('OAuth client secret', V.clientSecret, [encodeURIComponent(V.clientSecret)]),
      ...tokens.issued.map((t) => secretValue('OAuth access token', t)),
      secretValue('job signing secret', V.signing, [V.signing.slice('whsec_'.length)]),
      ...generated.map((g) => secretValue('generated signing secret', g, [g.slice('whsec_'.length)])),
      secretValue('encryption key', KEY.toString('base64'), [KEY.toString('hex')]),
    ];
    expect(answers.length).toBeGreaterThan(40);
    expectNoSecret(answers.join('\n'), secrets, 'an API answer');

    if (store.name === 'sqlite') {
      const file = db.url.slice('file:'.length);
      const bytes = Buffer.concat([await readFile(file), existsSync(`${file}-wal`) ? await readFile(`${file}-wal`) : Buffer.alloc(0)]);
      expect(bytes.includes(`v1.${KEY_ID}.`), 'the database holds sealed values').toBe(true);
      expectNoSecret(bytes, secrets, 'the SQLite file or its WAL');
    }
  });

  it('the logs at trace hold none', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    await stopChild(child);
    expect(await child.exited).toEqual({ code: 0, signal: null });
    const logs = [...child.lines, ...child.stderr].join('\n');
    const levels = child.lines.map((l) => (JSON.parse(l) as { level: number }).level);
    expect(levels.filter((l) => l <= 20).length, `debug lines were written (levels: ${levels.join(",")})`).toBeGreaterThan(10);
    expectNoSecret(logs, secrets, 'the logs');
  });

  // Registered only for its store (a skipped PostgreSQL test fails CI's check that they all ran).
  if (store.name === 'sqlite') it('the SQLite file and WAL after the stop hold none; stolen without its key, they open none', async () => {
    const file = db.url.slice('file:'.length);
    expect(existsSync(`${file}.key`), 'no key file beside the database').toBe(false);
    const stolen = await mkdtemp(join(tmpdir(), 'punctual-stolen-'));
    try {
      for (const suffix of ['', '-wal']) if (existsSync(file + suffix)) await copyFile(file + suffix, join(stolen, `p.db${suffix}`));
      const raw = Buffer.concat([await readFile(join(stolen, 'p.db')), existsSync(join(stolen, 'p.db-wal')) ? await readFile(join(stolen, 'p.db-wal')) : Buffer.alloc(0)]);
      expectNoSecret(raw, secrets, 'the stolen SQLite file');
      const conn = new Database(join(stolen, 'p.db'), { readonly: true });
      const rows = conn
        .prepare('SELECT id, secrets FROM schedules WHERE secrets IS NOT NULL UNION ALL SELECT id, secrets FROM cron_jobs WHERE secrets IS NOT NULL')
        .all() as { id: string; secrets: string }[];
      conn.close();
      expect(rows.length).toBe(8);
      const other = new KeyRing([generateKey()]);
      for (const row of rows) {
        for (const [field, sealed] of Object.entries(JSON.parse(row.secrets) as Record<string, string>)) {
          expectNoSecret(sealed, secrets, `the sealed ${field}`);
          expect(() => other.open(sealed, { jobId: row.id, field })).toThrow(SecretKeyMissingError);
          expect(new KeyRing([KEY]).open(sealed, { jobId: row.id, field }).length).toBeGreaterThan(0);
        }
      }
    } finally {
      await rm(stolen, { recursive: true, force: true });
    }
  });

  if (store.name === 'postgres') it('a pg_dump of the schema holds none', async (ctx) => {
    if (!hasPgDump()) {
      console.warn('pg_dump is not installed: the dump of the PostgreSQL schema was not searched');
      ctx.skip();
    }
    const dump = await pgDumpSchema(db.url);
    expect(dump).toContain(`v1.${KEY_ID}.`);
    expectNoSecret(dump, secrets, 'the pg_dump');
  });
});
