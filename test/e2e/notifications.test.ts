/**
 * Notification channels end to end (docs/when-calls-fail.md): the routes and their validation,
 * each event reaching a real webhook receiver on 127.0.0.1 verified with the `standardwebhooks`
 * package, a Slack-format receiver, `jobIds` filtering and the test endpoint — over real sockets,
 * against every store.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../src/dispatch/call/signing.js';
import { startReceiver, type Arrival, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

const PUBLIC_URL = 'https://punctual.example.com';

/** A webhook notification as received (the fields these tests read). */
interface Message {
  type: string;
  id: string;
  occurredAt: string;
  data: {
    reason?: string;
    channel?: { id: string; name: string };
    job: { id: string; name: string; endpoint: string };
    execution: { jobId: string; status: string; attempts: { statusCode: number | null; responseBody: string | null; durationMs: number }[] };
  };
}

describe.each(STORES)('notification channels (real HTTP, $name)', (store) => {
  let server: TestServer;
  let receiver: Receiver;
  const secret = generateSigningSecret();

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({ PUNCTUAL_SIGNING_SECRET: secret, PUNCTUAL_PUBLIC_URL: `${PUBLIC_URL}/` }, { store });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  const at = (path: string) => receiver.arrivals.filter((a) => a.path === path);
  const waitAt = (path: string, n: number, timeoutMs = 15_000) =>
    receiver.waitFor((a) => a.filter((x) => x.path === path).length >= n, timeoutMs).then(() => at(path));
  /** The message of an arrival, after its Standard Webhooks signature was verified. */
  const verified = (a: Arrival) =>
    new Webhook(secret).verify(a.body, {
      'webhook-id': String(a.headers['webhook-id']),
      'webhook-timestamp': String(a.headers['webhook-timestamp']),
      'webhook-signature': String(a.headers['webhook-signature']),
    }) as Message;

  async function channel(body: Record<string, unknown>): Promise<string> {
    const res = await server.api('POST', '/notification-channels', { name: 'ops', type: 'webhook', ...body });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  /**
   * A schedule whose call answers `status` once (one attempt: a non-2xx fails it): due now, or with
   * `later`, due in an hour, to be triggered once the channels that must hear it exist (an outcome
   * is matched against the channels of its own transaction).
   */
  async function schedule(path: string, status: number, later = false): Promise<string> {
    receiver.respond(path, { status, body: `answer ${status}` });
    const res = await server.api('POST', '/schedules', {
      name: `job ${path}`,
      scheduledAt: new Date(Date.now() + (later ? 3_600_000 : 0)).toISOString(),
      endpoint: receiver.url + path,
      retry: { maxAttempts: 1 },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  it('creates, reads, lists, updates and deletes channels; bad input is a 400 naming the field; unknown ids 404', async () => {
    const created = await server.api('POST', '/notification-channels', {
      name: 'crud',
      type: 'slack',
      url: 'https://hooks.slack.com/services/T/B/x',
      events: ['job.recovered', 'execution.failed'],
    });
    expect(created.status).toBe(201);
    const c = created.body as Record<string, unknown>;
    expect(c).toEqual({
      id: c.id,
      name: 'crud',
      type: 'slack',
      // The URL is the channel's secret: masked in every answer (the full one is write-only).
      url: 'https://hooks.slack.com/services/…',
      events: ['execution.failed', 'job.recovered'],
      jobIds: null,
      createdAt: expect.stringMatching(/Z$/),
    });
    expect((await server.api('GET', `/notification-channels/${c.id}`)).body).toEqual(c);
    const list = (await server.api('GET', '/notification-channels')).body as { size: number; notificationChannels: { id: string }[] };
    expect(JSON.stringify(list)).not.toContain('/T/B/x');
    expect(list.size).toBe(list.notificationChannels.length);
    expect(list.notificationChannels.map((x) => x.id)).toContain(c.id);
    const jobId = '0190a5c8-0000-7000-8000-000000000001';
    const patched = await server.api('PATCH', `/notification-channels/${c.id}`, { name: 'renamed', jobIds: [jobId] });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...c, name: 'renamed', jobIds: [jobId] });

    const bad: [Record<string, unknown>, string][] = [
      [{ type: 'email' }, '/type'],
      [{ url: 'ftp://example.com/' }, '/url'],
      [{ events: [] }, '/events'],
      [{ events: ['execution.exploded'] }, '/events/0'],
      [{ jobIds: ['not-a-uuid'] }, '/jobIds/0'],
      [{ name: '   ' }, '/name'],
      [{ extra: 1 }, '/extra'],
    ];
    for (const [fields, path] of bad) {
      const res = await server.api('POST', '/notification-channels', { name: 'x', type: 'webhook', url: 'https://example.com/', events: ['execution.failed'], ...fields });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(JSON.stringify(res.body), JSON.stringify(fields)).toContain(path);
    }
    const badPatch = await server.api('PATCH', `/notification-channels/${c.id}`, { events: [] });
    expect(badPatch.status).toBe(400);
    expect((await server.api('GET', `/notification-channels/${c.id}`)).body).toEqual({ ...c, name: 'renamed', jobIds: [jobId] });

    const unknown = '0190a5c8-0000-7000-8000-00000000ffff';
    expect((await server.api('GET', `/notification-channels/${unknown}`)).body).toBeNull();
    expect((await server.api('PATCH', `/notification-channels/${unknown}`, { name: 'x' })).status).toBe(404);
    expect((await server.api('DELETE', `/notification-channels/${unknown}`)).status).toBe(404);
    expect((await server.api('POST', `/notification-channels/${unknown}/test`)).status).toBe(404);
    expect((await server.api('DELETE', `/notification-channels/${c.id}`)).status).toBe(204);
    expect((await server.api('GET', `/notification-channels/${c.id}`)).body).toBeNull();
  });

  it('the SSRF guard refuses a loopback URL when private endpoints are not allowed', async () => {
    const strict = await startTestServer({ PUNCTUAL_ALLOWED_NETWORKS: '10.9.9.9' }, { store });
    try {
      const res = await strict.api('POST', '/notification-channels', { name: 'x', type: 'webhook', url: 'http://127.0.0.1:9/', events: ['execution.failed'] });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('/url');
    } finally {
      await strict.stop();
    }
  });

  it('execution.failed and execution.succeeded reach a webhook receiver, signed, with the execution and the job; jobIds filters', async () => {
    const failing = await schedule('/job/fail', 500, true);
    const other = await schedule('/job/other', 500, true);
    await channel({ url: `${receiver.url}/n/failed`, events: ['execution.failed'], jobIds: [failing] });
    await channel({ url: `${receiver.url}/n/succeeded`, events: ['execution.succeeded'] });
    // The channels exist before the outcomes: the jobs run once triggered, the notifier sends within a second or so.
    for (const id of [failing, other]) expect((await server.api('POST', `/schedules/${id}/trigger`)).status).toBe(202);
    const [failed] = await waitAt('/n/failed', 1);
    const m = verified(failed!);
    expect(m.type).toBe('execution.failed');
    expect(m.id).toBe(failed!.headers['webhook-id']);
    expect(m.id).toMatch(/^ntf_\d+$/);
    expect(m.data.job).toMatchObject({ id: failing, name: 'job /job/fail', endpoint: `${receiver.url}/job/fail` });
    expect(m.data.execution).toMatchObject({ jobId: failing, status: 'Failed' });
    expect(m.data.execution.attempts.at(-1)).toMatchObject({ statusCode: 500, responseBody: 'answer 500' });
    expect(JSON.stringify(m)).not.toContain(secret);

    const ok = await schedule('/job/ok', 200);
    const [succeeded] = await waitAt('/n/succeeded', 1);
    const s = verified(succeeded!);
    expect(s.type).toBe('execution.succeeded');
    expect(s.data.execution).toMatchObject({ jobId: ok, status: 'Succeeded' });
    expect(s.data.execution.attempts.at(-1)).toMatchObject({ statusCode: 200, responseBody: 'answer 200', durationMs: expect.any(Number) });
    // The other job failed before `ok` succeeded; the outbox is sent oldest first: it would have come by now.
    expect(at('/n/failed').map((a) => verified(a).data.job.id)).toEqual([failing]);
    expect(other).not.toBe(failing);

    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).text();
    const sent = /^punctual_notifications_sent_total\{channel_type="webhook"\} (\d+)$/m.exec(metrics);
    expect(Number(sent?.[1])).toBeGreaterThanOrEqual(2);
    expect(metrics).toMatch(/^punctual_notifications_failed_total\{channel_type="slack"\} 0$/m);
    expect(metrics).toMatch(/^punctual_notifications_grouped_total\{channel_type="webhook"\} 0$/m);
  });

  it('job.recovered: a cron job that failed, then succeeded; and a Slack-format message with a console link', async () => {
    receiver.respond('/cron/flaky', [{ status: 503 }, { status: 200 }]);
    const created = await server.api('POST', '/cron', {
      name: 'flaky',
      expression: '0 0 1 1 *',
      endpoint: `${receiver.url}/cron/flaky`,
      retry: { maxAttempts: 1 },
    });
    expect(created.status).toBe(201);
    const cronId = (created.body as { id: string }).id;
    await channel({ url: `${receiver.url}/n/recovered`, events: ['job.recovered'], jobIds: [cronId] });
    await channel({ type: 'slack', url: `${receiver.url}/n/slack`, events: ['execution.failed'], jobIds: [cronId] });

    expect((await server.api('POST', `/cron/${cronId}/trigger`)).status).toBe(202);
    const [slack] = await waitAt('/n/slack', 1);
    const msg = JSON.parse(slack!.body) as { text: string; blocks: { type: string; text?: { text: string }; fields?: { text: string }[]; elements?: { text: string }[] }[] };
    expect(msg.text).toBe('Execution failed: flaky');
    const all = JSON.stringify(msg.blocks);
    expect(all).toContain(`${receiver.url}/cron/flaky`);
    expect(all).toContain('Failed (HTTP 503)');
    expect(all).toContain('HTTP 503');
    expect(all).toContain(`${PUBLIC_URL}/console/cron/${cronId}`);
    expect(slack!.headers['webhook-signature']).toBeDefined();

    expect((await server.api('POST', `/cron/${cronId}/trigger`)).status).toBe(202);
    const [recovered] = await waitAt('/n/recovered', 1);
    const r = verified(recovered!);
    expect(r.type).toBe('job.recovered');
    expect(r.data.job).toMatchObject({ id: cronId, name: 'flaky' });
    expect(r.data.execution).toMatchObject({ status: 'Succeeded' });
  });

  it('cron.auto_paused: a cron job that answers 410 Gone pauses itself, and the channel hears it with the reason', async () => {
    receiver.respond('/cron/gone', { status: 410, body: 'gone for good' });
    const created = await server.api('POST', '/cron', {
      name: 'paused',
      expression: '0 0 1 1 *',
      endpoint: `${receiver.url}/cron/gone`,
      retry: { maxAttempts: 3 },
    });
    const cronId = (created.body as { id: string }).id;
    await channel({ url: `${receiver.url}/n/paused`, events: ['cron.auto_paused'] });
    expect((await server.api('POST', `/cron/${cronId}/trigger`)).status).toBe(202);
    const [p] = await waitAt('/n/paused', 1);
    const m = verified(p!);
    expect(m).toMatchObject({
      type: 'cron.auto_paused',
      data: { reason: 'endpoint answered 410 Gone', job: { id: cronId, name: 'paused', status: 'Paused', pausedReason: 'endpoint answered 410 Gone' } },
    });
    // One attempt (a 410 is not retried), and the job stays paused.
    expect(at('/cron/gone')).toHaveLength(1);
    expect((await server.api('GET', `/cron/${cronId}`)).body).toMatchObject({ status: 'Paused', consecutiveFailures: 1 });
  });

  it('POST /notification-channels/{id}/test sends a signed test message at once and answers with the receiver status', async () => {
    const id = await channel({ url: `${receiver.url}/n/test`, events: ['execution.failed'] });
    const res = await server.api('POST', `/notification-channels/${id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ statusCode: 200, durationMs: expect.any(Number), error: null });
    const m = verified(at('/n/test')[0]!);
    expect(m).toMatchObject({ type: 'notifications.test', data: { channel: { id, name: 'ops' } } });

    receiver.respond('/n/test-404', { status: 404 });
    const missing = await channel({ url: `${receiver.url}/n/test-404`, events: ['execution.failed'] });
    expect((await server.api('POST', `/notification-channels/${missing}/test`)).body).toEqual({ statusCode: 404, durationMs: expect.any(Number), error: 'HTTP 404' });

    const closed = await channel({ url: 'http://127.0.0.1:9/nothing', events: ['execution.failed'] });
    const refused = (await server.api('POST', `/notification-channels/${closed}/test`)).body as { statusCode: null; error: string };
    expect(refused.statusCode).toBeNull();
    expect(refused.error).toMatch(/ECONNREFUSED/);
    expect(refused.error).not.toContain('127.0.0.1:9/nothing');
  });
});
