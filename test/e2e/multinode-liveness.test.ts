import { afterEach, describe, expect, it } from 'vitest';
import { call, nodeLog, spawnReceiver, spawnServer, stopChild, type ChildReceiver, type ChildServer } from '../support/child.js';
import type { Arrival } from '../support/receiver.js';
import { POSTGRES, type TestDatabase } from '../support/stores.js';

/**
 * Takeover in seconds (docs/multinode.md, "Node liveness"), with real processes on real
 * PostgreSQL and a receiver in its own process: three `--role all` nodes; one is SIGKILLed while
 * calls of 60-s `timeoutMs` are in flight (every answer takes ANSWER_MS). Its leases would last
 * 65 s; the survivors see its heartbeat stop and release them, so all of its work arrives within
 * 15 s of the kill, and only its calls in flight arrive twice (a later attempt of the same
 * execution, same `webhook-id`). Run with `PUNCTUAL_NODE_TIMEOUT=5s` and with the defaults (10 s,
 * heartbeat every 2 s). `GET /nodes` and `punctual_nodes_live` show the cluster shrink.
 */
const TOKEN = 'liveness-test-bootstrap-token-0123456789ab';
/** Calls' timeout: far beyond the 15 s the takeover may take, so only liveness can explain it. */
const CALL_TIMEOUT_MS = 60_000;
/** How long the receiver takes to answer, so calls are in flight when the node dies. */
const ANSWER_MS = 3_000;
const TAKEOVER_MS = 15_000;

const header = (a: Arrival, name: string) => a.headers[name] as string;

