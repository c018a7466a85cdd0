import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTraceparent } from '../../src/domain/trace-context.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startReceiver, type Arrival, type Receiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

interface WireAttempt {
  number: number;
  statusCode: number | null;
  traceId: string | null;
  spanId: string | null;
}
interface WireExecution {
  id: string;
  status: string;
  attempts: WireAttempt[];
}

/** The modules of OpenTelemetry's SDK loaded in this process (prom-client loads `@opentelemetry/api` itself). */
function openTelemetrySdkLoaded(): string[] {
  const names = Object.keys(createRequire(import.meta.url).cache)
    .map((path) => /[\\/]@opentelemetry[\\/]([^\\/]+)/.exec(path)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'api');
  return [...new Set(names)].sort();
}

/** A schedule calling `receiver` at `path` in 100 ms that gets a 503 then a 200: two attempts. */
async function retriedSchedule(server: TestServer, receiver: Receiver, path: string): Promise<string> {
  receiver.respond(path, [{ status: 503 }, { status: 200 }]);
  const res = await server.api('POST', '/schedules', {
    name: path,
    scheduledAt: new Date(Date.now() + 100).toISOString(),
    endpoint: receiver.url + path,
    retry: { initialDelayMs: 100, maxDelayMs: 1_000 },
  });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

/** The schedule's execution once Succeeded. */
async function succeeded(server: TestServer, scheduleId: string): Promise<WireExecution> {
  let last: WireExecution | undefined;
  await expect
    .poll(
      async () => {
        last = ((await server.api('GET', `/schedules/${scheduleId}/executions`)).body as { executions: WireExecution[] }).executions[0];
        return last?.status;
      },
      { timeout: 15_000, interval: 50 },
    )
    .toBe('Succeeded');
  return last!;
}

/** The traceparent of each call, read. */
function traceparents(calls: Arrival[]) {
  return calls.map((c) => {
    const parsed = parseTraceparent(c.headers.traceparent as string | undefined);
    expect(parsed, String(c.headers.traceparent)).not.toBeNull();
    expect(c.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    return parsed!;
  });
}

/**
 * W3C Trace Context on every attempt (docs/calls.md, "Trace Context"), as a real receiver sees it,
 * and the attempts' trace ids in the API: one trace per execution (its id), one span per attempt.
 * Traces are not exported here: nothing of OpenTelemetry's SDK is loaded, and the flags say so.
 */
describe.each(STORES)('Trace Context of attempts (export off, $name)', (store) => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    expect(process.env.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    receiver = await startReceiver();
    server = await startTestServer({}, { store });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('each attempt sends a traceparent: the execution id as trace id, a new span id per attempt; GET shows them', async () => {
    const id = await retriedSchedule(server, receiver, '/traced');
    const calls = await receiver.waitFor((a) => a.filter((x) => x.path === '/traced').length >= 2).then((a) => a.filter((x) => x.path === '/traced'));
    const [first, second] = traceparents(calls);
    const execution = await succeeded(server, id);
    expect(first!.traceId).toBe(execution.id.replaceAll('-', ''));
    expect(second!.traceId).toBe(first!.traceId);
    expect(second!.spanId).not.toBe(first!.spanId);
    expect([first!.sampled, second!.sampled]).toEqual([false, false]); // not exported: not sampled
    expect(execution.attempts.map((a) => [a.number, a.statusCode, a.traceId, a.spanId])).toEqual([
      [1, 503, first!.traceId, first!.spanId],
      [2, 200, first!.traceId, second!.spanId],
    ]);
    expect(((await server.api('GET', `/executions/${execution.id}`)).body as WireExecution).attempts.map((a) => a.spanId)).toEqual([
      first!.spanId,
      second!.spanId,
    ]);
  });

  it('loads nothing of OpenTelemetry without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(openTelemetrySdkLoaded()).toEqual([]);
  });
});

/**
 * Export over OTLP/HTTP to a real receiver on 127.0.0.1 (docs/metrics.md, "Traces"): the attempt's
 * CLIENT span has exactly the ids of the traceparent the endpoint received, with the HTTP
 * attributes; the API request, the claim and the outcome write have spans too.
 */
describe.each(STORES)('traces exported over OTLP/HTTP ($name)', (store) => {
  let server: TestServer;
  let receiver: Receiver;
  let otlp: OtlpReceiver;
  const saved = { ...process.env };

  beforeAll(async () => {
    receiver = await startReceiver();
    otlp = await startOtlpReceiver();
    // The SDK reads its settings from process.env when the server starts.
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SERVICE_NAME: 'punctual-e2e', OTEL_BSP_SCHEDULE_DELAY: '50' });
    try {
      server = await startTestServer({}, { store });
    } finally {
      for (const key of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'OTEL_BSP_SCHEDULE_DELAY']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await otlp?.close();
  });

  it("exports each attempt as an HTTP CLIENT span with its traceparent's ids, and the request, claim and write spans", async () => {
    expect(openTelemetrySdkLoaded()).toEqual(expect.arrayContaining(['exporter-trace-otlp-http', 'sdk-trace-base']));
    const id = await retriedSchedule(server, receiver, '/exported');
    const calls = await receiver.waitFor((a) => a.filter((x) => x.path === '/exported').length >= 2).then((a) => a.filter((x) => x.path === '/exported'));
    const sent = traceparents(calls);
    expect(sent.map((t) => t.sampled)).toEqual([true, true]); // exported: sampled
    await succeeded(server, id);
    const attemptSpan = (spanId: string) => (spans: ReceivedSpan[]) => spans.find((s) => s.spanId === spanId);
    const spans = await otlp.waitFor((s) => sent.every((t) => attemptSpan(t.spanId)(s) !== undefined));
    expect(otlp.contentTypes.every((t) => t.startsWith('application/json'))).toBe(true);

    const port = Number(new URL(receiver.url).port);
    const [first, second] = sent.map((t) => attemptSpan(t.spanId)(spans)!);
    for (const [span, t] of [[first!, sent[0]!], [second!, sent[1]!]] as const) {
      expect(span.traceId).toBe(t.traceId);
      expect(span.parentSpanId).toBe('');
      expect(span.kind).toBe(3); // CLIENT
      expect(span.name).toBe('POST');
      expect(span.resource['service.name']).toBe('punctual-e2e');
      expect(span.attributes).toMatchObject({
        'http.request.method': 'POST',
        'url.full': `${receiver.url}/exported`,
        'server.address': '127.0.0.1',
        'server.port': port,
        'punctual.execution.id': sent[0]!.traceId.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
        'punctual.job.id': id,
        'punctual.job.type': 'schedule',
      });
    }
    expect(first!.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503', 'punctual.attempt': 1, 'punctual.outcome': 'Retrying' });
    expect(first!.status.code).toBe(2); // ERROR
    expect(second!.attributes).toMatchObject({ 'http.response.status_code': 200, 'http.request.resend_count': 1, 'punctual.attempt': 2 });
    expect(second!.attributes).not.toHaveProperty('error.type');
    expect(second!.status.code ?? 0).not.toBe(2);
    // The span covers the call: it starts before the endpoint saw it and ends after.
    expect(BigInt(first!.startTimeUnixNano) / 1_000_000n).toBeLessThanOrEqual(BigInt(calls[0]!.at));
    expect(BigInt(first!.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(first!.startTimeUnixNano));

    await otlp.waitFor((s) =>
      s.some((x) => x.name === 'POST /schedules' && x.kind === 2) &&
      s.some((x) => x.name === 'punctual.claim') &&
      sent.every((t) => s.some((x) => x.name === 'punctual.outcomes.write' && x.links.some((l) => l.spanId === t.spanId))),
    );
    const request = spans.find((x) => x.name === 'POST /schedules')!;
    expect(request.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/schedules', 'http.response.status_code': 201 });
    expect(spans.some((x) => x.attributes['http.route'] === '/healthz')).toBe(false);
  });

  it("spans carry no header value, body or query value of the job's calls", async () => {
    receiver.respond('/private', { status: 200, body: 'answer-body-marker' });
    const res = await server.api('POST', '/schedules', {
      name: 'private',
      scheduledAt: new Date(Date.now() + 100).toISOString(),
      endpoint: `${receiver.url}/private?token=query-value-marker`,
      headers: { 'X-Plain': 'header-value-marker' },
      data: { note: 'data-marker' },
    });
    expect(res.status).toBe(201);
    const id = (res.body as { id: string }).id;
    const [call] = await receiver.waitFor((a) => a.some((x) => x.path.startsWith('/private'))).then((a) => a.filter((x) => x.path.startsWith('/private')));
    const sent = traceparents([call!])[0]!;
    await succeeded(server, id);
    const spans = await otlp.waitFor((s) => s.some((x) => x.spanId === sent.spanId));
    expect(spans.find((x) => x.spanId === sent.spanId)!.attributes['url.full']).toBe(`${receiver.url}/private?token=REDACTED`);
    const exported = JSON.stringify(spans);
    for (const marker of ['query-value-marker', 'header-value-marker', 'data-marker', 'answer-body-marker', 'test-bootstrap-token']) {
      expect(exported).not.toContain(marker);
    }
  });

  it("an API request's SERVER span is a child of the caller's traceparent", async () => {
    const caller = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const res = await fetch(`${server.url}/schedules?limit=1`, {
      headers: { authorization: `Bearer ${'test-bootstrap-token-0123456789abcdef'}`, traceparent: `00-${caller.traceId}-${caller.spanId}-01` },
    });
    expect(res.status).toBe(200);
    const spans = await otlp.waitFor((s) => s.some((x) => x.traceId === caller.traceId));
    const span = spans.find((x) => x.traceId === caller.traceId)!;
    expect(span).toMatchObject({ parentSpanId: caller.spanId, kind: 2, name: 'GET /schedules' });
    expect(span.attributes).toMatchObject({ 'url.path': '/schedules', 'http.response.status_code': 200 });
  });
});

/** The stop exports what the batch processor still holds (src/main.ts `close()`). */
describe('traces at the stop (sqlite)', () => {
  it('the spans still waiting are exported when the server stops', async () => {
    const receiver = await startReceiver();
    const otlp = await startOtlpReceiver();
    const saved = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    const savedDelay = process.env.OTEL_BSP_SCHEDULE_DELAY;
    // The per-signal variable alone turns the export on; a delay of 10 minutes keeps every span waiting.
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '600000' });
    let server: TestServer | undefined;
    try {
      server = await startTestServer({});
    } finally {
      if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = saved;
      if (savedDelay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
      else process.env.OTEL_BSP_SCHEDULE_DELAY = savedDelay;
    }
    try {
      const id = await retriedSchedule(server, receiver, '/at-stop');
      await succeeded(server, id);
      const sent = traceparents(receiver.arrivals.filter((a) => a.path === '/at-stop'));
      expect(otlp.spans).toEqual([]); // nothing exported yet
      await server.stop();
      server = undefined;
      expect(sent.map((t) => otlp.spans.find((s) => s.spanId === t.spanId)?.traceId)).toEqual(sent.map((t) => t.traceId));
    } finally {
      await server?.stop();
      await receiver.close();
      await otlp.close();
    }
  });
});
