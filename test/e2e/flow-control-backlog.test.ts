import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, stopChild, until, type ChildServer } from '../support/child.js';
import { startCountingReceiver, type CountingReceiver } from '../support/counting-receiver.js';
import { flowHelpers, plan } from '../support/flow-control.js';
import { quantile } from '../support/server.js';

/**
 * Calls without a flow-control key next to a key with a large backlog, on SQLite (one
 * `punctual serve` in its own process, a receiver in this one, as in flow-control.test.ts): a
 * key with 10,000 due calls, parallelism 2 and answers in 300 ms, and calls without a key due
 * every 100 ms, whose lateness must stay within the bounds of the dispatch test
 * (test/e2e/dispatch.test.ts: p50 < 25 ms, p90 < 100 ms, max < 1 s).
 */
const TOKEN = 'flow-control-backlog-bootstrap-token-0123456789';
const BACKLOG = 10_000;
/** Calls without a key per test, one every 100 ms. */
const UNKEYED = 15;

describe('calls without a key next to a key with a backlog of 10,000 slow calls (SQLite, a real server process)', () => {
  let dir: string;
  let server: ChildServer;
  let receiver: CountingReceiver;
  let backlogDue = 0;
  const { api, putKey, getKey, create, expectEachOnce, allDone } = flowHelpers(
    () => server.url,
    TOKEN,
    () => receiver,
  );

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-flow-backlog-'));
    receiver = await startCountingReceiver();
    server = await spawnServer({
      DATABASE_URL: `file:${join(dir, 'p.db')}`,
      PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
      PUNCTUAL_RATE_LIMIT_PER_SECOND: '0',
      PUNCTUAL_SHUTDOWN_GRACE_MS: '1000',
    });
    await putKey('bulk', { parallelism: 2 });
    receiver.answer('bulk', () => ({ delayMs: 300 }));
    // All due at one instant, once they are all created: the lead is measured on a batch of 1,000
    // created first (due in an hour, without a key), so a slow machine gets a longer lead rather
    // than a backlog whose instant passes while it is created (1.2-3.1 s for 10,000 here, the
    // probe's batch taking 1.5-2 times a later one's).
    const p0 = Date.now();
    await create(plan('probe', null, 1_000, () => p0 + 3_600_000));
    const leadMs = Math.min(15_000, (BACKLOG / 1_000) * (Date.now() - p0) + 500);
    const t0 = Date.now();
    backlogDue = t0 + leadMs;
    await create(plan('bulk', 'bulk', BACKLOG, () => backlogDue));
    console.log(`backlog of ${BACKLOG} created in ${Date.now() - t0} ms, lead ${Math.round(leadMs)} ms`);
    expect(Date.now(), 'backlog created before its instant').toBeLessThan(backlogDue - 300);
  }, 30_000);
  afterAll(async () => {
    if (server) await stopChild(server, 3_000);
    await receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Creates {@link UNKEYED} calls without a key due every 100 ms from `start` (group `group`); returns path → instant. */
  async function unkeyed(group: string, start: number): Promise<Map<string, number>> {
    const planned = plan(group, null, UNKEYED, (i) => start + i * 100);
    await create(planned);
    expect(Date.now(), 'created before the first instant').toBeLessThan(start);
    return new Map(planned.map((p) => [`/${group}/${p.i}`, p.at]));
  }
  /** Their lateness is within the bounds of the dispatch test. */
  async function expectOnTime(group: string, due: Map<string, number>): Promise<void> {
    await allDone(group, UNKEYED, 10_000);
    const lateness = expectEachOnce(group, UNKEYED).map((c) => c.at - due.get(c.path)!);
    const [p50, p90, max] = [quantile(lateness, 0.5), quantile(lateness, 0.9), Math.max(...lateness)];
    const key = await getKey('bulk');
    console.log(`${group}: ${key.waiting} of the key waiting; lateness p50 ${p50} ms, p90 ${p90} ms, max ${max} ms (by call: ${lateness.join(' ')})`);
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
    expect(p50).toBeLessThan(25);
    expect(p90).toBeLessThan(100);
    expect(max).toBeLessThan(1_000);
  }

  // A claim takes the due sources in order of their instants: the backlog's 10,000 schedules, due
  // first, are set waiting first (each uses none of the claim's room, and a claim whose read was
  // full reads again, CLAIM_READS_MAX), so a call without a key due after them waits for that
  // (about 1 s here, as it would behind 10,000 calls without a key, which take longer), and then
  // every call is on time: lateness falls by 100 ms a call.
  it('are late only while the backlog coming due at once is set waiting, then on time', async () => {
    const due = await unkeyed('comingdue', backlogDue + 100);
    await allDone('comingdue', UNKEYED, 10_000);
    const lateness = expectEachOnce('comingdue', UNKEYED)
      .sort((a, b) => due.get(a.path)! - due.get(b.path)!)
      .map((c) => c.at - due.get(c.path)!);
    console.log(`comingdue: lateness by call ${lateness.join(' ')} ms`);
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...lateness)).toBeLessThan(3_000);
    for (const late of lateness.slice(-3)) expect(late).toBeLessThan(25);
  }, 20_000);

  it('stay on time once the backlog waits for its key', async () => {
    await until(backlogDue);
    await expect.poll(async () => (await getKey('bulk')).waiting, { timeout: 10_000, interval: 100 }).toBeGreaterThanOrEqual(BACKLOG - 30);
    const due = await unkeyed('ontime', Date.now() + 300);
    await expectOnTime('ontime', due);
    // The backlog was there all along, two calls at a time.
    expect((await getKey('bulk')).waiting).toBeGreaterThan(BACKLOG - 100);
    expect(receiver.peak('bulk')).toBe(2);
    // Left waiting, not running, while the server stops.
    expect((await api('POST', '/flow-control-keys/bulk/pause')).status).toBe(200);
  }, 20_000);
});
