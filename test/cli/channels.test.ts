/**
 * `punctual channels …` (docs/cli.md, docs/when-calls-fail.md): through the API of a live server,
 * run in this process (test/cli/run.ts), a real receiver on 127.0.0.1 for `test`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationChannel, NotificationChannelList } from '../../src/client/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctual, punctualJson } from './run.js';

let server: TestServer;
let receiver: Receiver;
let remote: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  remote = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

describe('punctual channels', () => {
  it('create, list, test and delete a channel', async () => {
    const created = await punctual(
      ['channels', 'create', 'ops', `${receiver.url}/hook`, '--event', 'execution.failed', '--event', 'job.recovered'],
      remote,
    );
    expect(created.code, created.stderr).toBe(0);
    const id = /\(([0-9a-f-]{36}), webhook\)/.exec(created.stdout)![1]!;
    expect(created.stdout).toContain('execution.failed, job.recovered');

    const json = await punctualJson<NotificationChannel>(
      ['channels', 'create', 'chat', '--type', 'slack', `${receiver.url}/slack`, '--event', 'cron.auto_paused', '--json'],
      remote,
    );
    expect(json).toMatchObject({ name: 'chat', type: 'slack', events: ['cron.auto_paused'], jobIds: null });

    const list = await punctual(['channels', 'list'], remote);
    for (const text of ['NAME', 'EVENTS', 'ops', 'chat', 'slack', 'execution.failed job.recovered']) expect(list.stdout).toContain(text);
    expect((await punctualJson<NotificationChannelList>(['channels', 'list', '--json'], remote)).size).toBe(2);

    const tested = await punctual(['channels', 'test', id], remote);
    expect(tested.code).toBe(0);
    expect(tested.stdout).toMatch(/^Delivered \(HTTP 200, \d+ ms\)\./);
    expect(JSON.parse(receiver.arrivals.find((a) => a.path === '/hook')!.body)).toMatchObject({ type: 'notifications.test' });
    receiver.respond('/slack', { status: 410 });
    const refused = await punctual(['channels', 'test', json.id], remote);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^Not delivered: HTTP 410 \(HTTP 410, \d+ ms\)\./);

    const bad = await punctual(['channels', 'create', 'x', 'ftp://example.com/', '--event', 'execution.failed'], remote);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('/url');

    expect((await punctual(['channels', 'delete', id], remote)).stdout).toContain(`Deleted notification channel ${id}.`);
    expect((await punctual(['channels', 'delete', id], remote)).code).toBe(3);
    expect((await punctualJson<NotificationChannelList>(['channels', 'list', '--json'], remote)).notificationChannels.map((c) => c.id)).toEqual([json.id]);
  });
});
