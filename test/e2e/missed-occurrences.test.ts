import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, spawnServer, stopChild, until, type ChildServer } from '../support/child.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const TOKEN = 'missed-test-bootstrap-token-0123456789';
const STOPPED_MS = 5_000;

/** `Punctual-Missed-Occurrences: count=4; first=…Z; last=…Z; capped=false` → its parts (docs/calls.md). */
function parseMissed(value: string): Record<string, string> {
  return Object.fromEntries(value.split('; ').map((part) => part.split('=') as [string, string]));
}

/**
 * A real stop and start: the service runs as a child process on a SQLite file, is stopped
 * (SIGTERM, a graceful exit) for 5 s by the clock (the outage is the point of the test), and a
 * new process starts on the same file. The first call of an every-second cron job with misfire
 * `once` after the restart says which occurrences it stands for, and the API shows the same.
 */
describe('missed occurrences across a restart (real child processes)', () => {
  let dir: string;
  let receiver: Receiver;
  const children: ChildServer[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-missed-'));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("misfire 'once': the first call after 5 s down carries Punctual-Missed-Occurrences, matching the execution", async () => {
    const env = { DATABASE_URL: `file:${join(dir, 'p.db')}`, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN };
    const first = await spawnServer(env);
    children.push(first);
    const created = await call(first.url, TOKEN, 'POST', '/cron', {
      expression: '* * * * * *',
      endpoint: `${receiver.url}/missed`,
      misfire: 'once',
    });
    expect(created.status).toBe(201);
    const jobId = (created.body as { id: string }).id;
    // It runs on time before the stop, and an on-time call carries no such header.
    await receiver.waitFor((a) => a.filter((x) => x.path === '/missed').length >= 2);
    expect(receiver.arrivals.find((x) => x.path === '/missed')!.headers['punctual-missed-occurrences']).toBeUndefined();

    await stopChild(first);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    const stoppedAt = Date.now();
    const lastBefore = Math.max(
      ...receiver.arrivals.filter((x) => x.path === '/missed').map((x) => Date.parse(String(x.headers['punctual-scheduled-for']))),
    );
    await until(stoppedAt + STOPPED_MS);

    const restartAt = Date.now();
    const second = await spawnServer(env);
    children.push(second);
    await receiver.waitFor((a) => a.some((x) => x.path === '/missed' && x.at >= restartAt));
    const firstAfter = receiver.arrivals.find((x) => x.path === '/missed' && x.at >= restartAt)!;

    const header = firstAfter.headers['punctual-missed-occurrences'];
    expect(typeof header).toBe('string');
    const missed = parseMissed(header as string);
    expect(Object.keys(missed)).toEqual(['count', 'first', 'last', 'capped']);
    const count = Number(missed.count);
    const firstAt = Date.parse(missed.first!);
    const lastAt = Date.parse(missed.last!);
    // Every second of the outage was missed: at least 4 occurrences (5 s down, plus the start).
    expect(count).toBeGreaterThanOrEqual(4);
    expect(missed.capped).toBe('false');
    // first: the occurrence after the last one called before the stop, which the call is for.
    expect(firstAt).toBe(lastBefore + 1000);
    expect(missed.first).toBe(firstAfter.headers['punctual-scheduled-for']);
    // last: the newest occurrence at or before the claim, after the outage; one a second between.
    expect(lastAt).toBeGreaterThanOrEqual(stoppedAt + STOPPED_MS - 1000);
    expect(lastAt).toBeLessThanOrEqual(firstAfter.at);
    expect(count).toBe((lastAt - firstAt) / 1000 + 1);

    // The API shows what the header said, on the execution and in the job's list.
    const executionId = String(firstAfter.headers['webhook-id']);
    const got = await call(second.url, TOKEN, 'GET', `/executions/${executionId}`);
    expect(got.status).toBe(200);
    const wire = { count, first: missed.first, last: missed.last, capped: false };
    expect(got.body).toMatchObject({ id: executionId, jobId, missedOccurrences: wire });
    const list = (await call(second.url, TOKEN, 'GET', `/cron/${jobId}/executions?limit=100`)).body as {
      executions: { id: string; missedOccurrences: unknown }[];
    };
    expect(list.executions.find((e) => e.id === executionId)?.missedOccurrences).toEqual(wire);
    // Only that one stands for others.
    expect(list.executions.filter((e) => e.missedOccurrences !== null)).toHaveLength(1);

    await stopChild(second);
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});
