/**
 * Load generation with undici, bounded in count and time, to 127.0.0.1 only.
 *   - {@link createMany}: N requests at a fixed concurrency (setup: creating schedules ahead);
 *   - {@link ingestFor}: as many requests as `clients` concurrent clients manage for a fixed time;
 *   - {@link postBurst}: N plain POSTs through an Agent configured like the dispatcher's (the ceiling).
 */
import { Agent, Pool, request } from 'undici';
import { summarize, type Summary } from './stats.js';

/** Refuses any target but loopback: the bench never sends a request elsewhere. */
function assertLocal(url: string): void {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') {
    throw new Error(`bench: refusing to send requests to ${host} (127.0.0.1 only)`);
  }
}

/** Runs `fn(i)` for i in [0, count) with at most `concurrency` running at once. */
export async function forEachConcurrent(
  count: number,
  concurrency: number,
  fn: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** A JSON POST target: base URL, path and headers (e.g. Authorization). */
export interface Target {
  url: string;
  path: string;
  headers: Record<string, string>;
}

/** Result of {@link createMany}. */
export interface CreateResult {
  count: number;
  ms: number;
  perSecond: number;
}

/** One target, or several (the nodes of a cluster) that requests are spread over round-robin. */
function targetList(target: Target | Target[]): Target[] {
  const list = Array.isArray(target) ? target : [target];
  if (list.length === 0) throw new Error('bench: no target');
  for (const t of list) assertLocal(t.url);
  return list;
}

/**
 * POSTs `count` JSON bodies `body(i)` to `target` with `concurrency` connections; every answer
 * must be `expectStatus`, otherwise it throws with the first bad answer (setup must not fail
 * silently). Bounded: throws after `timeoutMs`. Several targets: request i goes to target
 * i mod n (round-robin, as a load balancer in front of the nodes would), `concurrency` in all.
 */
export async function createMany(
  target: Target | Target[],
  count: number,
  body: (i: number) => unknown,
  opts: { concurrency: number; expectStatus?: number; timeoutMs?: number },
): Promise<CreateResult> {
  const targets = targetList(target);
  const expect = opts.expectStatus ?? 201;
  const deadline = performance.now() + (opts.timeoutMs ?? 600_000);
  const pools = targets.map((t) => new Pool(t.url, { connections: opts.concurrency, keepAliveTimeout: 30_000 }));
  const headers = targets.map((t) => ({ 'content-type': 'application/json', ...t.headers }));
  const t0 = performance.now();
  try {
    await forEachConcurrent(count, opts.concurrency, async (i) => {
      if (performance.now() > deadline) throw new Error(`createMany: timed out after ${opts.timeoutMs} ms`);
      const k = i % targets.length;
      const res = await pools[k]!.request({ path: targets[k]!.path, method: 'POST', headers: headers[k], body: JSON.stringify(body(i)) });
      const text = await res.body.text();
      if (res.statusCode !== expect) {
        throw new Error(`createMany: POST ${targets[k]!.url}${targets[k]!.path} answered ${res.statusCode} (expected ${expect}): ${text.slice(0, 500)}`);
      }
    });
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  const ms = performance.now() - t0;
  return { count, ms, perSecond: (count * 1000) / ms };
}

/** Result of {@link ingestFor}. Latencies in ms, measured by the client around each request. */
export interface IngestResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  latency: Summary;
  /** First unexpected answer, if any. */
  firstError: string | null;
}

/**
 * `clients` concurrent clients (one keep-alive connection each) POST `body(n)` to `target`
 * back to back: first for `warmupMs` (not counted), then for `durationMs`. Bounded in time and in
 * count (`maxRequests`). Several targets: client k sends to target k mod n (so 64 clients over
 * three nodes are 22 + 21 + 21).
 */
export async function ingestFor(
  target: Target | Target[],
  body: (n: number) => unknown,
  opts: { clients: number; durationMs: number; warmupMs: number; expectStatus: number; maxRequests?: number },
): Promise<IngestResult> {
  const targets = targetList(target);
  const maxRequests = opts.maxRequests ?? 5_000_000;
  const pools = targets.map(
    (t, k) => new Pool(t.url, { connections: Math.ceil((opts.clients - k) / targets.length), keepAliveTimeout: 30_000 }),
  );
  const headers = targets.map((t) => ({ 'content-type': 'application/json', ...t.headers }));
  let n = 0;
  let errors = 0;
  let firstError: string | null = null;
  const latencies: number[] = [];
  const start = performance.now();
  const measureFrom = start + opts.warmupMs;
  const end = measureFrom + opts.durationMs;
  let measuredStart = Number.NaN;
  let lastDone = measureFrom;
  const client = async (k: number) => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end || n >= maxRequests) return;
      const res = await pools[k]!.request({ path: targets[k]!.path, method: 'POST', headers: headers[k], body: JSON.stringify(body(n++)) });
      const text = await res.body.text();
      const t1 = performance.now();
      if (t0 < measureFrom) continue; // warm-up
      if (Number.isNaN(measuredStart)) measuredStart = t0;
      lastDone = Math.max(lastDone, t1);
      latencies.push(t1 - t0);
      if (res.statusCode !== opts.expectStatus) {
        errors++;
        firstError ??= `${res.statusCode}: ${text.slice(0, 300)}`;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.clients }, (_, c) => client(c % targets.length)));
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  const seconds = (lastDone - measureFrom) / 1000;
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    latency: summarize(latencies),
    firstError,
  };
}

/**
 * The machine's ceiling for the burst: `count` plain POSTs of `body(i)` to `urlPrefix + i`,
 * `concurrency` in flight, through an undici Agent made as the dispatcher makes its own
 * (src/dispatch/dispatcher.ts: keep-alive pools per origin, unlimited connections per origin) and
 * with the headers deliver() sends. Resolves when every answer has come; throws on any non-2xx.
 */
export async function postBurst(
  urlPrefix: string,
  count: number,
  body: (i: number) => unknown,
  opts: { concurrency: number; timeoutMs: number; userAgent: string },
): Promise<void> {
  assertLocal(urlPrefix);
  const agent = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 30_000 } });
  const deadline = performance.now() + opts.timeoutMs;
  try {
    await forEachConcurrent(count, opts.concurrency, async (i) => {
      if (performance.now() > deadline) throw new Error(`ceiling: timed out after ${opts.timeoutMs} ms`);
      const res = await request(urlPrefix + i, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'user-agent': opts.userAgent },
        body: JSON.stringify(body(i)),
      });
      await res.body.text();
      if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`ceiling: ${urlPrefix}${i} answered ${res.statusCode}`);
    });
  } finally {
    await agent.close();
  }
}
