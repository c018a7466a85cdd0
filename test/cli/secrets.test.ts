/**
 * `punctual secrets rekey` (docs/cli.md, docs/security.md "Rotating the key"): run in this
 * process (test/cli/run.ts) on a real SQLite file and a real PostgreSQL schema. Jobs are made through the store
 * with secrets sealed by key A (as the service seals them); the command, with the keys "B A",
 * re-seals them so that key B alone opens them all; a job sealed with a key the ring lacks is
 * reported and makes the exit code 1; a second run writes nothing.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import type { SealedSecrets } from '../../src/domain/types.js';
import { openJobSecrets, sealJobSecrets, type JobSecretsPatch } from '../../src/secrets/job-secrets.js';
import { generateKey, KeyRing } from '../../src/secrets/key-ring.js';
import type { RekeyOutput } from '../../src/cli/secrets.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { createTestSchema, pgTestUrl } from '../support/pg.js';
import { startTestServer } from '../support/server.js';
import { punctual } from './run.js';

const T0 = Date.UTC(2030, 0, 1);
const RETRY = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000 };
const [A, B, C] = [generateKey(), generateKey(), generateKey()];
const b64 = (k: Buffer) => k.toString('base64');
const ringA = new KeyRing([A]);
const ringB = new KeyRing([B]);
/** What the command is given: B newest, A still opening. */
const KEYS_B_A = `${b64(B)} ${b64(A)}`;

const PATCH: JobSecretsPatch = {
  secretHeaders: { 'X-Api-Key': 'k-123', 'X-Other': 'o-456' },
  auth: { type: 'basic', username: 'ada', password: 'pw' },
  signingSecret: `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`,
};

/** A job of each type sealed by `ring`, and one schedule without secrets. @returns the ids with secrets */
async function seed(store: Store, ring: KeyRing, n: number): Promise<{ jobType: 'schedule' | 'cron'; id: string }[]> {
  const made: { jobType: 'schedule' | 'cron'; id: string }[] = [];
  for (let i = 0; i < n; i++) {
    const id = newId();
    const sealed = sealJobSecrets(ring, id, null, PATCH);
    const common = { endpoint: 'https://example.com/hook', retry: RETRY, timeoutMs: 1000, now: T0, auth: sealed.auth, secrets: sealed.secrets };
    if (i % 2 === 0) {
      await store.scheduleCreate({ id, name: `s${i}`, scheduledAt: T0 + 3_600_000, data: {}, tags: [], ...common });
      made.push({ jobType: 'schedule', id });
    } else {
      await store.cronCreate({
        id,
        expression: '* * * * *',
        name: null,
        timezone: null,
        data: null,
        nextInvocation: T0 + 3_600_000,
        misfire: 'once',
        overlap: 'allow',
        ...common,
      });
      made.push({ jobType: 'cron', id });
    }
  }
  await store.scheduleCreate({ id: newId(), name: 'plain', scheduledAt: T0, endpoint: 'https://example.com/', data: {}, tags: [], retry: RETRY, timeoutMs: 1000, now: T0 });
  return made;
}

/** A job's stored secrets. */
async function secretsOf(store: Store, job: { jobType: 'schedule' | 'cron'; id: string }): Promise<SealedSecrets> {
  const row = job.jobType === 'schedule' ? await store.scheduleGet({ id: job.id }) : await store.cronGet({ id: job.id });
  return row!.secrets!;
}

/** `punctual secrets rekey --json` on `databaseUrl`. */
async function rekey(env: Record<string, string>, extra: string[] = []): Promise<{ code: number | null; out: RekeyOutput; stderr: string }> {
  const r = await punctual(['secrets', 'rekey', '--json', ...extra], env);
  return { code: r.code, out: JSON.parse(r.stdout) as RekeyOutput, stderr: r.stderr };
}

