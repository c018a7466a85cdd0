/**
 * The commands that work on the store directly (`punctual keys …` without a service URL, and
 * `punctual signing-secret` when no secret is configured) find the database or say why not: with
 * no SQLite file where `DATABASE_URL` (or `DATABASE_URL_FILE`, or its default,
 * data/punctual.db in the working directory) points, they exit with 2, name the absolute path
 * they looked at and the ways to point them elsewhere, and create nothing. Real child processes.
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { punctual } from './run.js';

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'punctual-cli-db-')));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('keys commands without a database', () => {
  it('in an empty folder without DATABASE_URL: exit 2, the default path named, the folder left empty', async () => {
    for (const args of [['keys', 'create', 'admin'], ['keys', 'list'], ['keys', 'list', '--local']]) {
      const r = await punctual(args, {}, { cwd: dir });
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`no database at ${join(dir, 'data', 'punctual.db')}`);
      expect(r.stderr).toContain('DATABASE_URL is not set');
      expect(r.stderr).toContain('PUNCTUAL_URL');
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('with DATABASE_URL naming a missing file: exit 2, that absolute path named, nothing created', async () => {
    const r = await punctual(['keys', 'create', 'admin'], { DATABASE_URL: 'file:./elsewhere/p.db' }, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no database at ${join(dir, 'elsewhere', 'p.db')} (DATABASE_URL=file:./elsewhere/p.db)`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('work on the database once it exists (`punctual migrate` made it)', async () => {
    const env = { DATABASE_URL: `file:${join(dir, 'p.db')}` };
    expect((await punctual(['migrate'], env, { cwd: dir })).code).toBe(0);
    const r = await punctual(['keys', 'create', 'admin'], env, { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Created API key "admin"/);
  });

  it('read DATABASE_URL from DATABASE_URL_FILE (Docker and Kubernetes secrets), named in their messages', async () => {
    const secrets = join(dir, 'secrets');
    mkdirSync(secrets);
    const urlFile = join(secrets, 'database-url');
    writeFileSync(urlFile, `file:${join(dir, 'f.db')}\n`);
    const env = { DATABASE_URL_FILE: urlFile };
    const missing = await punctual(['keys', 'list'], env, { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no database at ${join(dir, 'f.db')} (DATABASE_URL_FILE=${urlFile} holds file:${join(dir, 'f.db')})`);

    expect((await punctual(['migrate'], env, { cwd: dir })).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['f.db', 'secrets']);
    expect((await punctual(['keys', 'create', 'admin'], env, { cwd: dir })).stdout).toMatch(/Created API key "admin"/);

    const both = await punctual(['migrate'], { ...env, DATABASE_URL: `file:${join(dir, 'f.db')}` }, { cwd: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('DATABASE_URL and DATABASE_URL_FILE are both set');
  });
});

describe('signing-secret without a database', () => {
  it('in an empty folder without DATABASE_URL: exit 2, the absolute default path named, nothing created', async () => {
    const r = await punctual(['signing-secret'], { PUNCTUAL_SIGNING_SECRET: '' }, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`no database at ${join(dir, 'data', 'punctual.db')}`);
    expect(r.stderr).toContain('DATABASE_URL is not set');
    // No API serves the secret: the message does not send the user there.
    expect(r.stderr).not.toContain('PUNCTUAL_URL');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('with PUNCTUAL_SIGNING_SECRET set: prints it, opens no store, creates nothing', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const r = await punctual(['signing-secret'], { PUNCTUAL_SIGNING_SECRET: secret }, { cwd: dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${secret}\n`, '']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('prints the same generated secret each time once the database exists', async () => {
    const env = { DATABASE_URL: `file:${join(dir, 'p.db')}`, PUNCTUAL_SIGNING_SECRET: '' };
    expect((await punctual(['migrate'], env, { cwd: dir })).code).toBe(0);
    const first = await punctual(['signing-secret'], env, { cwd: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^whsec_[A-Za-z0-9+/]+=*\n$/);
    expect((await punctual(['signing-secret'], env, { cwd: dir })).stdout).toBe(first.stdout);
  });
});
