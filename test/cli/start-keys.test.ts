/**
 * A start whose keys do not open the stored job secrets is refused (src/serve-store.ts
 * `buildServeKeyRing`, docs/security.md "Job secrets"): on SQLite without the key file (a real
 * `punctual serve` child process: exit code 2, the key id, the key file's path and how to restore
 * it, and no new key file); `--new-key` starts with a new key and records the old one as given
 * up, so later starts warn instead of refusing; an empty store without a key file starts and makes
 * one. On PostgreSQL (PUNCTUAL_TEST_DATABASE_URL) the same rule with `PUNCTUAL_ENCRYPTION_KEYS`.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/main.js';
import { generateKey, keyIdOf } from '../../src/secrets/key-ring.js';
import { SealingKeyMissingError } from '../../src/serve-store.js';
import { call, spawnServer, stopChild } from '../support/child.js';
import { createTestSchema, pgTestUrl } from '../support/pg.js';
import { punctual } from './run.js';

const TOKEN = 'start-keys-test-bootstrap-token-0123456789';

/** A pino logger writing parsed records into `records`. */
function capture(records: Record<string, unknown>[]): Logger {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) records.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  return pino({ level: 'info' }, sink);
}

/** Starts a server in this process on `env`, creates a schedule carrying a secret header, stops it. */
async function storeSecret(env: Record<string, string>): Promise<void> {
  const server = await startServer(loadConfig({ PORT: '0', PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN, ...env }), { logger: pino({ level: 'silent' }) });
  try {
    const r = await call(server.url, TOKEN, 'POST', '/schedules', {
      name: 'with a secret',
      scheduledAt: '2099-01-01T00:00:00Z',
      endpoint: 'https://example.com/hook',
      secretHeaders: { 'X-Api-Key': 'key-value-5t4rt' },
    });
    expect(r.status).toBe(201);
  } finally {
    await server.close();
  }
}

/** The error of a start in this process, or null when it started (then it is closed). */
async function startError(env: Record<string, string>, newKey = false, records: Record<string, unknown>[] = []): Promise<Error | null> {
  try {
    const server = await startServer(loadConfig({ PORT: '0', ...env }), { logger: capture(records), newKey });
    await server.close();
    return null;
  } catch (err) {
    return err as Error;
  }
}

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'punctual-start-keys-')));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('punctual serve on SQLite, with sealed secrets and no key file', () => {
  it('exits 2 naming the key id, the key file and how to restore it; --new-key starts; the old key is given up', async () => {
    const db = join(dir, 'punctual.db');
    const keyFile = `${db}.key`;
    const env = { DATABASE_URL: `file:${db}`, PUNCTUAL_ENCRYPTION_KEYS: '' };
    // An empty store without a key file starts and makes one.
    expect(await startError(env)).toBeNull();
    expect(existsSync(keyFile)).toBe(true);
    await storeSecret(env);
    const oldId = keyIdOf(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64'));
    renameSync(keyFile, join(dir, 'elsewhere.key'));

    const refused = await punctual(['serve'], { ...env, PORT: '0' }, { spawn: true });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`the store holds job secrets sealed with key ${oldId}, but its key file ${keyFile} is missing`);
    expect(refused.stderr).toContain('Restore the key file');
    expect(refused.stderr).toContain('`punctual backup <file>` writes it as <file>.key');
    expect(refused.stderr).toContain('start once with --new-key');
    expect(refused.stderr).not.toContain('key-value-5t4rt');
    expect(existsSync(keyFile)).toBe(false);

    const fresh = await spawnServer({ ...env, LOG_LEVEL: 'info' }, { args: ['--new-key'] });
    await stopChild(fresh);
    const newId = keyIdOf(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64'));
    expect(newId).not.toBe(oldId);
    const warned = fresh.lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((r) => r.level === 40);
    expect(warned.some((r) => r.msg.includes(`job secrets sealed with key ${oldId} cannot be opened (given up with --new-key)`))).toBe(true);

    // Given up: a later start without the flag warns instead of refusing.
    const records: Record<string, unknown>[] = [];
    expect(await startError(env, false, records)).toBeNull();
    expect(records.some((r) => String(r.msg).includes(`key ${oldId} cannot be opened`))).toBe(true);
  }, 90_000);

  it('a key file that lacks the sealing key is refused too, and the key put back opens again', async () => {
    const db = join(dir, 'punctual.db');
    const env = { DATABASE_URL: `file:${db}`, PUNCTUAL_ENCRYPTION_KEYS: '' };
    await storeSecret(env);
    const original = readFileSync(`${db}.key`, 'utf8');
    const oldId = keyIdOf(Buffer.from(original.trim(), 'base64'));
    const other = generateKey().toString('base64');
    rmSync(`${db}.key`);
    writeFileSync(`${db}.key`, `${other}\n`, { mode: 0o600 });
    const err = await startError(env);
    expect(err).toBeInstanceOf(SealingKeyMissingError);
    expect(err!.message).toContain(`sealed with key ${oldId}, which the key file ${db}.key does not hold (it holds key ${keyIdOf(Buffer.from(other, 'base64'))})`);
    writeFileSync(`${db}.key`, `${other}\n${original}`, { mode: 0o600 });
    expect(await startError(env)).toBeNull();
  });
});

describe.skipIf(!pgTestUrl())('punctual serve on PostgreSQL, with sealed secrets', () => {
  it('refuses without PUNCTUAL_ENCRYPTION_KEYS or without the sealing key; starts with it, or with --new-key', async () => {
    const schema = await createTestSchema(pgTestUrl()!);
    try {
      const [k1, k2] = [generateKey(), generateKey()];
      const [id1, id2] = [keyIdOf(k1), keyIdOf(k2)];
      const env = (...keys: Buffer[]) => ({ DATABASE_URL: schema.url, PUNCTUAL_ENCRYPTION_KEYS: keys.map((k) => k.toString('base64')).join(' ') });
      // No secrets yet: starts without keys (and refuses secrets at the API, as before).
      expect(await startError(env())).toBeNull();
      await storeSecret(env(k1));

      const none = await startError(env());
      expect(none).toBeInstanceOf(SealingKeyMissingError);
      expect(none!.message).toContain(`sealed with key ${id1}, and PUNCTUAL_ENCRYPTION_KEYS is not set`);
      const wrong = await startError(env(k2));
      expect(wrong).toBeInstanceOf(SealingKeyMissingError);
      expect(wrong!.message).toContain(`sealed with key ${id1}, which PUNCTUAL_ENCRYPTION_KEYS does not hold (it holds key ${id2})`);
      expect(wrong!.message).toContain('start with --new-key');
      expect(await startError(env(k2, k1))).toBeNull();

      expect(await startError(env(k2), true)).toBeNull();
      const records: Record<string, unknown>[] = [];
      expect(await startError(env(k2), false, records)).toBeNull();
      expect(records.some((r) => String(r.msg).includes(`key ${id1} cannot be opened (given up with --new-key)`))).toBe(true);
    } finally {
      await schema.drop();
    }
  }, 60_000);
});
