import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, spawnServer, until, type ChildServer } from '../support/child.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { CLAIM_AHEAD_MS } from '../../src/dispatch/held-calls.js';

const TOKEN = 'crash-test-bootstrap-token-0123456789';

/**
 * kill -9 with work pending, then start again on the same database file:
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

  it('applies each misfire policy to occurrences missed while down', async () => {
    const env = { DATABASE_URL: `file:${join(dir, 'misfire.db')}`, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN };
    const first = await spawnServer(env);
    children.push(first);
    const ids: Record<string, string> = {};
    for (const misfire of ['all', 'once', 'skip'] as const) {
      const res = await call(first.url, TOKEN, 'POST', '/cron', {
        expression: '* * * * * *',
        endpoint: `${receiver.url}/misfire-${misfire}`,
        misfire,
      });
      expect(res.status).toBe(201);
      ids[misfire] = (res.body as { id: string }).id;
    }
    const killAt = Date.now();
    first.proc.kill('SIGKILL');
    await first.exited;
    const downAt = Date.now();
    await until(downAt + 4_200); // at least four occurrences of each job are missed

    const spawnAt = Date.now();
    const second = await spawnServer(env);
    children.push(second);
    const sf = (a: { headers: Record<string, unknown> }) => Date.parse(a.headers['punctual-scheduled-for'] as string);
    // Wait until each job has had a regular occurrence well after the restart: the catch-up is over.
    await receiver.waitFor((a) =>
      ['all', 'once', 'skip'].every((m) => a.some((x) => x.path === `/misfire-${m}` && sf(x) >= spawnAt + 2_000)),
    );
    // Calls made by the second process for occurrences that fell while no process ran.
    const caughtUp = (m: string) =>
      receiver.arrivals.filter((a) => a.path === `/misfire-${m}` && a.at >= downAt && sf(a) < spawnAt);
    // Missed: the occurrences no process could claim. The first one claims up to CLAIM_AHEAD_MS
    // ahead, so an occurrence due just after the kill may be leased to it (and comes back only
    // when that lease ends): those count from killAt + CLAIM_AHEAD_MS, not from the exit.
    const missed = Math.floor((spawnAt - 1) / 1000) - Math.ceil((killAt + CLAIM_AHEAD_MS + 1) / 1000) + 1;
    expect(missed).toBeGreaterThanOrEqual(4);
    const all = caughtUp('all');
    expect(all.length).toBeGreaterThanOrEqual(missed);
    expect(new Set(all.map(sf)).size).toBe(all.length);
    const order = all.map(sf);
    expect([...order].sort((x, y) => x - y)).toEqual(order); // oldest first
    expect(caughtUp('once')).toHaveLength(1);
    expect(caughtUp('skip')).toHaveLength(0);
    const page = (await call(second.url, TOKEN, 'GET', `/cron/${ids.skip}/executions?limit=100`)).body as {
      executions: { status: string }[];
    };
    expect(page.executions.some((e) => e.status === 'Skipped')).toBe(true);
    second.proc.kill('SIGTERM');
    await second.exited;
  }, 60_000);

  it('attempts a call that was in flight at SIGKILL again after restart, as the same execution', async () => {
    const env = { DATABASE_URL: `file:${join(dir, 'inflight.db')}`, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN };
    receiver.respond('/inflight', [{ hang: true }, { status: 200 }]);
    const first = await spawnServer(env);
    children.push(first);
    const res = await call(first.url, TOKEN, 'POST', '/schedules', {
      name: 'inflight',
      scheduledAt: new Date(Date.now() + 200).toISOString(),
      endpoint: `${receiver.url}/inflight`,
      timeoutMs: 1_000,
    });
    const id = (res.body as { id: string }).id;
    const [inFlight] = await receiver.waitFor((a) => a.some((x) => x.path === '/inflight'));
    expect(inFlight).toBeDefined();
    first.proc.kill('SIGKILL');
    await first.exited;

    const second = await spawnServer(env);
    children.push(second);
    // The lease (timeout + margin) of the dead node expires, then the same execution is attempted again.
    const calls = await receiver
      .waitFor((a) => a.filter((x) => x.path === '/inflight').length >= 2, 20_000)
      .then((a) => a.filter((x) => x.path === '/inflight'));
    expect(calls[1]!.headers['webhook-id']).toBe(calls[0]!.headers['webhook-id']);
    expect(calls[1]!.headers['punctual-attempt']).toBe('2');
    await expect
      .poll(async () => ((await call(second.url, TOKEN, 'GET', `/schedules/${id}`)).body as { status: string }).status, {
        timeout: 5_000,
      })
      .toBe('Succeeded');
    const page = (await call(second.url, TOKEN, 'GET', `/schedules/${id}/executions`)).body as {
      executions: { id: string; status: string; lateMs: number }[];
    };
    expect(page.executions).toHaveLength(1);
    expect(page.executions[0]!.id).toBe(calls[0]!.headers['webhook-id']);
    second.proc.kill('SIGTERM');
    await second.exited;
  }, 60_000);
});
