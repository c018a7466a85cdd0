/**
 * Where tokens may and may not be (docs/security.md): only in the answer to `POST /api-keys`. Never
 * in the logs, a listing or an error body; the store holds only their SHA-256 digests.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED_PATHS } from '../../src/logger.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { digestToken } from '../../src/service/tokens.js';
import { openStore } from '../../src/store/open.js';
import { openHarness, type Harness } from '../http/harness.js';
import { captureLogger, type CapturedLogger } from '../support/logger.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** A captured pino logger at `trace`: as production's (`createLogger`), or without its redaction. */
function capture(redact: boolean): CapturedLogger {
  return captureLogger({ level: 'trace', ...(redact ? { redact: { paths: REDACTED_PATHS, censor: '[redacted]' } } : {}) });
}

/** Pieces of a token that must not appear: the whole, its random part, and each 12-character window of it. */
function piecesOf(token: string): string[] {
  const random = token.replace(/^pk_/, '');
  const pieces = [token, random];
  for (let i = 0; i + 12 <= random.length; i += 6) pieces.push(random.slice(i, i + 12));
  return pieces;
}

function expectNoToken(text: string, tokens: string[], where: string) {
  for (const token of tokens) {
    for (const piece of piecesOf(token)) expect(text.includes(piece), `${where} contains ${piece} of a token`).toBe(false);
  }
}

/**
 * A session that creates keys and uses them, fails authentication in every way, and hits every
 * kind of error, the store failing included. Returns every token involved (real and wrong ones).
 */
async function session(harness: Harness): Promise<string[]> {
  const { app, headers } = harness;
  const tokens = [harness.token];
  const json = { ...headers, 'content-type': 'application/json' };

  // Keys made and used, listed, read, renamed, disabled, deleted.
  for (const name of ['ci', 'ops']) {
    const res = await app.inject({ method: 'POST', url: '/api-keys', headers, payload: { name } });
    expect(res.statusCode).toBe(201);
    tokens.push(res.json().token);
  }
  const [, ci, ops] = tokens as [string, string, string];
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });
  expect((await app.inject({ method: 'GET', url: '/api-keys', headers: auth(ci) })).statusCode).toBe(200);
  const list = await app.inject({ method: 'GET', url: '/api-keys', headers: auth(ops) });
  const opsId = (list.json().apiKeys as { id: string; name: string }[]).find((k) => k.name === 'ops')!.id;
  await app.inject({ method: 'PATCH', url: `/api-keys/${opsId}`, headers: auth(ci), payload: { status: 'Disabled' } });
  expect((await app.inject({ method: 'GET', url: '/schedules', headers: auth(ops) })).statusCode).toBe(403);
  await app.inject({ method: 'DELETE', url: `/api-keys/${opsId}`, headers: auth(ci) });
  expect((await app.inject({ method: 'GET', url: '/schedules', headers: auth(ops) })).statusCode).toBe(401);

  // Failed authentication: wrong tokens (one differing from a real one in its last character),
  // odd headers, a token in the wrong place.
  const wrong = ['pk_' + 'W'.repeat(43), ci.slice(0, -1) + (ci.endsWith('A') ? 'B' : 'A'), 'pk_short'];
  tokens.push(...wrong);
  for (const t of wrong) expect((await app.inject({ method: 'GET', url: '/cron', headers: auth(t) })).statusCode).toBe(401);
  await app.inject({ method: 'GET', url: '/cron', headers: { authorization: `Basic ${Buffer.from(`user:${ci}`).toString('base64')}` } });
  await app.inject({ method: 'GET', url: `/cron?token=${ci}`, headers: {} });
  await app.inject({ method: 'GET', url: `/api-keys/${ci}`, headers: auth(ci) }); // a token in the path: logged as pk_[redacted]
  await app.inject({ method: 'GET', url: '/cron', headers: { authorization: `Bearer ${ci}`, 'x-api-key': ci, cookie: `token=${ci}` } });

  // Errors of every kind, with a valid token.
  const bad = [
    { method: 'POST', url: '/schedules', headers: json, payload: '{"name":' },
    { method: 'POST', url: '/schedules', headers: json, payload: JSON.stringify({ name: '', token: ci }) },
    { method: 'POST', url: '/schedules', headers: { ...headers, 'content-type': 'text/plain' }, payload: 'x' },
    { method: 'POST', url: '/schedules', headers: json, payload: JSON.stringify({ data: 'x'.repeat(1_100_000) }) },
    { method: 'GET', url: '/nope', headers },
    { method: 'GET', url: '/schedules/%ZZ', headers },
    { method: 'PATCH', url: '/cron/01a1fe1c-0000-7000-8000-000000000000', headers, payload: {} },
    { method: 'POST', url: '/api-keys', headers: json, payload: JSON.stringify({ name: 'x', token: ci }) },
  ] as const;
  for (const req of bad) {
    const res = await app.inject(req as InjectOptions);
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
  }
  // The store failing under a request that carries a token.
  await harness.store.close();
  expect((await app.inject({ method: 'GET', url: '/schedules', headers: auth(ci) })).statusCode).toBe(503);
  await app.close();
  return tokens;
}

