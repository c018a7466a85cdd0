import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, spawnReceiver, spawnServer, type ChildReceiver, type ChildServer } from '../support/child.js';
import { quantile } from '../support/server.js';

/**
 * Isolation (issue #3 §5): a hundred endpoints that hang until the call timeout must not make
 * healthy jobs late. Healthy lateness p99 with 100 hanging endpoints ≤ 2 × the p99 without them,
 * measured in the same test on the same server (a warm-up round, then the baseline, then the
 * round with the hangers).
 *
 * The service runs in its own process (`punctual serve`, test/support/child.ts), the healthy
 * receiver in another (`spawnReceiver`), the hanging endpoints in this one. Were the receiver in
 * the process of the service or of the hangers, their work (accepting 100 connections a wave)
 * would delay its timestamps, and the figure would measure the receiver rather than when the call
 * reached it.
 */
const TOKEN = 'isolation-test-bootstrap-token-0123456789';

/** Healthy schedules per round, spread evenly over {@link WINDOW_MS}. */
const HEALTHY = 100;
const WINDOW_MS = 1_000;
/** Hanging endpoints: each its own TCP server, hence its own origin and its own undici pool. */
const HANGING = 100;
/**
 * Each hanging endpoint is called in three waves (100 ms before the window, then 200 ms and 500 ms
 * into it), so calls that hang are in flight during the whole window and the first wave's
 * timeouts (1 s, the minimum PUNCTUAL_REQUEST_TIMEOUT_MS) fire inside it. 300 calls in all:
 * below the cap of 512 in flight, which is the point — the cap is not what protects the healthy.
 */
const HANG_WAVES_MS = [-100, 200, 500];
/** Time given to create a round's schedules through the API before its window opens. */
const LEAD_MS = 2_500;
/*
 * ROUNDS: a warm-up, three baseline rounds, then three rounds with the hangers (the hanging rounds
 * last: their calls fail for a second afterwards). Each side's figure is the best p99 of its
 * rounds. The p99 of 100 calls is their second-worst lateness, so one scheduler hiccup in one
 * round moves it: in A/A runs of this test (no hanger in any round, on the 2-core machine of
 * docs/benchmarks.md while other work ran on it), the second round's p99 was more than twice the
 * first's in 2 pairs of 6 (10 → 33 ms, 13 → 30 ms). A defect of isolation shows in every hanging
 * round; a hiccup rarely hits every round of a side. Two rounds a side gave ratios up to 2.0
 * (4 → 8 ms) in 14 runs of 2026-11-21 with baselines of 4-9 ms, so a third round was added.
 */

/** A TCP server that accepts connections, reads requests, and never answers. */
interface Hanger {
  url: string;
  /** Epoch ms of each request's first bytes. */
  hits: number[];
  close(): Promise<void>;
}