describe.skipIf(POSTGRES === null)('node liveness: a SIGKILLed node’s calls in flight are taken over within 15 s (real processes)', () => {
  let db: TestDatabase | null = null;
  let receiver: ChildReceiver | null = null;
  let nodes: ChildServer[] = [];

  afterEach(async () => {
    await Promise.all(nodes.map((n) => stopChild(n, 3_000)));
    nodes = [];
    await receiver?.close();
    await db?.drop();
  });

  const liveIds = async (node: ChildServer): Promise<string[]> => {
    const res = await call(node.url, TOKEN, 'GET', '/nodes');
    expect(res.status).toBe(200);
    return (res.body as { nodes: { nodeId: string }[] }).nodes.map((n) => n.nodeId).sort();
  };

  async function takeover(label: string, liveness: Record<string, string>, count: number): Promise<void> {
    db = await POSTGRES!.create();
    receiver = await spawnReceiver();
    receiver.delay(`/${label}/`, ANSWER_MS);
    const env = {
      DATABASE_URL: db.url,
      PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
      PUNCTUAL_RATE_LIMIT_PER_SECOND: '0',
      LOG_LEVEL: 'debug',
      ...liveness,
    };
    nodes = [await spawnServer(env)]; // the first migrates
    nodes.push(...(await Promise.all([0, 1].map(() => spawnServer(env)))));
    const ids = nodes.map((n) => nodeLog(n).nodeId);
    await expect.poll(() => liveIds(nodes[0]!), { timeout: 10_000 }).toEqual([...ids].sort());

    // The burst, created through the node to be killed (its own dispatcher wakes at once; the
    // others hear NOTIFY), due within a second, 60-s timeout each.
    const victim = nodes[2]!;
    // Due 4 s from now: 300 creates take about a second on a busy 2-core machine (this file runs
    // beside another of the real-time group).
    const start = Date.now() + 4_000;
    const jobIds = new Set<string>();
    await Promise.all(
      [...Array(count).keys()].map(async (i) => {
        const res = await call(victim.url, TOKEN, 'POST', '/schedules', {
          name: `${label}-${i}`,
          scheduledAt: new Date(start + Math.floor((i * 1_000) / count)).toISOString(),
          endpoint: `${receiver!.url}/${label}/${i}`,
          timeoutMs: CALL_TIMEOUT_MS,
        });
        expect(res.status).toBe(201);
        jobIds.add((res.body as { id: string }).id);
      }),
    );
    expect(Date.now(), 'created before the burst').toBeLessThan(start);
    // Kill it while every call of the burst is in flight (answers take 3 s).
    await receiver.waitFor((a) => new Set(a.filter((x) => x.path.startsWith(`/${label}/`)).map((x) => header(x, 'punctual-job-id'))).size >= count, 10_000);
    const killAt = Date.now();
    victim.proc.kill('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    const deadAt = Date.now();
    const first = receiver.arrivals.filter((a) => a.path.startsWith(`/${label}/`));

    // Every execution of the burst is finished by some node (its attempt logged): the killed
    // node's calls in flight only once a survivor has taken them over.
    const survivors = nodes.slice(0, 2);
    await expect
      .poll(
        () => {
          const done = new Set(nodes.flatMap((s) => nodeLog(s).finished.map((f) => f.executionId)));
          const wanted = new Set(first.map((a) => header(a, 'webhook-id')));
          return [...wanted].filter((id) => !done.has(id)).length;
        },
        { timeout: TAKEOVER_MS + ANSWER_MS + 5_000, interval: 250 },
      )
      .toBe(0);
    const calls = receiver.arrivals.filter((a) => a.path.startsWith(`/${label}/`));
    expect(new Set(calls.map((a) => header(a, 'punctual-job-id')))).toEqual(jobIds);

    const byId = new Map<string, Arrival[]>();
    for (const a of calls) byId.set(header(a, 'webhook-id'), [...(byId.get(header(a, 'webhook-id')) ?? []), a]);
    const survivorsFinished = new Set(survivors.flatMap((s) => nodeLog(s).finished).map((f) => `${f.executionId}#${f.attempt}`));
    const duplicated = [...byId.entries()].filter(([, list]) => list.length > 1);
    const takenOver: number[] = [];
    for (const [id, list] of duplicated) {
      const [once, ...again] = list;
      // In flight on the killed node: arrived before it died, and no survivor finished that attempt.
      expect(once!.at, `${id}: first arrival before the kill`).toBeLessThanOrEqual(deadAt);
      expect(survivorsFinished.has(`${id}#${header(once!, 'punctual-attempt')}`), `${id}: the killed node's attempt`).toBe(false);
      expect(again).toHaveLength(1);
      expect(Number(header(again[0]!, 'punctual-attempt'))).toBe(Number(header(once!, 'punctual-attempt')) + 1);
      takenOver.push(again[0]!.at - killAt);
    }
    // The killed node had work in flight, and all of it arrived again within 15 s of the kill.
    expect(duplicated.length, 'calls in flight on the killed node').toBeGreaterThan(0);
    expect(Math.max(...takenOver), 'takeover after the kill (ms)').toBeLessThan(TAKEOVER_MS);

    // The cluster shrank: the killed node is no longer live, on /nodes and in the gauge.
    expect(await liveIds(nodes[0]!)).toEqual(survivors.map((s) => nodeLog(s).nodeId).sort());
    const metrics = await fetch(`${nodes[0]!.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await metrics.text()).toMatch(/^punctual_nodes_live 2$/m);
    const reaper = survivors.flatMap((s) => s.lines).find((l) => l.includes('liveness: dead nodes removed'));
    expect(reaper, 'a survivor logged the reaping').toContain(ids[2]);
    console.log(
      `${label}: killed ${ids[2]!.slice(0, 8)} with ${duplicated.length} of ${count} calls in flight on it; ` +
        `taken over ${Math.min(...takenOver)}–${Math.max(...takenOver)} ms after the kill (leases would have lasted ${CALL_TIMEOUT_MS + 5_000} ms)`,
    );
  }

  it('PUNCTUAL_NODE_TIMEOUT=5s, heartbeat every second: 300 calls of 60-s timeout', async () => {
    await takeover('fast', { PUNCTUAL_NODE_TIMEOUT: '5s', PUNCTUAL_NODE_HEARTBEAT_MS: '1000' }, 300);
  }, 90_000);

  it('the defaults (10 s, heartbeat every 2 s): 60 calls of 60-s timeout', async () => {
    await takeover('default', {}, 60);
  }, 90_000);
});