describe('tokens never reach the logs', () => {
  it.each([
    ['with the production logger (redaction on)', true],
    ['even without redaction: nothing logs headers or tokens in the first place', false],
  ])('%s', async (_label, redact) => {
    const { logger, lines } = capture(redact);
    h = await openHarness({ logger });
    const tokens = await session(h);
    expect(lines.length).toBeGreaterThan(20); // requests, errors and the store failure were logged
    const all = lines.join('\n');
    expect(all).toMatch(/store unavailable/); // the 503 was logged with its error
    expectNoToken(all, tokens, 'the logs');
    expect(all.toLowerCase()).not.toContain('authorization');
    expect(all).not.toMatch(/bearer\s/i); // the scheme in a header value ("bearerAuth" in a stack is fine)
    // Nor the digests, from which a token cannot be found, but which name keys in the store.
    for (const token of tokens) expect(all).not.toContain(digestToken(token));
  });
});

describe('tokens never reach a listing or an error body', () => {
  it('only the answer to POST /api-keys holds the token; listings, reads, patches and errors never do', async () => {
    h = await openHarness();
    const { app, headers } = h;
    const created = await app.inject({ method: 'POST', url: '/api-keys', headers, payload: { name: 'k' } });
    const { id, token } = created.json();
    expect(token).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    const bodies: string[] = [];
    const send = async (req: InjectOptions) => {
      const res = await app.inject(req);
      bodies.push(res.body);
      return res;
    };
    await send({ method: 'GET', url: '/api-keys', headers });
    await send({ method: 'GET', url: `/api-keys/${id}`, headers });
    await send({ method: 'PATCH', url: `/api-keys/${id}`, headers, payload: { name: 'renamed' } });
    await send({ method: 'GET', url: '/api-keys', headers: { authorization: `Bearer ${token}` } });
    // Errors in which the token is involved: wrong by one character, refused fields, disabled, throttled.
    await send({ method: 'GET', url: '/api-keys', headers: { authorization: `Bearer ${token}x` } });
    await send({ method: 'GET', url: '/api-keys', headers: { authorization: `Bearer ${token.slice(0, -1)}` } });
    await send({ method: 'PATCH', url: `/api-keys/${id}`, headers, payload: { token } });
    await send({ method: 'POST', url: '/api-keys', headers, payload: { name: 'n', token } });
    await send({ method: 'PATCH', url: `/api-keys/${id}`, headers, payload: { status: 'Disabled' } });
    await send({ method: 'GET', url: '/api-keys', headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 51; i++) await send({ method: 'GET', url: '/cron', headers: { authorization: `Bearer ${token}y` } });
    const throttled = await send({ method: 'GET', url: '/cron', headers: { authorization: `Bearer ${token}` } });
    expect(throttled.statusCode).toBe(429);
    expect(bodies).toHaveLength(62);
    expectNoToken(bodies.join('\n'), [token], 'an answer');
    expect(bodies.join('\n')).not.toContain(digestToken(token));
  });
});

describe('the store holds digests only', () => {
  it('no piece of any token is anywhere in the database files; each key row has the SHA-256 digest', async () => {
    h = await openHarness();
    const tokens = [h.token];
    for (let i = 0; i < 5; i++) {
      const res = await h.app.inject({ method: 'POST', url: '/api-keys', headers: h.headers, payload: { name: `k${i}` } });
      tokens.push(res.json().token);
      await h.app.inject({ method: 'GET', url: '/schedules', headers: { authorization: `Bearer ${res.json().token}` } });
    }
    await h.app.punctual.lastUsed.flush();

    // Every file of the database (main file, WAL, shared memory), byte by byte, as latin1 so
    // that any byte sequence can be searched for.
    const files = (await readdir(h.dir)).filter((f) => f.startsWith('test.db'));
    expect(files).toContain('test.db');
    let bytes = '';
    for (const f of files) bytes += (await readFile(join(h.dir, f))).toString('latin1');
    expectNoToken(bytes, tokens, 'the database files');
    for (const token of tokens) expect(bytes).toContain(digestToken(token)); // what is there instead

    // And the key table says so: its columns, and each digest is SHA-256 of a token.
    const db = new Database(h.dbFile, { readonly: true });
    try {
      const columns = (db.prepare('SELECT name FROM pragma_table_info(?)').all('api_keys') as { name: string }[]).map((c) => c.name);
      expect(columns.sort()).toEqual(['created_at', 'digest', 'expires_at', 'id', 'last_used', 'name', 'previous_digest', 'previous_expires_at', 'scopes', 'status']);
      const digests = (db.prepare('SELECT digest FROM api_keys').all() as { digest: string }[]).map((r) => r.digest);
      expect(digests.sort()).toEqual(tokens.map(digestToken).sort());
      for (const d of digests) expect(d).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      db.close();
    }
  });

  it('keys made outside HTTP (the CLI path) are stored the same way', async () => {
    h = await openHarness();
    const store = await openStore('file:' + h.dbFile);
    try {
      const { token } = await createApiKey(store, h.clock, { name: 'cli' });
      const db = new Database(h.dbFile, { readonly: true });
      const row = db.prepare("SELECT * FROM api_keys WHERE name = 'cli'").get() as Record<string, unknown>;
      db.close();
      expect(row.digest).toBe(digestToken(token));
      expect(JSON.stringify(row)).not.toContain(token.slice(3, 15));
    } finally {
      await store.close();
    }
  });
});
