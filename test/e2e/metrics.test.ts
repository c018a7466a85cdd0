import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveredEvent } from '../../src/dispatch/events.js';
import { generateSigningSecret } from '../../src/dispatch/call/signing.js';
import { parseExposition, samplesOf, valueOf, type Exposition } from '../support/prometheus.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

const PROMETHEUS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** GET `url` over a real socket; the text, its status and content type. */
async function get(url: string, token: string | null): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(url, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** Scrapes `base`/metrics and parses it (the answer must be 200 in the Prometheus format). */
async function scrape(base: string, token: string | null = TEST_TOKEN): Promise<{ text: string; e: Exposition }> {
  const res = await get(`${base}/metrics`, token);
  expect(res.status).toBe(200);
  expect(res.type).toBe(PROMETHEUS_TYPE);
  return { text: res.text, e: parseExposition(res.text) };
}

/** Nothing secret in a metrics answer: no API key, no signing secret, no Authorization header. */
function expectNoSecrets(text: string, secret: string): void {
  expect(text).not.toContain(TEST_TOKEN);
  expect(text).not.toContain(secret);
  expect(text).not.toContain(secret.slice('whsec_'.length));
  expect(text).not.toMatch(/pk_[A-Za-z0-9_-]{20}/);
  expect(text).not.toMatch(/bearer/i);
}

/**
 * `GET /metrics` (docs/metrics.md) after real deliveries: a real server (in-process, on a socket),
 * a real receiver on 127.0.0.1, real calls — one success, one 4xx failure, one 500 that is retried
 * and then succeeds, one that times out while another waits — then the metrics scraped over HTTP
 * and read line by line. Run against every store.
 */
describe.each(STORES)('metrics after real deliveries ($name)', (store) => {
  let server: TestServer;
  let receiver: Receiver;
  const delivered: DeliveredEvent[] = [];
  const waiters = new Set<() => void>();
  const secret = generateSigningSecret();

  /** Resolves once `n` attempts have been delivered and recorded (the dispatcher's own event). */
  const deliveries = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (delivered.length < n) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${delivered.length} of ${n} deliveries`));
      }, 20_000);
      waiters.add(check);
      check();
    });

  beforeAll(async () => {
    receiver = await startReceiver();
    // One call at a time: the test can then hold the only slot with a hanging call and see due
    // work wait, unclaimed, behind it.
    server = await startTestServer({ PUNCTUAL_SIGNING_SECRET: secret, PUNCTUAL_MAX_IN_FLIGHT: '1' }, { store });
    server.dispatcher!.events.on('dispatch:delivered', (event) => {
      delivered.push(event);
      for (const w of [...waiters]) w();
    });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  async function schedule(path: string, o: { inMs?: number; retry?: object; timeoutMs?: number } = {}): Promise<string> {
    const res = await server.api('POST', '/schedules', {
      name: path,
      scheduledAt: new Date(Date.now() + (o.inMs ?? 100)).toISOString(),
      endpoint: receiver.url + path,
      ...(o.retry && { retry: o.retry }),
      ...(o.timeoutMs && { timeoutMs: o.timeoutMs }),
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  it('refuses /metrics without an API key, or with an unknown one (401 problem)', async () => {
    const none = await get(`${server.url}/metrics`, null);
    expect(none.status).toBe(401);
    expect(none.type).toMatch(/^application\/problem\+json/);
    const wrong = await get(`${server.url}/metrics`, `pk_${'x'.repeat(43)}`);
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('punctual_');
  });

  it('counts executions, attempts, lateness, HTTP requests and store operations exactly', async () => {
    receiver.respond('/ok', { status: 200 });
    receiver.respond('/refused', { status: 404 });
    receiver.respond('/flaky', [{ status: 500 }, { status: 200 }]);
    const ids = [
      await schedule('/ok'),
      await schedule('/refused'),
      await schedule('/flaky', { retry: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 1000 } }),
    ];
    await deliveries(4);
    expect(delivered.map((d) => d.outcome.statusCode).sort()).toEqual([200, 200, 404, 500]);
    const unknown = await get(`${server.url}/schedules/${ids[0]}/nope`, TEST_TOKEN);
    expect(unknown.status).toBe(404);

    const cpuBefore = process.cpuUsage(); // this process's CPU since it started (the server is in-process)
    const { text, e } = await scrape(server.url);
    expectNoSecrets(text, secret);

    // Executions: each counted once, when it ends; the retried one is one success.
    expect(valueOf(e, 'punctual_executions_finished_total', { outcome: 'succeeded' })).toBe(2);
    expect(valueOf(e, 'punctual_executions_finished_total', { outcome: 'failed' })).toBe(1);
    // Attempts: every call, by result and status class.
    expect(samplesOf(e, 'punctual_attempts_total').map((s) => [s.labels.result, s.labels.status_class, s.value]).sort()).toEqual([
      ['http_error', '4xx', 1],
      ['http_error', '5xx', 1],
      ['success', '2xx', 2],
    ]);
    expect(valueOf(e, 'punctual_attempt_duration_seconds_count', { result: 'success' })).toBe(2);
    expect(valueOf(e, 'punctual_attempt_duration_seconds_count', { result: 'http_error' })).toBe(2);
    // Lateness: the first attempt of each of the three executions, in seconds, buckets 1 ms … 60 s.
    expect(valueOf(e, 'punctual_execution_lateness_seconds_count')).toBe(3);
    const buckets = samplesOf(e, 'punctual_execution_lateness_seconds_bucket');
    expect(buckets.map((b) => b.labels.le)).toEqual(
      ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '60', '+Inf'],
    );
    expect(valueOf(e, 'punctual_execution_lateness_seconds_bucket', { le: '+Inf' })).toBe(3);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    const lateMs = (await Promise.all(ids.map((id) => server.api('GET', `/schedules/${id}/executions`)))).map(
      (r) => (r.body as { executions: { lateMs: number }[] }).executions[0]!.lateMs,
    );
    // The histogram's sum is the executions' own lateMs, in seconds (each rounded to the ms).
    expect(valueOf(e, 'punctual_execution_lateness_seconds_sum')).toBeCloseTo(lateMs.reduce((a, b) => a + b, 0) / 1000, 3);

    // Nothing in flight, nothing due: the retry was taken, every execution ended.
    expect(valueOf(e, 'punctual_calls_in_flight')).toBe(0);
    for (const source of ['schedule', 'cron', 'waiting', 'lease']) {
      expect(valueOf(e, 'punctual_due_unclaimed', { source })).toBe(0);
    }
    expect(valueOf(e, 'punctual_dispatch_store_errors_total')).toBe(0);

    // HTTP: by route pattern (never the URL: no id in any label) and status.
    expect(valueOf(e, 'punctual_http_request_duration_seconds_count', { method: 'POST', route: '/schedules', status_code: '201' })).toBe(3);
    expect(valueOf(e, 'punctual_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1);
    expect(valueOf(e, 'punctual_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status_code: '401' })).toBe(2);
    for (const s of e.samples) for (const v of Object.values(s.labels)) expect(v).not.toMatch(UUID);

    // Store operations, by Store method and result, timed by the decorator.
    const storeCount = (operation: string) =>
      valueOf(e, 'punctual_store_operation_duration_seconds_count', { operation, result: 'ok' });
    expect(storeCount('scheduleCreate')).toBe(3);
    expect(storeCount('claimDue')).toBeGreaterThanOrEqual(3);
    // Outcomes finishing within FLUSH_WINDOW_MS share a write: the first attempts may be one, the retry another.
    expect(storeCount('executionsFinish')).toBeGreaterThanOrEqual(2);
    expect(storeCount('apiKeyFindByDigest')).toBeGreaterThanOrEqual(5); // the unknown token, 3 creates, this scrape
    expect(samplesOf(e, 'punctual_store_operation_duration_seconds_count', { result: 'error' })).toEqual([]);

    // Process metrics, under their standard names; and what this node is.
    // CPU counts from the process's start, not from the first scrape (CI once saw 0 here).
    // (1 ms of slack for rounding; a count from the first scrape would be seconds short.)
    expect(valueOf(e, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(cpuBefore.user / 1e6 - 0.001);
    expect(valueOf(e, 'process_cpu_seconds_total')).toBeGreaterThanOrEqual((cpuBefore.user + cpuBefore.system) / 1e6 - 0.001);
    expect(valueOf(e, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(samplesOf(e, 'punctual_build_info')).toEqual([{ name: 'punctual_build_info', labels: { version: expect.any(String), role: 'all' }, value: 1 }]);
    expect(e.types.get('punctual_attempts_total')).toBe('counter');
    expect(e.types.get('punctual_execution_lateness_seconds')).toBe('histogram');
    expect(e.types.get('punctual_due_unclaimed')).toBe('gauge');

    // The scrape itself is a request like any other, and its due-work query a store operation.
    const again = (await scrape(server.url)).e;
    expect(valueOf(again, 'punctual_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status_code: '200' })).toBe(1);
    expect(
      valueOf(again, 'punctual_http_request_duration_seconds_count', { method: 'GET', route: '/schedules/:id/executions', status_code: '200' }),
    ).toBe(3);
    for (const s of again.samples) for (const v of Object.values(s.labels)) expect(v).not.toMatch(UUID);
    expect(valueOf(again, 'punctual_store_operation_duration_seconds_count', { operation: 'dueCount', result: 'ok' })).toBeGreaterThanOrEqual(1);
  });

  it('shows a call in flight and the due work waiting behind it, then the timeout', async () => {
    receiver.respond('/hang', { hang: true });
    receiver.respond('/after', { status: 200 });
    const before = delivered.length;
    await schedule('/hang', { inMs: 0, retry: { maxAttempts: 1 }, timeoutMs: 1000 });
    await receiver.waitFor((a) => a.some((x) => x.path === '/hang'));
    // Due a second ago; the only slot is taken, so it waits, unclaimed.
    await schedule('/after', { inMs: -1000 });

    const during = (await scrape(server.url)).e;
    expect(valueOf(during, 'punctual_calls_in_flight')).toBe(1);
    expect(valueOf(during, 'punctual_due_unclaimed', { source: 'schedule' })).toBe(1);
    expect(valueOf(during, 'punctual_due_unclaimed', { source: 'waiting' })).toBe(0);

    await deliveries(before + 2);
    const after = (await scrape(server.url)).e;
    expect(valueOf(after, 'punctual_calls_in_flight')).toBe(0);
    expect(valueOf(after, 'punctual_due_unclaimed', { source: 'schedule' })).toBe(0);
    expect(valueOf(after, 'punctual_attempts_total', { result: 'timeout', status_class: 'none' })).toBe(1);
    expect(valueOf(after, 'punctual_attempts_total', { result: 'success', status_class: '2xx' })).toBe(3);
    expect(valueOf(after, 'punctual_executions_finished_total', { outcome: 'succeeded' })).toBe(3);
    expect(valueOf(after, 'punctual_executions_finished_total', { outcome: 'failed' })).toBe(2);
    // /after started more than a second after its instant: its lateness lands above the 1 s bucket.
    expect(valueOf(after, 'punctual_execution_lateness_seconds_count')).toBe(5);
    expect(valueOf(after, 'punctual_execution_lateness_seconds_bucket', { le: '1' })).toBeLessThanOrEqual(4);
    expect(valueOf(after, 'punctual_execution_lateness_seconds_sum')).toBeGreaterThan(1);
    expect(valueOf(after, 'punctual_hung_calls_in_flight')).toBe(0);
  });

  it('counts a call to a hung endpoint apart: once a call timed out, the retry goes out on the slow lane', async () => {
    receiver.respond('/hung', { hang: true });
    const before = delivered.length;
    await schedule('/hung', { inMs: 0, retry: { maxAttempts: 2, initialDelayMs: 100, maxDelayMs: 1000 }, timeoutMs: 1000 });
    // The first attempt times out (the origin is hung from then on); the second is in flight.
    await receiver.waitFor((a) => a.filter((x) => x.path === '/hung').length === 2);
    const during = (await scrape(server.url)).e;
    expect(valueOf(during, 'punctual_calls_in_flight')).toBe(1);
    expect(valueOf(during, 'punctual_hung_calls_in_flight')).toBe(1);
    await deliveries(before + 2);
    expect(delivered.slice(before).map((d) => d.outcome.error)).toEqual(['timeout after 1000 ms', 'timeout after 1000 ms']);
    const after = (await scrape(server.url)).e;
    expect(valueOf(after, 'punctual_calls_in_flight')).toBe(0);
    expect(valueOf(after, 'punctual_hung_calls_in_flight')).toBe(0);
  });
});

/**
 * `PUNCTUAL_METRICS_PORT`: a listener of its own, on the same host, serving `/metrics` without a
 * key; the API's port then has no `/metrics`.
 */
describe.each(STORES)('metrics on PUNCTUAL_METRICS_PORT ($name)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ PUNCTUAL_METRICS_PORT: '0' }, { store });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers /metrics without a key on its own port, and only there', async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.metricsUrl).not.toBe(server.url);
    const { text, e } = await scrape(server.metricsUrl!, null);
    expect(text).not.toContain(TEST_TOKEN);
    expect(valueOf(e, 'punctual_calls_in_flight')).toBe(0);
    expect(valueOf(e, 'punctual_due_unclaimed', { source: 'schedule' })).toBe(0);
    expect(samplesOf(e, 'punctual_build_info', { role: 'all' }).map((x) => x.value)).toEqual([1]);

    // The API's port: no /metrics, not even with a key.
    const onApi = await get(`${server.url}/metrics`, TEST_TOKEN);
    expect(onApi.status).toBe(404);
    expect(onApi.type).toMatch(/^application\/problem\+json/);
    // The metrics port serves nothing else, and takes no query parameters.
    expect((await get(`${server.metricsUrl}/schedules`, TEST_TOKEN)).status).toBe(404);
    expect((await get(`${server.metricsUrl}/healthz`, null)).status).toBe(404);
    const query = await get(`${server.metricsUrl}/metrics?debug=1`, null);
    expect(query.status).toBe(400);
    expect(query.type).toMatch(/^application\/problem\+json/);
  });
});

/** A dispatcher node has no API: its metrics are only on PUNCTUAL_METRICS_PORT (PostgreSQL only: roles need it). */
describe.each(STORES.filter((s) => s.name === 'postgres'))('metrics of a dispatcher node ($name)', (store) => {
  it('exposes the dispatch series on PUNCTUAL_METRICS_PORT, and /metrics nowhere without it', async () => {
    const bare = await startTestServer({ PUNCTUAL_ROLE: 'dispatcher' }, { store });
    try {
      expect(bare.metricsUrl).toBeNull();
      expect((await get(`${bare.url}/metrics`, TEST_TOKEN)).status).toBe(404);
    } finally {
      await bare.stop();
    }
    const node = await startTestServer({ PUNCTUAL_ROLE: 'dispatcher', PUNCTUAL_METRICS_PORT: '0' }, { store });
    try {
      expect((await get(`${node.url}/metrics`, TEST_TOKEN)).status).toBe(404);
      const { e } = await scrape(node.metricsUrl!, null);
      expect(samplesOf(e, 'punctual_build_info')[0]?.labels.role).toBe('dispatcher');
      expect(valueOf(e, 'punctual_calls_in_flight')).toBe(0);
      expect(valueOf(e, 'punctual_executions_finished_total', { outcome: 'succeeded' })).toBe(0);
      expect(valueOf(e, 'punctual_due_unclaimed', { source: 'lease' })).toBe(0);
      expect(samplesOf(e, 'punctual_http_request_duration_seconds_count')).toEqual([]);
    } finally {
      await node.stop();
    }
  });
});
