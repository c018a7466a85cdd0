/**
 * A job whose secrets were sealed with a key the service no longer has (docs/security.md, "Job
 * secrets", rotating the key): on the same SQLite file, `node dist/cli.js serve` (the build) with
 * key A seals a job; restarted with key B only, the job's attempts fail with exactly
 * `secret cannot be decrypted (key <id of A> missing)` (started with `--new-key`: a plain start
 * is refused, the newest sealed secret naming key A), are counted in
 * `punctual_secret_decrypt_failures_total{reason="key_missing"}`, the process keeps serving and
 * other jobs run; restarted with "B A", the job's next attempt succeeds with its secret.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, KeyRing } from '../../src/secrets/key-ring.js';
import { BUILT_CLI, call, spawnServer, stopChild, type ChildServer } from '../support/child.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { SQLITE, type TestDatabase } from '../support/stores.js';

const TOKEN = 'key-missing-bootstrap-token-0123456789ab';
const A = generateKey();
const B = generateKey();
const ID_A = new KeyRing([A]).currentKeyId;
const MISSING = `secret cannot be decrypted (key ${ID_A} missing)`;
/** Retried every second, long enough for a restart with both keys. */
const RETRY = { maxAttempts: 20, initialDelayMs: 1000, maxDelayMs: 1000 };

interface Execution {
  status: string;
  attempts: { statusCode: number | null; error: string | null }[];
}

if (!existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: npm run build`);

describe('a job sealed with a key the service no longer has', () => {
  let db: TestDatabase;
  let receiver: Receiver;
  let child: ChildServer | undefined;

  const serve = async (keys: Buffer[], args: string[] = []) => {
    child = await spawnServer(
      { DATABASE_URL: db.url, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN, PUNCTUAL_ENCRYPTION_KEYS: keys.map((k) => k.toString('base64')).join(' ') },
      { built: true, args },
    );
    return child;
  };
  const api = (method: string, path: string, body?: unknown) => call(child!.url, TOKEN, method, path, body);
  const soon = () => new Date(Date.now() + 50).toISOString();
  /** The job's execution once `done` holds for it (polled over the API; the dispatcher writes it). */
  const execution = async (id: string, done: (e: Execution) => boolean): Promise<Execution> => {
    for (let i = 0; i < 1000; i++) {
      const [e] = ((await api('GET', `/schedules/${id}/executions`)).body as { executions: Execution[] }).executions;
      if (e && done(e)) return e;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`the execution of ${id} did not get there`);
  };
  const keyMissing = async () => {
    const text = await fetch(`${child!.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.text());
    const m = /^punctual_secret_decrypt_failures_total\{reason="key_missing"\} (\d+)$/m.exec(text);
    expect(m, 'the key_missing series').not.toBeNull();
    return Number(m![1]);
  };

  beforeAll(async () => {
    db = await SQLITE.create();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (child) await stopChild(child);
    await receiver?.close();
    await db?.drop();
  });

  it('fails its attempts naming the missing key and counts them; the service goes on; with the key back, it succeeds', async () => {
    await serve([A]);
    const sealed = await api('POST', '/schedules', {
      name: 'sealed with A',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      endpoint: `${receiver.url}/sealed-a`,
      secretHeaders: { 'X-Key': 'value-sealed-with-a' },
      retry: RETRY,
    });
    expect(sealed.status, JSON.stringify(sealed.body)).toBe(201);
    const id = (sealed.body as { id: string }).id;
    await stopChild(child!);

    // Key B only: a plain start is refused (test/cli/start-keys.test.ts), so with --new-key, which
    // gives key A up; the job's attempts fail, the others run.
    await serve([B], ['--new-key']);
    expect(await keyMissing()).toBe(0);
    expect((await api('PATCH', `/schedules/${id}`, { scheduledAt: soon() })).status).toBe(200);
    const plain = await api('POST', '/schedules', { name: 'plain', scheduledAt: soon(), endpoint: `${receiver.url}/plain` });
    const withB = await api('POST', '/schedules', {
      name: 'sealed with B',
      scheduledAt: soon(),
      endpoint: `${receiver.url}/sealed-b`,
      secretHeaders: { 'X-Key': 'value-sealed-with-b' },
    });
    expect([plain.status, withB.status]).toEqual([201, 201]);
    // Between two attempts (retried every second, so Running again a second later): Retrying, not Failed.
    const failed = await execution(id, (e) => e.attempts.length >= 1 && e.status !== 'Running');
    expect(failed.status).toBe('Retrying');
    expect(failed.attempts[0]).toMatchObject({ statusCode: null, error: MISSING });
    await receiver.waitFor((all) => all.some((a) => a.path === '/plain') && all.some((a) => a.path === '/sealed-b'));
    expect(receiver.arrivals.find((a) => a.path === '/sealed-b')!.headers['x-key']).toBe('value-sealed-with-b');
    const counted = await keyMissing();
    expect(counted).toBeGreaterThanOrEqual(1);
    // One count per failed attempt: each counted failure is (or is about to be) a recorded attempt.
    const attempts = (await execution(id, (e) => e.attempts.length >= counted)).attempts;
    expect(attempts.every((a) => a.error === MISSING)).toBe(true);
    expect((await fetch(`${child!.url}/healthz`)).status).toBe(200);
    expect(child!.proc.exitCode).toBeNull();
    expect(receiver.arrivals.some((a) => a.path === '/sealed-a')).toBe(false);
    const logs = child!.lines.join('\n') + child!.stderr.join('');
    expect(logs).not.toContain('value-sealed-with-a');
    await stopChild(child!);
    expect(await child!.exited).toEqual({ code: 0, signal: null });

    // Keys "B A": the next attempt opens the secret and succeeds.
    await serve([B, A]);
    const [arrival] = await receiver.waitFor((all) => all.some((a) => a.path === '/sealed-a')).then((all) => all.filter((a) => a.path === '/sealed-a'));
    expect(arrival!.headers['x-key']).toBe('value-sealed-with-a');
    const done = await execution(id, (e) => e.status === 'Succeeded' || e.status === 'Failed');
    expect(done.status).toBe('Succeeded');
    expect(done.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });
    expect(done.attempts.slice(0, -1).every((a) => a.error === MISSING)).toBe(true);
    expect(await keyMissing()).toBe(0);
  });
});
