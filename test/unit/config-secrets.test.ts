/**
 * Secrets in the configuration (src/config.ts, src/env-files.ts; docs/configuration.md "Secrets in
 * files"): PUNCTUAL_ENCRYPTION_KEYS, and the <NAME>_FILE convention of Docker and Kubernetes
 * secrets, with real files in a temp dir.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { FILE_VARIABLES, resolveFileEnv } from '../../src/env-files.js';
import { generateKey, keyIdOf } from '../../src/secrets/key-ring.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punctual-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The ConfigError `loadConfig(env)` throws, as text (fails the test when it does not throw). */
function configError(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('PUNCTUAL_ENCRYPTION_KEYS', () => {
  it('reads one or more base64 keys separated by spaces, newest first', () => {
    const [a, b] = [generateKey(), generateKey()];
    expect(loadConfig({ PUNCTUAL_ENCRYPTION_KEYS: a.toString('base64') }).encryptionKeys?.keyIds).toEqual([keyIdOf(a)]);
    const ring = loadConfig({ PUNCTUAL_ENCRYPTION_KEYS: ` ${b.toString('base64')}  ${a.toString('base64')} ` }).encryptionKeys;
    expect(ring?.keyIds).toEqual([keyIdOf(b), keyIdOf(a)]);
    expect(ring?.currentKeyId).toBe(keyIdOf(b));
    expect(loadConfig({ PUNCTUAL_ENCRYPTION_KEYS: '  ' }).encryptionKeys).toBeNull();
  });

  it('reports a bad key by its position, never printing any key', () => {
    const good = generateKey().toString('base64');
    const short = Buffer.from('sixteen-byte-key').toString('base64');
    const message = configError({ PUNCTUAL_ENCRYPTION_KEYS: `${good} ${short}` });
    expect(message).toContain('PUNCTUAL_ENCRYPTION_KEYS: key #2 must be base64 of 32 bytes');
    expect(message).not.toContain(good);
    expect(message).not.toContain(short);
    expect(configError({ PUNCTUAL_ENCRYPTION_KEYS: `${good} ${good}` })).toContain('key #2 is the same as key #1');
  });
});

describe('<NAME>_FILE', () => {
  it('covers every secret the service reads from its environment', () => {
    expect([...FILE_VARIABLES].sort()).toEqual(['DATABASE_URL', 'PUNCTUAL_BOOTSTRAP_TOKEN', 'PUNCTUAL_ENCRYPTION_KEYS', 'PUNCTUAL_SIGNING_SECRET']);
  });

  it('reads each variable from its file, trailing line breaks removed', async () => {
    const key = generateKey().toString('base64');
    const signing = `whsec_${generateKey().toString('base64')}`;
    const token = 'file-bootstrap-token-0123456789abcdef';
    const files: Record<string, [file: string, content: string]> = {
      DATABASE_URL_FILE: ['db', 'postgres://user:pw@db.example:5432/punctual\n'],
      PUNCTUAL_ENCRYPTION_KEYS_FILE: ['keys', `${key}\n`],
      PUNCTUAL_SIGNING_SECRET_FILE: ['signing', `${signing}\r\n`],
      PUNCTUAL_BOOTSTRAP_TOKEN_FILE: ['token', `${token}\n\n`],
    };
    const env: Record<string, string> = {};
    for (const [name, [file, content]] of Object.entries(files)) {
      const path = join(dir, file);
      env[name] = path;
      await writeFile(path, content);
    }
    const config = loadConfig(env);
    expect(config.databaseUrl).toBe('postgres://user:pw@db.example:5432/punctual');
    expect(config.encryptionKeys?.keyIds).toEqual([keyIdOf(Buffer.from(key, 'base64'))]);
    expect(config.signingSecrets).toEqual([signing]);
    expect(config.bootstrapToken).toBe(token);
    expect(resolveFileEnv(env).sources.DATABASE_URL).toEqual({ from: 'file', path: join(dir, 'db') });
    // The caller's environment is not changed.
    expect(env).not.toHaveProperty('DATABASE_URL');
  });

  it('refuses a variable set both ways, naming both, and reports every problem at once', async () => {
    const path = join(dir, 'both');
    await writeFile(path, 'file:/srv/other.db\n');
    const message = configError({ DATABASE_URL: 'file:/srv/p.db', DATABASE_URL_FILE: path, PORT: 'eighty' });
    expect(message).toContain('DATABASE_URL and DATABASE_URL_FILE are both set');
    expect(message).toContain('PORT=');
    expect(message).not.toContain('/srv/other.db');
  });

  it('names an unreadable file and its error code, never its content', async () => {
    const missing = join(dir, 'missing');
    expect(configError({ PUNCTUAL_SIGNING_SECRET_FILE: missing })).toContain(
      `PUNCTUAL_SIGNING_SECRET_FILE=${missing}: the file cannot be read (ENOENT)`,
    );
    expect(configError({ PUNCTUAL_BOOTSTRAP_TOKEN_FILE: dir })).toContain('the file cannot be read (EISDIR)');
    const empty = join(dir, 'empty');
    await writeFile(empty, '\n');
    expect(configError({ DATABASE_URL_FILE: empty })).toContain(`DATABASE_URL_FILE=${empty}: the file is empty`);

    const locked = join(dir, 'locked');
    const secret = 'locked-bootstrap-token-0123456789abcdef';
    await writeFile(locked, secret);
    await chmod(locked, 0o000);
    try {
      // root reads files whatever their mode: then the token is simply read.
      if (process.getuid?.() === 0) expect(loadConfig({ PUNCTUAL_BOOTSTRAP_TOKEN_FILE: locked }).bootstrapToken).toBe(secret);
      else {
        const message = configError({ PUNCTUAL_BOOTSTRAP_TOKEN_FILE: locked });
        expect(message).toContain(`PUNCTUAL_BOOTSTRAP_TOKEN_FILE=${locked}: the file cannot be read (EACCES)`);
        expect(message).not.toContain(secret);
      }
    } finally {
      await chmod(locked, 0o600);
    }
  });

  it('checks a value read from a file like one from the environment, without printing it', async () => {
    const path = join(dir, 'short-token');
    await writeFile(path, 'too-short-token\n');
    const message = configError({ PUNCTUAL_BOOTSTRAP_TOKEN_FILE: path });
    expect(message).toContain('PUNCTUAL_BOOTSTRAP_TOKEN must be at least 32 characters (it has 15)');
    expect(message).not.toContain('too-short-token');

    const keys = join(dir, 'bad-keys');
    await writeFile(keys, 'c2hvcnQ=\n');
    const keyMessage = configError({ PUNCTUAL_ENCRYPTION_KEYS_FILE: keys });
    expect(keyMessage).toContain('PUNCTUAL_ENCRYPTION_KEYS: key #1 must be base64 of 32 bytes');
    expect(keyMessage).not.toContain('c2hvcnQ');
  });

  it('treats an empty variable as unset: an empty NAME beside NAME_FILE is not a conflict', async () => {
    const path = join(dir, 'url');
    await writeFile(path, 'file:/srv/from-file.db');
    expect(loadConfig({ DATABASE_URL: '', DATABASE_URL_FILE: path }).databaseUrl).toBe('file:/srv/from-file.db');
    expect(loadConfig({ DATABASE_URL: 'file:/srv/env.db', DATABASE_URL_FILE: '' }).databaseUrl).toBe('file:/srv/env.db');
  });
});
