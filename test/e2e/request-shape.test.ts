import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../src/dispatch/call/signing.js';
import { HTTP_METHODS } from '../../src/domain/enums.js';
import { startReceiver, type Arrival, type Receiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

interface WireAttempt {
  number: number;
  method: string;
  url: string | null;
  statusCode: number | null;
}

/**
 * The request shape as a real receiver on 127.0.0.1 sees it (docs/calls.md, "Method, headers and
 * body"): every method arrives with its headers and body, signed over the body sent, and each
 * attempt records its method and URL. Run against every store.
 */
describe.each(STORES)('calls with any method, headers and body (real HTTP, $name)', (store) => {
  let server: TestServer;
  let receiver: Receiver;
  const secret = generateSigningSecret();

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({ PUNCTUAL_SIGNING_SECRET: secret }, { store });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  const arrivalAt = (path: string) =>
    receiver.waitFor((a) => a.some((x) => x.path === path)).then((a) => a.find((x) => x.path === path)!);

  /** The signature a receiver computes over the raw body it got, compared with the one sent. */
  const verify = (a: Arrival) => {
    const h = a.headers as Record<string, string>;
    const ts = new Date(Number(h['webhook-timestamp']) * 1000);
    const expected = new Webhook(secret).sign(h['webhook-id']!, ts, a.body);
    expect(h['webhook-signature']!.split(' ')).toContain(expected);
    expect(new Webhook(generateSigningSecret()).sign(h['webhook-id']!, ts, a.body)).not.toBe(h['webhook-signature']);
  };

  async function schedule(path: string, fields: Record<string, unknown>): Promise<string> {
    const res = await server.api('POST', '/schedules', {
      name: path,
      scheduledAt: new Date(Date.now() + 50).toISOString(),
      endpoint: receiver.url + path,
      ...fields,
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  it.each(HTTP_METHODS)('%s arrives with its method, the job\'s headers, the body and a signature over it', async (method) => {
    const path = `/m/${method}`;
    const bodiless = method === 'GET' || method === 'HEAD';
    const id = await schedule(path, {
      method,
      headers: { 'X-Tenant': 'acme', 'user-agent': 'custom/1' },
      ...(bodiless ? {} : { body: `method=${method}&x=%C3%A9` }),
    });
    const a = await arrivalAt(path);
    expect(a.method).toBe(method);
    expect(a.headers['x-tenant']).toBe('acme');
    expect(a.headers['user-agent']).toBe('custom/1');
    expect(a.headers['punctual-job-id']).toBe(id);
    expect(a.headers['punctual-attempt']).toBe('1');
    expect(a.headers['webhook-id']).toBeDefined();
    if (bodiless) {
      expect(a.body).toBe('');
      expect(a.headers['content-type']).toBeUndefined();
    } else {
      expect(a.body).toBe(`method=${method}&x=%C3%A9`);
      expect(a.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
    verify(a);
  });

  it('a body takes the content type of the job\'s headers, in any case; data is JSON as before', async () => {
    await schedule('/form', { method: 'PUT', headers: { 'CONTENT-TYPE': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    const form = await arrivalAt('/form');
    expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
    verify(form);
    await schedule('/json', { data: { n: 1 } });
    const json = await arrivalAt('/json');
    expect([json.method, json.headers['content-type'], json.body]).toEqual(['POST', 'application/json', '{"n":1}']);
    expect(new Webhook(secret).verify(json.body, json.headers as Record<string, string>)).toEqual({ n: 1 });
  });

  it('each attempt records the method and URL it used', async () => {
    receiver.respond('/flaky?x=1', [{ status: 503 }, { status: 200 }]);
    const id = await schedule('/flaky?x=1', { method: 'DELETE', retry: { initialDelayMs: 100, maxDelayMs: 1_000 } });
    let attempts: WireAttempt[] = [];
    await expect
      .poll(
        async () => {
          const page = (await server.api('GET', `/schedules/${id}/executions`)).body as { executions: { attempts: WireAttempt[] }[] };
          attempts = page.executions[0]?.attempts ?? [];
          return attempts.length;
        },
        { timeout: 15_000, interval: 50 },
      )
      .toBe(2);
    expect(attempts.map((x) => [x.number, x.method, x.url, x.statusCode])).toEqual([
      [1, 'DELETE', `${receiver.url}/flaky?x=1`, 503],
      [2, 'DELETE', `${receiver.url}/flaky?x=1`, 200],
    ]);
  });
});