/** The scenario, on the store at `databaseUrl` (opened by the test, left open while the command runs). */
async function scenario(databaseUrl: string, keyFile: string | null): Promise<void> {
  const store = await openStore(databaseUrl);
  try {
    await store.migrate();
    const jobs = await seed(store, ringA, 7);
    const [lost] = await seed(store, new KeyRing([C]), 1);
    const env = { DATABASE_URL: databaseUrl, PUNCTUAL_ENCRYPTION_KEYS: KEYS_B_A };

    const first = await rekey(env, ['--batch-size', '3']);
    expect(first.code).toBe(1);
    expect(first.out).toEqual({
      keyId: ringB.currentKeyId,
      examined: 8,
      resealed: 7,
      unchanged: 0,
      failed: 1,
      failures: [{ ...lost, keyId: new KeyRing([C]).currentKeyId, message: `secret cannot be decrypted (key ${new KeyRing([C]).currentKeyId} missing)` }],
    });
    for (const job of jobs) {
      const secrets = await secretsOf(store, job);
      expect(Object.values(secrets).every((v) => KeyRing.keyIdIn(v) === ringB.currentKeyId)).toBe(true);
      const stored = job.jobType === 'schedule' ? await store.scheduleGet({ id: job.id }) : await store.cronGet({ id: job.id });
      expect(openJobSecrets(ringB, job.id, stored!.auth, secrets)).toEqual({
        headers: PATCH.secretHeaders,
        auth: { type: 'basic', username: 'ada', password: 'pw' },
        signingSecret: PATCH.signingSecret,
      });
    }
    // The job sealed with the missing key is left as it was.
    expect(Object.values(await secretsOf(store, lost!)).every((v) => KeyRing.keyIdIn(v) === new KeyRing([C]).currentKeyId)).toBe(true);

    // A second run writes nothing; the missing key is still reported.
    const before = await Promise.all(jobs.map((j) => secretsOf(store, j)));
    const second = await rekey(env);
    expect([second.code, second.out.resealed, second.out.unchanged, second.out.failed]).toEqual([1, 0, 7, 1]);
    expect(await Promise.all(jobs.map((j) => secretsOf(store, j)))).toEqual(before);

    // Without the failing job: exit 0, the one-line summary (from the key file on SQLite).
    await (lost!.jobType === 'schedule' ? store.scheduleDelete({ id: lost!.id }) : store.cronDelete({ id: lost!.id }));
    if (keyFile !== null) writeFileSync(keyFile, `${b64(B)}\n${b64(A)}\n`, { mode: 0o600 });
    const last = await punctual(['secrets', 'rekey'], keyFile === null ? env : { DATABASE_URL: databaseUrl, PUNCTUAL_ENCRYPTION_KEYS: '' });
    expect([last.code, last.stdout, last.stderr]).toEqual([0, `re-sealed 0 of 7 jobs with key ${ringB.currentKeyId}: 7 unchanged, 0 failed\n`, '']);
  } finally {
    await store.close();
  }
}

describe('punctual secrets rekey', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('on SQLite: re-seals with the newest key, reports a missing key with exit 1, writes nothing the second time', async () => {
    dir = mkdtempSync(join(tmpdir(), 'punctual-rekey-'));
    const path = join(dir, 'p.db');
    await scenario(`file:${path}`, `${path}.key`);
  });

  it('on SQLite without a key: exit 2, naming the key file, which is not created', async () => {
    dir = mkdtempSync(join(tmpdir(), 'punctual-rekey-'));
    const env = { DATABASE_URL: `file:${join(dir, 'p.db')}`, PUNCTUAL_ENCRYPTION_KEYS: '' };
    expect((await punctual(['migrate'], env)).code).toBe(0);
    const r = await punctual(['secrets', 'rekey'], env);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain(`encryption key file ${join(dir, 'p.db')}.key: cannot be read (ENOENT)`);
    expect(existsSync(`${join(dir, 'p.db')}.key`)).toBe(false);
    expect((await punctual(['secrets', 'rekey', '--batch-size', '0'], env)).code).toBe(2);
  });

  it('while punctual serve runs on the same SQLite file, with the keys "B A"', async () => {
    const server = await startTestServer({ PUNCTUAL_ENCRYPTION_KEYS: KEYS_B_A });
    const store = await openStore(server.databaseUrl);
    try {
      const jobs = await seed(store, ringA, 4);
      // One due now, which the server's dispatcher may claim (Running) and call during the rekey: re-sealed all the same.
      const id = newId();
      await store.scheduleCreate({
        id,
        name: 'due',
        scheduledAt: Date.now(),
        endpoint: 'http://127.0.0.1:9/',
        data: {},
        tags: [],
        retry: RETRY,
        timeoutMs: 1000,
        now: Date.now(),
        ...sealJobSecrets(ringA, id, null, PATCH),
      });
      jobs.push({ jobType: 'schedule', id });
      const r = await rekey({ DATABASE_URL: server.databaseUrl, PUNCTUAL_ENCRYPTION_KEYS: KEYS_B_A }, ['--batch-size', '2']);
      expect([r.code, r.out.resealed, r.out.failed, r.stderr]).toEqual([0, 5, 0, '']);
      for (const job of jobs) {
        expect(Object.values(await secretsOf(store, job)).map((v) => KeyRing.keyIdIn(v))).toEqual([1, 2, 3, 4].map(() => ringB.currentKeyId));
        expect((await server.api('GET', `/${job.jobType === 'schedule' ? 'schedules' : 'cron'}/${job.id}`)).status).toBe(200);
      }
    } finally {
      await store.close();
      await server.stop();
    }
  });

  const BASE = pgTestUrl();
  it.skipIf(!BASE)('on PostgreSQL: the same; without PUNCTUAL_ENCRYPTION_KEYS, exit 2', async () => {
    const schema = await createTestSchema(BASE!);
    try {
      await scenario(schema.url, null);
      const r = await punctual(['secrets', 'rekey'], { DATABASE_URL: schema.url, PUNCTUAL_ENCRYPTION_KEYS: '' });
      expect([r.code, r.stderr]).toEqual([2, 'punctual: no encryption key: set PUNCTUAL_ENCRYPTION_KEYS (newest first), as on the nodes\n']);
    } finally {
      await schema.drop();
    }
  });
});
