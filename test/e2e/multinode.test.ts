import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, nodeLog, spawnReceiver, spawnServer, stopChild, type ChildReceiver, type ChildServer } from '../support/child.js';
import type { Arrival } from '../support/receiver.js';
import { quantile } from '../support/server.js';
import { POSTGRES, type TestDatabase } from '../support/stores.js';

/**
 * Proof of the multi-node guarantees (docs/multinode.md), with real processes on real PostgreSQL
 * and a real receiver: several `punctual serve` nodes share one database; no occurrence is lost or
 * doubled, a node killed with SIGKILL loses nothing, and a node whose clock is ahead fires nothing
 * early.
 *
 * The cluster: one `--role api` node (all creates go through it, so dispatchers learn of work only
 * through the store: NOTIFY and their own timers) and three `--role dispatcher` nodes, at
 * LOG_LEVEL=debug so each logs `dispatch: attempt finished` with its node id — how the test
 * counts each node's share (nothing in an HTTP call says which node made it, by design).
 *
 * Each occurrence is identified by its `webhook-id` (the execution id). "Every occurrence
 * arrives": every schedule's execution, and every execution the store made for the cron jobs, with
 * no gap in each cron job's seconds. "None twice": no webhook-id arrives twice (test 1); after a
 * SIGKILL (test 2), only calls that were in flight on the killed node arrive again, as later
 * attempts of the same execution after its lease expired.
 */
const TOKEN = 'multinode-test-bootstrap-token-0123456789';
const SCHEDULES = 5_000;
const WINDOW_MS = 2_000;
const CRON_JOBS = 20;
const CRON_RUN_MS = 10_000;
/** Jobs' call timeout (the API node's default): a dead node's lease is this + 5 s. */
const TIMEOUT_MS = 3_000;
/** Schedules per `POST /schedules/batch`. */
const BATCH = 250;
/** Concurrent batch POSTs while creating. */
const CREATE_WIDTH = 4;

