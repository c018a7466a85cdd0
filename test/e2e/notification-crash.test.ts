/**
 * The outbox survives `kill -9` (docs/when-calls-fail.md, "At least once"): a real child server
 * records a failure, starts sending its notification, and is killed while the receiver holds the
 * request; a new server on the same database sends it again, under the same `webhook-id`, once
 * the lease of the dead one expires. Run against every store.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../src/dispatch/call/signing.js';
import { call, spawnServer, type ChildServer } from '../support/child.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { STORES, type TestDatabase } from '../support/stores.js';

const TOKEN = 'notify-crash-bootstrap-token-0123456789';

describe.each(STORES)('notifications across kill -9 (real child processes, $name)', (under) => {
  let db: TestDatabase;
  let receiver: Receiver;
  const children: ChildServer[] = [];
  const secret = generateSigningSecret();

  beforeAll(async () => {
    db = await under.create();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await receiver?.close();
    await db?.drop();
  });

  it('a notification in flight when its server is killed is sent by the next server, under the same webhook-id', async () => {
    const env = {
      DATABASE_URL: db.url,
      PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
      PUNCTUAL_SIGNING_SECRET: secret,
      // Leases of notifications: 2 × 1 s + 5 s.
      PUNCTUAL_NOTIFY_TIMEOUT_MS: '1000',
    };
    const first = await spawnServer(env);
    children.push(first);
    // The first notification is held by the receiver (never answered); the next ones are taken.
    receiver.respond('/n', [{ hang: true }, { status: 200 }]);
    receiver.respond('/job', { status: 500 });
    const ch = await call(first.url, TOKEN, 'POST', '/notification-channels', {
      name: 'ops',
      type: 'webhook',
      url: `${receiver.url}/n`,
      events: ['execution.failed'],
    });
    expect(ch.status).toBe(201);
    const job = await call(first.url, TOKEN, 'POST', '/schedules', {
      name: 'failing',
      scheduledAt: new Date().toISOString(),
      endpoint: `${receiver.url}/job`,
      retry: { maxAttempts: 1 },
    });
    expect(job.status).toBe(201);
    const jobId = (job.body as { id: string }).id;

    await receiver.waitFor((a) => a.some((x) => x.path === '/n'));
    const firstTry = receiver.arrivals.find((a) => a.path === '/n')!;
    first.proc.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = await spawnServer(env);
    children.push(second);
    const arrivals = await receiver.waitFor((a) => a.filter((x) => x.path === '/n').length >= 2, 30_000);
    const retried = arrivals.filter((a) => a.path === '/n')[1]!;
    expect(retried.headers['webhook-id']).toBe(firstTry.headers['webhook-id']);
    const m = new Webhook(secret).verify(retried.body, {
      'webhook-id': String(retried.headers['webhook-id']),
      'webhook-timestamp': String(retried.headers['webhook-timestamp']),
      'webhook-signature': String(retried.headers['webhook-signature']),
    }) as { type: string; data: { job: { id: string }; execution: { status: string } } };
    expect(m).toMatchObject({ type: 'execution.failed', data: { job: { id: jobId }, execution: { status: 'Failed' } } });
    second.proc.kill('SIGTERM');
    await second.exited;
  }, 60_000);
});
