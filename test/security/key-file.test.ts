/**
 * The key ring of `punctual serve` (src/serve-store.ts `buildServeKeyRing`, src/secrets/key-file.ts;
 * docs/security.md "Job secrets"): on SQLite without PUNCTUAL_ENCRYPTION_KEYS, a key file beside
 * the database, made at the first start with mode 0600 and its path logged once, then reused; on
 * PostgreSQL without keys, no key ring. Real files in temp dirs, real child processes, the real
 * PostgreSQL when PUNCTUAL_TEST_DATABASE_URL is set.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/main.js';
import { generateKey, KeyRing, keyIdOf } from '../../src/secrets/key-ring.js';
import { SECRETS_NEED_KEYS } from '../../src/service/context.js';
import { spawnServer, stopChild } from '../support/child.js';
import { captureLogger } from '../support/logger.js';
import { createTestSchema, pgTestUrl } from '../support/pg.js';

const place = { jobId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', field: 'authorization' };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punctual-keyfile-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('punctual serve on SQLite without PUNCTUAL_ENCRYPTION_KEYS', () => {
  it('makes <database>.key (mode 0600, one base64 key) at the first start, logs its path once, and reuses it', async () => {
    const db = join(dir, 'punctual.db');
    const keyFile = `${db}.key`;
    const env = { DATABASE_URL: `file:${db}`, PUNCTUAL_ENCRYPTION_KEYS: '' };

    const first = await spawnServer(env);
    await stopChild(first);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const content = await readFile(keyFile, 'utf8');
    expect(content).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(Buffer.from(content.trim(), 'base64')).toHaveLength(32);
    const told = first.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.keyFile === keyFile);
    expect(told).toHaveLength(1);
    expect(told[0]!.level).toBe(30); // info
    expect(told[0]!.msg).toContain(keyFile);
    expect(told[0]!.msg).toMatch(/back it up, separately from the database/i);
    expect(first.lines.join('\n')).not.toContain(content.trim());

    const second = await spawnServer(env);
    await stopChild(second);
    expect(await readFile(keyFile, 'utf8')).toBe(content);
    expect(second.lines.some((l) => l.includes(keyFile))).toBe(false);
    expect((await readdir(dir)).filter((f) => f.endsWith('.key'))).toEqual(['punctual.db.key']);
  });

  it('opens after a restart what it sealed before (in-process startServer, the same key file)', async () => {
    const log = captureLogger({ level: 'info' });
    const config = loadConfig({ PORT: '0', DATABASE_URL: `file:${join(dir, 'p.db')}` });
    const first = await startServer(config, { logger: log.logger });
    const sealed = first.keyRing!.seal('s3cr3t', place);
    await first.close();
    expect(log.records().filter((r) => r.keyFile === join(dir, 'p.db.key'))).toHaveLength(1);

    const second = await startServer(config, { logger: log.logger });
    try {
      expect(second.keyRing!.keyIds).toEqual(first.keyRing!.keyIds);
      expect(second.keyRing!.open(sealed, place)).toBe('s3cr3t');
    } finally {
      await second.close();
    }
    expect(log.records().filter((r) => r.keyFile === join(dir, 'p.db.key'))).toHaveLength(1);
  });

  it('refuses to start on a key file that holds no valid key, naming the file and not its content', async () => {
    const db = join(dir, 'punctual.db');
    await writeFile(`${db}.key`, 'not-a-key-but-a-secret-looking-text\n', { mode: 0o600 });
    const child = spawnServer({ DATABASE_URL: `file:${db}` });
    const err = (await child.then(
      () => null,
      (e: unknown) => e,
    )) as Error | null;
    expect(err?.message).toContain('server exited before serving (code 2');
    expect(err?.message).toContain(`encryption key file ${db}.key: key #1 must be base64 of 32 bytes`);
    expect(err?.message).not.toContain('not-a-key-but-a-secret-looking-text');
  });

  it('uses PUNCTUAL_ENCRYPTION_KEYS when set, and then makes no key file', async () => {
    const key = generateKey();
    const config = loadConfig({ PORT: '0', DATABASE_URL: `file:${join(dir, 'p.db')}`, PUNCTUAL_ENCRYPTION_KEYS: key.toString('base64') });
    const server = await startServer(config, { logger: pino({ level: 'silent' }) });
    await server.close();
    expect(server.keyRing!.keyIds).toEqual([keyIdOf(key)]);
    expect(await readdir(dir)).not.toContain('p.db.key');
  });
});

describe.skipIf(!pgTestUrl())('punctual serve on PostgreSQL', () => {
  it('without PUNCTUAL_ENCRYPTION_KEYS has no key ring and says so at start; with it, uses it', async () => {
    const schema = await createTestSchema(pgTestUrl()!);
    const log = captureLogger({ level: 'info' });
    try {
      const server = await startServer(loadConfig({ PORT: '0', DATABASE_URL: schema.url }), { logger: log.logger });
      await server.close();
      expect(server.keyRing).toBeNull();
      expect(log.records().some((r) => r.level === 40 && String(r.msg).includes('PUNCTUAL_ENCRYPTION_KEYS is not set'))).toBe(true);
      expect(SECRETS_NEED_KEYS).toContain('PUNCTUAL_ENCRYPTION_KEYS');

      const key = generateKey();
      const keyed = await startServer(loadConfig({ PORT: '0', DATABASE_URL: schema.url, PUNCTUAL_ENCRYPTION_KEYS: key.toString('base64') }), {
        logger: pino({ level: 'silent' }),
      });
      await keyed.close();
      expect(keyed.keyRing).toBeInstanceOf(KeyRing);
      expect(keyed.keyRing!.currentKeyId).toBe(keyIdOf(key));
    } finally {
      await schema.drop();
    }
  });
});
