import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, spawnServer, until, type ChildServer } from '../support/child.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const TOKEN = 'crash-test-bootstrap-token-0123456789';

/**
 * kill -9 with work pending, then start again on the same database file (issue #2, "Done when"):
 * every schedule that came due while the service was down fires once, every cron job continues,
 * and missed cron occurrences run once.
 */
describe('crash and restart (real child processes, SIGKILL)', () => {
  let dir: string;
  let receiver: Receiver;
  const children: ChildServer[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-crash-'));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps every accepted job across SIGKILL and fires what came due', async () => {
    const env = { DATABASE_URL: `file:${join(dir, 'p.db')}`, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN };
    const first = await spawnServer(env);
    children.push(first);

    const dueAt = Date.now() + 2_500;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call(first.url, TOKEN, 'POST', '/schedules', {
        name: `s${i}`,
        scheduledAt: new Date(dueAt + i * 10).toISOString(),
        endpoint: `${receiver.url}/s/${i}`,
      });
      expect(res.status).toBe(201);
      ids.push((res.body as { id: string }).id);
    }
    const later = await call(first.url, TOKEN, 'POST', '/schedules', {
      name: 'later',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      endpoint: `${receiver.url}/later`,
    });
    const cron = await call(first.url, TOKEN, 'POST', '/cron', {
      expression: '* * * * * *',
      endpoint: `${receiver.url}/cron`,
    });
    expect(cron.status).toBe(201);
    const cronId = (cron.body as { id: string }).id;

    // Killed right after the last 2xx: nothing may be lost.
    first.proc.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const downAt = Date.now();
    const cronCallsBefore = receiver.arrivals.filter((a) => a.path === '/cron').length;

    // Stay down until every schedule came due and several cron occurrences were missed.
    await until(dueAt + 1_500);
    expect(receiver.arrivals.filter((a) => a.path.startsWith('/s/'))).toHaveLength(0);

    const second = await spawnServer(env);
    children.push(second);
    const restartedAt = Date.now();
    await receiver.waitFor((a) => a.filter((x) => x.path.startsWith('/s/')).length >= 10);
    await receiver.waitFor((a) => a.filter((x) => x.path === '/cron' && x.at >= restartedAt).length >= 3);

    // Each schedule exactly once, none before it was due.
    const scheduleCalls = receiver.arrivals.filter((a) => a.path.startsWith('/s/'));
    expect(new Set(scheduleCalls.map((a) => a.path)).size).toBe(10);
    expect(scheduleCalls).toHaveLength(10);
    for (const a of scheduleCalls) expect(a.at).toBeGreaterThanOrEqual(dueAt);

    // The cron job continued; the occurrences missed while down ran once, not once each.
    const afterRestart = receiver.arrivals.filter((a) => a.path === '/cron' && a.at >= downAt);
    const seconds = afterRestart.map((a) => Math.floor(a.at / 1000));
    expect(new Set(seconds).size).toBeGreaterThanOrEqual(seconds.length - 1);
    expect(afterRestart.length).toBeLessThan(Math.ceil((Date.now() - restartedAt) / 1000) + 2);
    expect(cronCallsBefore).toBeLessThanOrEqual(2);

    for (const id of ids) {
      await expect
        .poll(async () => ((await call(second.url, TOKEN, 'GET', `/schedules/${id}`)).body as { status: string }).status)
        .toBe('Succeeded');
    }
    const laterNow = await call(second.url, TOKEN, 'GET', `/schedules/${(later.body as { id: string }).id}`);
    expect((laterNow.body as { status: string }).status).toBe('Pending');
    const job = (await call(second.url, TOKEN, 'GET', `/cron/${cronId}`)).body as { invocations: number; status: string };
    expect(job.status).toBe('Active');
    expect(job.invocations).toBeGreaterThanOrEqual(3);

    // SIGTERM drains and exits 0.
    second.proc.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});