/** Runs `fn` on every item with at most `width` at a time. */
async function inParallel<T>(items: T[], width: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

const header = (a: Arrival, name: string) => a.headers[name] as string;
const scheduledFor = (a: Arrival) => Date.parse(header(a, 'punctual-scheduled-for'));

interface Round {
  /** Schedule id → its instant (epoch ms). */
  schedules: Map<string, number>;
  cronIds: string[];
  cronCreatedAt: number;
  /** When the schedules' window opens (epoch ms). */
  start: number;
}

describe.skipIf(POSTGRES === null)('many nodes on one PostgreSQL database (real processes)', () => {
  let db: TestDatabase;
  let receiver: ChildReceiver;
  let api: ChildServer;
  let dispatchers: ChildServer[] = [];
  const others: ChildServer[] = [];

  const env = () => ({
    DATABASE_URL: db.url,
    PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
    PUNCTUAL_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
    PUNCTUAL_SHUTDOWN_GRACE_MS: '1000',
    PUNCTUAL_RATE_LIMIT_PER_SECOND: '0',
  });

  beforeAll(async () => {
    db = await POSTGRES!.create();
    receiver = await spawnReceiver();
    // The API node first: it migrates the schema; the dispatchers then start together.
    api = await spawnServer(env(), { args: ['--role', 'api'] });
    dispatchers = await Promise.all(
      [0, 1, 2].map(() => spawnServer({ ...env(), LOG_LEVEL: 'debug' }, { args: ['--role', 'dispatcher'] })),
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([api, ...dispatchers, ...others].filter(Boolean).map((c) => stopChild(c, 3_000)));
    await receiver?.close();
    await db?.drop();
  });

  const post = (path: string, body: unknown) => call(api.url, TOKEN, 'POST', path, body);

  /**
   * Creates SCHEDULES schedules due within WINDOW_MS, in batches of BATCH (`POST /schedules/batch`,
   * CREATE_WIDTH at a time), then CRON_JOBS every-second cron jobs, all through the API node.
   * Paths start with `/${label}/`. The window opens once all of them can be created: the lead is
   * measured on PROBE_BATCHES batches created first, after one for warm-up (due in an hour; their
   * names start with `${label}-probe`), so a slow machine gets a longer lead rather than a round
   * whose instants pass while it is still being created.
   */
  async function createRound(label: string): Promise<Round> {
    const PROBE_BATCHES = 4;
    const createBatch = async (items: { name: string; scheduledAt: number; path: string }[]) => {
      const res = await post('/schedules/batch', {
        schedules: items.map((x) => ({ name: x.name, scheduledAt: new Date(x.scheduledAt).toISOString(), endpoint: `${receiver.url}${x.path}` })),
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
      return (res.body as { schedules: { id: string; name: string }[] }).schedules;
    };
    const probe = (batches: number, from: number) =>
      inParallel([...Array(batches).keys()], CREATE_WIDTH, async (b) => {
        const at = Date.now() + 3_600_000;
        await createBatch(
          [...Array(BATCH).keys()].map((i) => ({ name: `${label}-probe-${(from + b) * BATCH + i}`, scheduledAt: at, path: `/${label}/probe` })),
        );
      });
    await probe(1, 0); // warm-up (JIT, connections), not measured
    const p0 = Date.now();
    await probe(PROBE_BATCHES, 1);
    const perMs = (PROBE_BATCHES * BATCH) / Math.max(1, Date.now() - p0);
    const leadMs = Math.min(30_000, Math.round((1.4 * SCHEDULES) / perMs) + 1_000);
    const start = Date.now() + leadMs;
    const schedules = new Map<string, number>();
    const atOf = (i: number) => start + Math.floor((i * WINDOW_MS) / SCHEDULES);
    const t0 = Date.now();
    await inParallel([...Array(SCHEDULES / BATCH).keys()], CREATE_WIDTH, async (b) => {
      const items = [...Array(BATCH).keys()].map((k) => b * BATCH + k);
      const created = await createBatch(items.map((i) => ({ name: `${label}-${i}`, scheduledAt: atOf(i), path: `/${label}/s/${i}` })));
      expect(created).toHaveLength(BATCH);
      for (const c of created) schedules.set(c.id, atOf(Number(c.name.slice(label.length + 1))));
    });
    const took = Date.now() - t0;
    // Created after their instants would make the round meaningless: a setup fault, not a result.
    expect(Date.now(), 'schedules created before their window opens').toBeLessThan(start);
    const ahead = start - Date.now();
    // The cron jobs last, a second before the window: their 10 s run over the schedules' burst.
    await new Promise((r) => setTimeout(r, Math.max(0, start - 1_000 - Date.now())));
    const cronIds: string[] = [];
    const cronCreatedAt = Date.now();
    await inParallel([...Array(CRON_JOBS).keys()], 10, async (i) => {
      // misfire 'all': an occurrence claimed late (a loaded machine) still runs, so "every
      // occurrence arrives" is about the cluster, not about the misfire policy.
      const res = await post('/cron', {
        expression: '* * * * * *',
        name: `${label}-cron-${i}`,
        endpoint: `${receiver.url}/${label}/cron/${i}`,
        misfire: 'all',
      });
      expect(res.status).toBe(201);
      cronIds.push((res.body as { id: string }).id);
    });
    console.log(
      `${label}: created ${SCHEDULES} schedules in ${took} ms (${Math.round((SCHEDULES * 1000) / took)}/s; ` +
        `lead ${leadMs} ms from a probe at ${Math.round(perMs * 1000)}/s), ${ahead} ms before the window`,
    );
    return { schedules, cronIds, cronCreatedAt, start };
  }

  /** Pauses the round's cron jobs once they have run CRON_RUN_MS; returns their executions (oldest first). */
  async function stopCron(round: Round): Promise<Map<string, { id: string; scheduledFor: number }[]>> {
    await new Promise((r) => setTimeout(r, Math.max(0, round.cronCreatedAt + CRON_RUN_MS - Date.now())));
    await inParallel(round.cronIds, 10, async (id) => {
      expect((await call(api.url, TOKEN, 'PATCH', `/cron/${id}`, { status: 'Paused' })).status).toBe(200);
    });
    const out = new Map<string, { id: string; scheduledFor: number }[]>();
    for (const id of round.cronIds) {
      const page = (await call(api.url, TOKEN, 'GET', `/cron/${id}/executions?limit=100`)).body as {
        executions: { id: string; scheduledFor: string }[];
      };
      out.set(id, page.executions.map((e) => ({ id: e.id, scheduledFor: Date.parse(e.scheduledFor) })).reverse());
    }
    return out;
  }

  /** Each cron job ran every second from its first occurrence on, with no gap, ≥ 9 times in its 10 s. */
  function expectContiguous(executions: Map<string, { scheduledFor: number }[]>): number {
    let total = 0;
    for (const list of executions.values()) {
      expect(list.length).toBeGreaterThanOrEqual(9);
      for (let i = 1; i < list.length; i++) expect(list[i]!.scheduledFor - list[i - 1]!.scheduledFor).toBe(1_000);
      total += list.length;
    }
    return total;
  }

  /** Every schedule of the round ends Succeeded (read through the API node). */
  async function expectAllSucceeded(label: string): Promise<void> {
    await expect
      .poll(
        async () => {
          // Lists page: follow nextCursor through the Succeeded schedules of the round.
          let count = 0;
          let cursor: string | null = null;
          do {
            const query = `status=Succeeded&name=${encodeURIComponent(`${label}-`)}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
            const page = (await call(api.url, TOKEN, 'GET', `/schedules?${query}`)).body as {
              schedules: { name: string }[];
              nextCursor: string | null;
            };
            count += page.schedules.filter((s) => /^m\d-\d+$/.test(s.name) && s.name.startsWith(`${label}-`)).length;
            cursor = page.nextCursor;
          } while (cursor !== null);
          return count;
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(SCHEDULES);
  }

  it('three dispatchers: 5,000 schedules due within 2 s and 20 every-second cron jobs for 10 s, each once, none early', async () => {
    const round = await createRound('m1');
    const arrivalsOf = (prefix: string) => receiver.arrivals.filter((a) => a.path.startsWith(prefix));
    await receiver.waitFor((a) => a.filter((x) => x.path.startsWith('/m1/s/')).length >= SCHEDULES, 30_000);
    const cron = await stopCron(round);
    const cronExecutionIds = [...cron.values()].flat().map((e) => e.id);
    // Every cron execution the store made has arrived (the last ones may still be on their way).
    await receiver.waitFor((a) => {
      const seen = new Set(a.map((x) => header(x, 'webhook-id')));
      return cronExecutionIds.every((id) => seen.has(id));
    }, 15_000);
    await new Promise((r) => setTimeout(r, 1_000)); // a late duplicate would show itself by now
    await expectAllSucceeded('m1');

    const calls = arrivalsOf('/m1/');
    const scheduleCalls = arrivalsOf('/m1/s/');
    const cronCalls = arrivalsOf('/m1/cron/');
    // Every schedule once: one call per schedule id, each with its own webhook-id.
    expect(new Set(scheduleCalls.map((a) => header(a, 'punctual-job-id')))).toEqual(new Set(round.schedules.keys()));
    const ids = calls.map((a) => header(a, 'webhook-id'));
    const duplicates = ids.length - new Set(ids).size;
    if (duplicates > 0) {
      const seen = new Map<string, Arrival[]>();
      for (const a of calls) seen.set(header(a, 'webhook-id'), [...(seen.get(header(a, 'webhook-id')) ?? []), a]);
      const sample = [...seen.values()].filter((l) => l.length > 1).slice(0, 5);
      console.log(
        'duplicates (attempt@ms after instant):',
        sample.map((l) => l.map((a) => `${header(a, 'punctual-attempt')}@${a.at - scheduledFor(a)}`).join(',')).join(' | '),
      );
    }
    expect(duplicates, 'webhook-ids that arrived twice').toBe(0);
    expect(scheduleCalls).toHaveLength(SCHEDULES);
    // Every cron occurrence once, none missing between the first and the last.
    const occurrences = expectContiguous(cron);
    expect(new Set(cronCalls.map((a) => header(a, 'webhook-id')))).toEqual(new Set(cronExecutionIds));
    expect(cronCalls).toHaveLength(occurrences);
    // None early.
    const lateness = calls.map((a) => a.at - scheduledFor(a));
    expect(Math.min(...lateness), 'earliest call relative to its instant (ms)').toBeGreaterThanOrEqual(0);
    // Each node took a share.
    const idSet = new Set(ids);
    const shares = dispatchers.map((d) => nodeLog(d).finished.filter((f) => idSet.has(f.executionId)).length);
    console.log(
      `m1: ${SCHEDULES} schedules + ${occurrences} cron occurrences = ${calls.length} calls, ${duplicates} duplicates, ` +
        `${lateness.filter((l) => l < 0).length} early; lateness p50 ${quantile(lateness, 0.5)} ms, ` +
        `p99 ${quantile(lateness, 0.99)} ms, max ${Math.max(...lateness)} ms; shares by node ${shares.join(' / ')}`,
    );
    for (const share of shares) expect(share).toBeGreaterThan(0);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(calls.length);
  }, 60_000);

  it('SIGKILL of one dispatcher mid-window: nothing lost; only its calls in flight arrive again, same webhook-id', async () => {
    // Answers take 200 ms, so each node has calls in flight when one is killed.
    receiver.delay('/m2/', 200);

    const round = await createRound('m2');
    const victim = dispatchers[0]!;
    const victimId = nodeLog(victim).nodeId;
    await new Promise((r) => setTimeout(r, round.start + WINDOW_MS / 2 - Date.now()));
    const killAt = Date.now();
    victim.proc.kill('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    const deadAt = Date.now();
    const victimFinished = nodeLog(victim).finished.length;

    await receiver.waitFor((a) => new Set(a.filter((x) => x.path.startsWith('/m2/s/')).map((x) => header(x, 'punctual-job-id'))).size >= SCHEDULES, 30_000);
    const cron = await stopCron(round);
    const cronExecutionIds = [...cron.values()].flat().map((e) => e.id);
    await receiver.waitFor((a) => {
      const seen = new Set(a.map((x) => header(x, 'webhook-id')));
      return cronExecutionIds.every((id) => seen.has(id));
    }, 20_000);
    await expectAllSucceeded('m2');
    await new Promise((r) => setTimeout(r, 500));

    const calls = receiver.arrivals.filter((a) => a.path.startsWith('/m2/'));
    // Nothing lost.
    expect(new Set(calls.filter((a) => a.path.startsWith('/m2/s/')).map((a) => header(a, 'punctual-job-id')))).toEqual(
      new Set(round.schedules.keys()),
    );
    const occurrences = expectContiguous(cron);
    const cronCalls = calls.filter((a) => a.path.startsWith('/m2/cron/'));
    expect(new Set(cronCalls.map((a) => header(a, 'webhook-id')))).toEqual(new Set(cronExecutionIds));
    // Duplicates: only calls in flight on the killed node — first arrival before it died, never
    // finished by a survivor at that attempt, arriving again as a later attempt of the same execution.
    const byId = new Map<string, Arrival[]>();
    for (const a of calls) byId.set(header(a, 'webhook-id'), [...(byId.get(header(a, 'webhook-id')) ?? []), a]);
    const survivorsFinished = new Set(
      dispatchers
        .slice(1)
        .flatMap((d) => nodeLog(d).finished)
        .map((f) => `${f.executionId}#${f.attempt}`),
    );
    const duplicated = [...byId.entries()].filter(([, list]) => list.length > 1);
    for (const [id, list] of duplicated) {
      const [first, ...again] = list;
      // The receiver runs on this process's event loop, which may see the victim's exit before
      // the request bytes the victim wrote just before it died (255 ms later once on a loaded CI
      // machine). A survivor can send the execution again only after its lease expired or the
      // node was declared dead (seconds later), so 1 s still tells the two apart.
      expect(first!.at, `first arrival of ${id} before the killed node died`).toBeLessThanOrEqual(deadAt + 1_000);
      expect(survivorsFinished.has(`${id}#${header(first!, 'punctual-attempt')}`), `${id}: first attempt was the killed node's`).toBe(false);
      for (const a of again) expect(Number(header(a, 'punctual-attempt'))).toBeGreaterThan(Number(header(first!, 'punctual-attempt')));
    }
    // The kill did interrupt calls (otherwise this test would prove nothing about them).
    expect(duplicated.length).toBeGreaterThan(0);
    const lateness = calls.map((a) => a.at - scheduledFor(a));
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
    console.log(
      `m2: killed node ${victimId.slice(0, 8)} at window +${killAt - round.start} ms (dead ${deadAt - killAt} ms later; it had finished ${victimFinished} attempts); ` +
        `${SCHEDULES} schedules + ${occurrences} cron occurrences, ${calls.length} calls, ${duplicated.length} webhook-ids arrived twice ` +
        `(all in flight on the killed node), ${lateness.filter((l) => l < 0).length} early; max lateness ${Math.max(...lateness)} ms`,
    );
  }, 60_000);

  it('a node whose clock is 5 s ahead fires nothing early', async () => {
    const skewedDb = await POSTGRES!.create();
    try {
      const node = await spawnServer({
        DATABASE_URL: skewedDb.url,
        PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
        PUNCTUAL_TEST_CLOCK_OFFSET_MS: '5000',
      });
      others.push(node);
      const start = Date.now() + 1_500;
      await inParallel([...Array(200).keys()], 16, async (i) => {
        const res = await call(node.url, TOKEN, 'POST', '/schedules', {
          name: `skew-${i}`,
          scheduledAt: new Date(start + i * 5).toISOString(),
          endpoint: `${receiver.url}/skew/s/${i}`,
        });
        expect(res.status).toBe(201);
      });
      const cron = await call(node.url, TOKEN, 'POST', '/cron', { expression: '* * * * * *', endpoint: `${receiver.url}/skew/cron` });
      expect(cron.status).toBe(201);
      await receiver.waitFor(
        (a) => a.filter((x) => x.path.startsWith('/skew/s/')).length >= 200 && a.filter((x) => x.path === '/skew/cron').length >= 3,
        15_000,
      );
      await stopChild(node);
      const calls = receiver.arrivals.filter((a) => a.path.startsWith('/skew/'));
      const lateness = calls.map((a) => a.at - scheduledFor(a));
      console.log(
        `skew +5 s: ${calls.length} calls, ${lateness.filter((l) => l < 0).length} early; ` +
          `earliest ${Math.min(...lateness)} ms, p99 ${quantile(lateness, 0.99)} ms, max ${Math.max(...lateness)} ms after the instant`,
      );
      expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
      // And not held back by the skew either: on time by the database's clock.
      expect(quantile(lateness, 0.99)).toBeLessThan(2_000);
    } finally {
      await skewedDb.drop();
    }
  }, 30_000);
});
