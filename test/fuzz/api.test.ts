/**
 * Property-based fuzzing of the whole HTTP API, through `app.inject` against a real
 * SQLite store in a temp dir. For every generated request:
 *  - never a 5xx;
 *  - every 4xx is an RFC 9457 problem (`application/problem+json` with type, title, status,
 *    detail) showing no stack trace and no SQL;
 *  - a refused write stores nothing (the store's listings are the same before and after);
 *  - an accepted write stores what it answered (a GET of the resource gives the same);
 * and after every batch the app still answers (`GET /healthz` and an authenticated `GET`).
 *
 * At least {@link MIN_REQUESTS} generated requests per run (more with `PUNCTUAL_FUZZ_SCALE`,
 * e.g. 10 for a long local run); a failure prints fast-check's seed and the shrunk request.
 */
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseDumper, expectProblem, openHarness, type Harness } from '../http/harness.js';
import { requestArb, resolveIds, type FuzzRequest, type IdPool } from './arbitraries.js';

/** Requests a run must send at least: 10,000 per CI run. */
const MIN_REQUESTS = 10_000;
const SCALE = Number(process.env.PUNCTUAL_FUZZ_SCALE ?? 1);
/** Requests per batch; the probes run after each. */
const BATCH = 25;

let sent = 0;
const started = performance.now();

afterAll(() => {
  const seconds = (performance.now() - started) / 1_000;
  console.log(`fuzz: ${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s)`);
  expect(sent).toBeGreaterThanOrEqual(MIN_REQUESTS * SCALE);
});

const WRITES = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);
const LEAKS = /\n\s+at |\.(ts|js):\d+|sqlite|SQL|SELECT |INSERT |node_modules|Error:/i;

