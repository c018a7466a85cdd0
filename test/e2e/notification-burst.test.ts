/**
 * The notifier against a real store and a real receiver on 127.0.0.1, with an injected clock
 * (docs/when-calls-fail.md): a burst of 200 failures gives at most `maxPerMinute` messages and
 * then one digest a minute; a notification that keeps failing is retried with backoff under the
 * same `webhook-id`, then dropped, and never becomes an event of its own. Run against every store.
 */
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotificationSender } from '../../src/dispatch/notify/sender.js';
import { Notifier } from '../../src/dispatch/notify/notifier.js';
import { generateSigningSecret, WebhookSigner } from '../../src/dispatch/call/signing.js';
import { newId } from '../../src/domain/ids.js';
import { NOTIFICATION_WIRE } from '../../src/http/schemas/notification-channels.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { startReceiver, type Arrival, type Receiver } from '../support/receiver.js';
import { STORES, type TestDatabase } from '../support/stores.js';

const T0 = Date.UTC(2030, 0, 1);

describe.each(STORES)('notifier: grouping and retries (real store, $name)', (under) => {
  let db: TestDatabase;
  let store: Store;
  let receiver: Receiver;
  let sender: NotificationSender;
  const secret = generateSigningSecret();
  const clock = { t: T0 };

  beforeEach(async () => {
    clock.t = T0;
    db = await under.create();
    store = await openStore(db.url, { clock: 'caller' });
    await store.migrate();
    receiver = await startReceiver();
    sender = new NotificationSender({
      signer: new WebhookSigner([secret]),
      policy: { allowPrivate: true, networks: [], hosts: new Set() },
      userAgent: 'Punctual/test',
      now: () => Date.now(),
    });
  });
  afterEach(async () => {
    await sender.close();
    await receiver.close();
    await store.close();
    await db.drop();
  });

  const notifier = (o: { maxAttempts?: number; retryBaseMs?: number } = {}) =>
    new Notifier({ store, sender, wire: NOTIFICATION_WIRE, nodeId: 'node-a', now: () => clock.t, logger: pino({ level: 'silent' }), ...o });

  const verified = (a: Arrival) =>
    new Webhook(secret).verify(a.body, {
      'webhook-id': String(a.headers['webhook-id']),
      'webhook-timestamp': String(a.headers['webhook-timestamp']),
      'webhook-signature': String(a.headers['webhook-signature']),
    }) as { type: string; id: string; data: { total?: number; counts?: Record<string, number>; jobs?: unknown[]; jobsOmitted?: number } };

  /** `n` schedules due at T0, claimed and finished `Failed` through the store's finish transaction. */
  async function failures(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      await store.scheduleCreate({
        id: newId(),
        name: `job ${i}`,
        scheduledAt: T0,
        endpoint: 'https://example.com/hook',
        data: {},
        tags: [],
        retry: { maxAttempts: 1, initialDelayMs: 1000, maxDelayMs: 1000 },
        timeoutMs: 1000,
        now: T0 - 1000,
      });
    }
    const { claimed } = await store.claimDue({ now: T0, limit: n, nodeId: 'caller', leaseMs: 5000, misfireThresholdMs: 60_000 });
    expect(claimed).toHaveLength(n);
    await store.executionsFinish({
      nodeId: 'caller',
      outcomes: claimed.map((c) => ({
        executionId: c.executionId,
        attempt: 1,
        status: 'Failed' as const,
        nextAttemptAt: null,
        startedAt: T0,
        durationMs: 5,
        statusCode: 500,
        error: 'HTTP 500',
        responseBody: 'no',
        method: 'POST' as const,
        url: c.endpoint,
      })),
    });
  }

  it('a burst of 200 failures: at most 10 messages in the minute, then one digest counting the other 190', async () => {
    await store.channelCreate({ id: newId(), name: 'ops', type: 'webhook', url: `${receiver.url}/n`, events: ['execution.failed'], jobIds: null, now: T0 });
    await failures(200);
    const n = notifier();
    let grouped = 0;
    let sent = 0;
    n.events.on('notify:grouped', (e) => (grouped += e.notifications));
    n.events.on('notify:sent', () => sent++);

    clock.t = T0 + 1_000;
    expect(await n.pass()).toBe(200);
    expect(receiver.arrivals.map((a) => verified(a).type)).toEqual(Array(10).fill('execution.failed'));
    expect(grouped).toBe(190);
    clock.t = T0 + 60_999; // the minute is not over: nothing is due
    expect(await n.pass()).toBe(0);
    expect(receiver.arrivals).toHaveLength(10);

    clock.t = T0 + 61_000;
    expect(await n.pass()).toBe(190);
    expect(receiver.arrivals).toHaveLength(11);
    const digest = verified(receiver.arrivals[10]!);
    expect(digest).toMatchObject({ type: 'notifications.digest', data: { total: 190, counts: { 'execution.failed': 190 }, jobsOmitted: 170 } });
    expect(digest.data.jobs).toHaveLength(20);
    expect(digest.id).toMatch(/^ntf_\d+_digest$/);
    expect(new Set(receiver.arrivals.map((a) => a.headers['webhook-id'])).size).toBe(11);
    expect(sent).toBe(11);
    expect(await n.pass()).toBe(0); // the outbox is empty
    expect(await store.notificationsClaim({ nodeId: 'x', now: T0 + 86_400_000, limit: 1000, leaseMs: 1000 })).toEqual([]);
  });

  it('a notification that keeps failing is retried with backoff under one webhook-id, then dropped; no event comes of it', async () => {
    receiver.respond('/down', { status: 503 });
    await store.channelCreate({ id: newId(), name: 'down', type: 'webhook', url: `${receiver.url}/down`, events: ['execution.failed'], jobIds: null, now: T0 });
    await failures(1);
    const n = notifier({ maxAttempts: 3, retryBaseMs: 1_000 });
    const failed: number[] = [];
    n.events.on('notify:failed', (e) => failed.push(e.notifications));

    clock.t = T0 + 1_000;
    expect(await n.pass()).toBe(1);
    clock.t += 799; // the first retry waits 1 s ± 20 %
    expect(await n.pass()).toBe(0);
    clock.t += 401;
    expect(await n.pass()).toBe(1);
    clock.t += 2_401; // the second waits 2 s ± 20 %
    expect(await n.pass()).toBe(1);
    expect(receiver.arrivals).toHaveLength(3);
    expect(new Set(receiver.arrivals.map((a) => a.headers['webhook-id'])).size).toBe(1);
    expect(failed).toEqual([1]);
    clock.t += 86_400_000;
    expect(await n.pass()).toBe(0);
    expect(receiver.arrivals).toHaveLength(3);
  });
});
