/**
 * Graceful operations (docs/deployment.md): on SIGTERM a node drains — it stops taking work, waits for
 * calls in flight up to `PUNCTUAL_SHUTDOWN_GRACE_MS`, and hands back (releases the leases of) the
 * calls still unfinished at that deadline, then exits 0. A restarted node (or any other node)
 * attempts a handed-back call at once, as the same execution (same `webhook-id`), instead of
 * waiting for the lease (the job's timeout + a margin) to expire.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, spawnServer, stopChild, type ChildServer } from '../support/child.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { STORES, type TestDatabase } from '../support/stores.js';

const TOKEN = 'graceful-drain-token-0123456789abcdef';

let receiver: Receiver;
const children: ChildServer[] = [];
const databases: TestDatabase[] = [];
beforeAll(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  for (const c of children.splice(0)) await stopChild(c, 2_000);
  for (const d of databases.splice(0)) await d.drop();
});
afterAll(async () => {
  await receiver.close();
});

describe.each(STORES)('graceful drain [$name]', (store) => {
  it('SIGTERM hands back a call still in flight at the grace deadline; a restart attempts it again at once', async () => {
    const db = await store.create();
    databases.push(db);
    const path = `/drain-${store.name}`;
    receiver.respond(path, [{ hang: true }, { status: 200 }]);
    const env = { DATABASE_URL: db.url, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN, PUNCTUAL_SHUTDOWN_GRACE_MS: '500' };

    const first = await spawnServer(env);
    children.push(first);
    const res = await call(first.url, TOKEN, 'POST', '/schedules', {
      name: 'drain',
      scheduledAt: new Date(Date.now() + 200).toISOString(),
      endpoint: receiver.url + path,
      timeoutMs: 60_000, // the lease would hold the call for 60 s + the margin
    });
    expect(res.status).toBe(201);
    const id = (res.body as { id: string }).id;
    await receiver.waitFor((a) => a.some((x) => x.path === path));

    const termAt = Date.now();
    first.proc.kill('SIGTERM');
    const exit = await first.exited;
    const stoppedIn = Date.now() - termAt;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(stoppedIn).toBeLessThan(5_000); // the grace (500 ms), not the call's timeout

    const second = await spawnServer(env);
    children.push(second);
    const restartedAt = Date.now();
    const calls = await receiver
      .waitFor((a) => a.filter((x) => x.path === path).length >= 2, 10_000)
      .then((a) => a.filter((x) => x.path === path));
    // At once: well before the 60 s lease would have expired.
    expect(calls[1]!.at - restartedAt).toBeLessThan(5_000);
    expect(calls[1]!.headers['webhook-id']).toBe(calls[0]!.headers['webhook-id']);
    expect(calls[1]!.headers['punctual-attempt']).toBe('2');
    await expect
      .poll(async () => ((await call(second.url, TOKEN, 'GET', `/schedules/${id}`)).body as { status: string }).status, {
        timeout: 5_000,
      })
      .toBe('Succeeded');
    const page = (await call(second.url, TOKEN, 'GET', `/schedules/${id}/executions`)).body as {
      executions: { id: string }[];
    };
    expect(page.executions).toHaveLength(1);
    expect(page.executions[0]!.id).toBe(calls[0]!.headers['webhook-id']);
  }, 60_000);
});