/** Makes a store with some of everything, and the pool of their ids. */
async function seed(h: Harness): Promise<IdPool> {
  const inject = (method: 'POST' | 'PATCH', url: string, payload: object) => h.app.inject({ method, url, headers: h.headers, payload });
  const pool: IdPool = { schedules: [], cronJobs: [], apiKeys: [], executions: [] };
  for (let i = 0; i < 3; i++) {
    pool.schedules.push((await inject('POST', '/schedules', { name: `s${i}`, scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/s' })).json().id);
    pool.cronJobs.push((await inject('POST', '/cron', { expression: '*/5 * * * *', endpoint: 'https://example.com/c' })).json().id);
    pool.apiKeys.push((await inject('POST', '/api-keys', { name: `k${i}` })).json().id);
  }
  pool.executions.push((await inject('POST', `/schedules/${pool.schedules[0]}/trigger`, {})).json().id);
  pool.executions.push((await inject('POST', `/cron/${pool.cronJobs[0]}/trigger`, {})).json().id);
  await inject('PATCH', `/cron/${pool.cronJobs[1]}`, { status: 'Paused' });
  for (const id of [...pool.schedules, ...pool.cronJobs, ...pool.apiKeys, ...pool.executions]) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return pool;
}

/** The URL to read back a resource a write answered with, or null when the write answers none. */
function readBackUrl(req: FuzzRequest, body: { id?: unknown }): string | null {
  const path = req.url.split('?')[0]!;
  const collection = /^\/(schedules|cron|api-keys)(?:\/|$)/.exec(path)?.[1];
  if (collection === undefined || typeof body.id !== 'string') return null;
  if (path.endsWith('/trigger')) return `/executions/${body.id}`;
  return `/${collection}/${body.id}`;
}

/** What a run works on: the app, the pool of ids, and the store's content as last seen. */
interface Run {
  h: Harness;
  pool: IdPool;
  dumper: ReturnType<typeof databaseDumper>;
  /** The store's rows after the last request, when known (null after an accepted write). */
  known: string | null;
}

/** Sends one request and checks the per-request properties; adds what it created to the pool. */
async function check(run: Run, generated: FuzzRequest): Promise<void> {
  const { h, pool } = run;
  const req = { ...generated, url: resolveIds(generated.url, pool) };
  h.clock.t += 1_300; // fewer than 50 auth failures a minute per address: the guard never trips here
  const write = WRITES.has(req.method);
  // Reads store nothing (that too is checked: a later refused write compares with this).
  const before = write ? (run.known ?? run.dumper.dump()) : null;
  const res = await h.app.inject(req);
  sent++;
  const context = `${req.method} ${req.url.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, context).toBeLessThan(500);
  expect(res.statusCode, context).toBeGreaterThanOrEqual(200);

  if (res.statusCode >= 400) {
    expect(res.headers['content-type'], context).toMatch(/^application\/problem\+json/);
    if (req.method !== 'HEAD') {
      const body = expectProblem(res, res.statusCode);
      expect(body.type, context).toMatch(/^urn:punctual:problem:[a-z_]+$/);
      expect(res.body, context).not.toMatch(LEAKS);
    }
    if (before !== null) {
      const after = run.dumper.dump();
      expect(after === before, `${context}\nthe store changed`).toBe(true);
      run.known = after;
    }
    return;
  }
  if (write) run.known = null;

  if (write && (res.statusCode === 200 || res.statusCode === 201 || res.statusCode === 202)) {
    const body = res.json() as Record<string, unknown>;
    if (typeof body.id === 'string') {
      const path = req.url.split('?')[0]!;
      if (path.endsWith('/trigger')) pool.executions.push(body.id);
      else if (path === '/schedules') pool.schedules.push(body.id);
      else if (path === '/cron') pool.cronJobs.push(body.id);
      else if (path === '/api-keys') pool.apiKeys.push(body.id);
    }
    // Accepted as sent: every field the request gave comes back unchanged (nothing coerced,
    // truncated, re-encoded or dropped), `retry` field by field.
    if (!req.url.includes('/trigger') && req.payload !== undefined) {
      const sent = JSON.parse(req.payload, (_k, v: unknown) => (Object.is(v, -0) ? 0 : v)) as Record<string, unknown>; // -0 is 0 in JSON
      for (const [key, value] of Object.entries(sent)) {
        if (key === 'scheduledAt') continue; // normalised to UTC on purpose
        if (key === 'status' && value === null) continue; // a new key's null status means Enabled
        if (key === 'retry') expect(body.retry, context).toMatchObject(value as object);
        else expect(body[key], `${context}\nfield ${key}`).toEqual(value);
      }
    }
    // Stored as answered: reading it back gives the same.
    const url = readBackUrl(req, body);
    if (url !== null) {
      const got = await h.app.inject({ method: 'GET', url, headers: h.headers });
      const { token: _token, ...answered } = body;
      expect(got.json(), context).toEqual(answered);
    }
  }
}

async function probe(h: Harness): Promise<void> {
  const health = await h.app.inject({ method: 'GET', url: '/healthz' });
  expect(health.statusCode).toBe(200);
  const list = await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers });
  expect(list.statusCode).toBe(200);
  expect(list.json().size).toBe(list.json().schedules.length);
}

/** Runs `runs` batches of `BATCH` requests on a fresh seeded app. */
async function fuzz(runs: number): Promise<void> {
  const h = await openHarness();
  const dumper = databaseDumper(h.dbFile);
  try {
    const run: Run = { h, pool: await seed(h), dumper, known: null };
    const batch = fc.array(requestArb(h.token), { minLength: BATCH, maxLength: BATCH });
    await fc.assert(
      fc.asyncProperty(batch, async (requests) => {
        for (const req of requests) await check(run, req);
        await probe(h);
      }),
      // A failure ends the run without shrinking: the store carries state from batch to batch,
      // so replaying a smaller batch would not replay the same situation. The message names the
      // request; the counterexample shows its whole batch.
      { numRuns: runs, endOnFailure: true },
    );
  } finally {
    dumper.close();
    await h.close();
  }
}

// Four apps (each a fresh store), so a store never grows large enough to slow the snapshots.
const RUNS_PER_PART = Math.ceil((MIN_REQUESTS * SCALE) / BATCH / 4);

describe(`fuzzing every endpoint (${RUNS_PER_PART * BATCH * 4}+ requests)`, () => {
  for (let part = 1; part <= 4; part++) {
    it(`part ${part}: ${RUNS_PER_PART} batches of ${BATCH}`, () => fuzz(RUNS_PER_PART), 300_000 * SCALE);
  }
});