async function startHanger(): Promise<Hanger> {
  const sockets = new Set<Socket>();
  const hits: number[] = [];
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      if (chunk.includes('POST ')) hits.push(Date.now());
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

/*
 * History: measured 2026-11-21 15:55, healthy p99 4 ms without hangers and 10-15 ms with them,
 * and the test was skipped by default. Two causes were found the next evening, with the service's
 * debug log beside the arrivals: (1) the healthy call due at a wave's instant waited for the claim
 * of the whole wave (101 items, 6-8 ms of SQLite work on the event loop), and the 100 connections
 * a wave opens kept the next 60 ms of healthy calls 7-21 ms late; the dispatcher's first claim is
 * now at most 32 items with a turn of the event loop before the next, and the launch queue starts
 * at most 4 calls to slow origins per turn. (2) The hanging calls were retried (5 attempts by
 * default), so in the second hanging round the first round's retries were in flight too, over
 * the cap of 512 with the new waves: the dispatcher stopped claiming until places were free, and
 * healthy calls came 60-95 ms late. That measured the cap, not isolation: the hanging schedules now
 * have `maxAttempts: 1`, which keeps the 300 calls below the cap as designed (HANG_WAVES_MS).
 */
describe('isolation from hanging endpoints (issue #3 §5)', () => {
  let dir: string;
  let server: ChildServer;
  let receiver: ChildReceiver;
  let hangers: Hanger[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-isolation-'));
    receiver = await spawnReceiver();
    hangers = await Promise.all(Array.from({ length: HANGING }, startHanger));
    server = await spawnServer({
      DATABASE_URL: `file:${join(dir, 'punctual.db')}`,
      PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
      PUNCTUAL_REQUEST_TIMEOUT_MS: '1000',
      PUNCTUAL_SHUTDOWN_GRACE_MS: '0',
      // The receiver and the hanging endpoints are on 127.0.0.1, which the SSRF guard refuses by default.
      PUNCTUAL_ALLOWED_NETWORKS: '127.0.0.0/8',
    });
  });
  afterAll(async () => {
    if (server && server.proc.exitCode === null && server.proc.signalCode === null) {
      server.proc.kill('SIGTERM');
      const timer = setTimeout(() => server.proc.kill('SIGKILL'), 5_000);
      await server.exited;
      clearTimeout(timer);
    }
    await Promise.all(hangers.map((h) => h.close()));
    await receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /**
   * One round: HEALTHY schedules due over WINDOW_MS (and, with `hang`, three waves of calls to
   * every hanging endpoint), all created through the API before the window opens. Returns the
   * healthy calls' lateness (arrival − scheduledAt, ms).
   */
  async function round(label: string, hang: boolean): Promise<number[]> {
    const start = Date.now() + LEAD_MS;
    const jobs: { name: string; at: number; endpoint: string }[] = [];
    const due = new Map<string, number>();
    for (let i = 0; i < HEALTHY; i++) {
      const at = start + Math.floor((i * WINDOW_MS) / HEALTHY);
      const path = `/healthy/${label}/${i}`;
      due.set(path, at);
      jobs.push({ name: `${label}-healthy-${i}`, at, endpoint: receiver.url + path });
    }
    if (hang) {
      hangers.forEach((h, k) =>
        HANG_WAVES_MS.forEach((offset, w) =>
          jobs.push({ name: `${label}-hang-${k}-${w}`, at: start + offset, endpoint: `${h.url}/hang/${k}/${w}` }),
        ),
      );
    }
    await inBatches(jobs, 32, async (job) => {
      const res = await call(server.url, TOKEN, 'POST', '/schedules', {
        name: job.name,
        scheduledAt: new Date(job.at).toISOString(),
        endpoint: job.endpoint,
        data: { label },
        // One attempt per hanging call: the test is about 300 calls that hang, below the cap (see History).
        ...(job.name.includes('-hang-') && { retry: { maxAttempts: 1 } }),
      });
      expect(res.status).toBe(201);
    });
    // Creating after the first instants would spoil the round: a setup fault, not a result.
    expect(Date.now(), 'schedules created before the round starts').toBeLessThan(start + Math.min(0, ...HANG_WAVES_MS));

    const prefix = `/healthy/${label}/`;
    const arrivals = await receiver.waitFor((a) => a.filter((x) => x.path.startsWith(prefix)).length >= HEALTHY, 15_000);
    const healthy = arrivals.filter((x) => x.path.startsWith(prefix));
    expect(healthy).toHaveLength(HEALTHY);
    return healthy.map((x) => x.at - due.get(x.path)!);
  }

  it('keeps healthy lateness p99 with 100 hanging endpoints within 2× the p99 without them', async () => {
    // JIT, connection pool to the receiver, SQLite page cache; with the hangers, so that the code
    // of their connections, timeouts and failures is warm too (see History): a service that has
    // run for a while has met a hanging endpoint before. Its calls have ended (1 s timeout, one
    // attempt) before the first baseline round's window opens.
    await round('warmup', true);
    const baselines = [];
    for (const n of [1, 2, 3]) baselines.push(await round(`baseline-${n}`, false));
    const hangStart = Date.now();
    const hanging = [];
    for (const n of [1, 2, 3]) hanging.push(await round(`hanging-${n}`, true));

    // The hangers really were in the way: every endpoint got its calls, from the first hanging round on.
    for (const h of hangers) expect(h.hits.filter((at) => at >= hangStart).length).toBeGreaterThanOrEqual(hanging.length * HANG_WAVES_MS.length);

    const p99 = (xs: number[]) => quantile(xs, 0.99);
    const summary = (xs: number[]) => `p50 ${quantile(xs, 0.5)} ms, p99 ${p99(xs)} ms, max ${Math.max(...xs)} ms`;
    console.log(
      `isolation: baselines ${baselines.map(summary).join(' | ')}; with ${HANGING} hanging endpoints ${hanging.map(summary).join(' | ')}`,
    );
    expect(Math.min(...baselines.flat(), ...hanging.flat()), 'no call is early').toBeGreaterThanOrEqual(0);
    // The best of three rounds on each side: see ROUNDS above.
    const baseline = Math.min(...baselines.map(p99));
    const withHangers = Math.min(...hanging.map(p99));
    expect(withHangers, `p99 with hangers vs. 2 × baseline p99 (${baseline} ms)`).toBeLessThanOrEqual(2 * baseline);
  }, 90_000);
});
