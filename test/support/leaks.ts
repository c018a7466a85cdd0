/**
 * Looking for secret values where they must not be (docs/security.md, "Job secrets"): in texts
 * and raw bytes, in the spellings a value could take on its way (as given, base64, base64url), and
 * in a dump of a PostgreSQL schema. Not a test file.
 */
import { spawn, spawnSync } from 'node:child_process';
import { expect } from 'vitest';

/** A secret and the spellings of it that must not appear. */
export interface SecretValue {
  /** What it is, for failure messages (`basic password`). */
  label: string;
  /** The spellings: the value itself, its base64 and base64url, and any given in `also`. */
  forms: string[];
}

/**
 * A {@link SecretValue} for `value`: the value, its base64 and base64url (UTF-8), and `also`
 * (e.g. the Basic credentials `base64(user:password)` a call sends).
 */
export function secretValue(label: string, value: string, also: string[] = []): SecretValue {
  const bytes = Buffer.from(value, 'utf8');
  return { label, forms: [...new Set([value, bytes.toString('base64'), bytes.toString('base64url'), ...also])] };
}

/** Fails naming `where` and the secret when any spelling of any of `secrets` is in `haystack` (text or raw bytes). */
export function expectNoSecret(haystack: string | Buffer, secrets: readonly SecretValue[], where: string): void {
  const buf = typeof haystack === 'string' ? Buffer.from(haystack, 'utf8') : haystack;
  for (const s of secrets) {
    for (const form of s.forms) expect(buf.includes(form, 0, 'utf8'), `${where} contains the ${s.label} (${form})`).toBe(false);
  }
}

/** Whether `pg_dump` is on PATH. */
export function hasPgDump(): boolean {
  return spawnSync('pg_dump', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * `pg_dump -h <host> -p <port> -U <user> -n <schema> <database>` of the schema selected by
 * `databaseUrl` (its `schema` parameter): the schema's DDL and every row, as text.
 * @throws Error with pg_dump's stderr when it fails
 */
export function pgDumpSchema(databaseUrl: string): Promise<string> {
  const u = new URL(databaseUrl);
  const schema = u.searchParams.get('schema');
  if (!schema) throw new Error(`${databaseUrl} selects no schema`);
  const args = ['-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username) || 'postgres', '-n', schema, u.pathname.slice(1)];
  const env: Record<string, string> = u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {};
  return new Promise((resolve, reject) => {
    const proc = spawn('pg_dump', args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    proc.once('error', reject);
    proc.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`pg_dump exited ${code}: ${err}`))));
  });
}
