import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../src/dispatch/call/deliver.js';
import { createHttpAgent } from '../../src/dispatch/call/http-agent.js';
import { generateSigningSecret, WebhookSigner } from '../../src/dispatch/call/signing.js';
import { STRICT_POLICY, type EndpointPolicy } from '../../src/net/ssrf.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { attemptLabels } from '../../src/metrics/attempts.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { claimedExecution } from '../support/claims.js';
import { freePort } from '../support/ports.js';

type Resolve = NonNullable<Parameters<typeof createHttpAgent>[0]['resolve']>;

const OPEN: EndpointPolicy = { ...STRICT_POLICY, allowPrivate: true };

/**
 * The labels of `punctual_attempts_total` are read from what the dispatcher records
 * of an attempt: its status code, or for no answer the text of its error. These attempts are real
 * calls made by the dispatcher's own `deliver()` over real sockets, so a change to those error
 * texts (src/dispatch/call/deliver.ts, ssrf.ts) that would put timeouts or refusals under the wrong
 * label fails here.
 */
describe('attempt labels of real calls', () => {
  let receiver: Receiver;
  let closedPort: number;

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.respond('/ok', { status: 204 });
    receiver.respond('/moved', { status: 302, headers: { location: '/ok' } });
    receiver.respond('/gone', { status: 410 });
    receiver.respond('/busy', { status: 503 });
    receiver.respond('/silent', { hang: true });
    // A port that was free a moment ago and has no listener now: the connection is refused.
    closedPort = await freePort();
  });
  afterAll(() => receiver?.close());

  const claim = (endpoint: string, timeoutMs = 2_000): ClaimedExecution =>
    claimedExecution({
      executionId: '01a1fded-0000-7000-8000-0000000000a1',
      jobId: '01a1fded-0000-7000-8000-0000000000a2',
      scheduledFor: Date.now(),
      dueAt: Date.now(),
      endpoint,
      retry: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 1000 },
      timeoutMs,
      leaseExpiresAt: Date.now() + 10_000,
    });
  const call = (endpoint: string, o: { policy?: EndpointPolicy; resolve?: Resolve; timeoutMs?: number } = {}) => {
    const policy = o.policy ?? OPEN;
    return deliver(claim(endpoint, o.timeoutMs), {
      dispatcher: createHttpAgent({ policy, ...(o.resolve && { resolve: o.resolve }) }),
      signer: new WebhookSigner([generateSigningSecret()]),
      userAgent: 'Punctual/test',
      now: () => Date.now(),
      policy,
    });
  };

  it('an answer: success for 2xx, http_error with its class otherwise', async () => {
    expect(attemptLabels(await call(`${receiver.url}/ok`))).toEqual({ result: 'success', status_class: '2xx' });
    expect(attemptLabels(await call(`${receiver.url}/moved`))).toEqual({ result: 'http_error', status_class: '3xx' });
    expect(attemptLabels(await call(`${receiver.url}/gone`))).toEqual({ result: 'http_error', status_class: '4xx' });
    expect(attemptLabels(await call(`${receiver.url}/busy`))).toEqual({ result: 'http_error', status_class: '5xx' });
  });

  it('no answer: timeout, connection_error, refused (by the SSRF guard, literal or resolved)', async () => {
    const silent = await call(`${receiver.url}/silent`, { timeoutMs: 300 });
    expect(silent.statusCode).toBeNull();
    expect(attemptLabels(silent)).toEqual({ result: 'timeout', status_class: 'none' });

    const closed = await call(`http://127.0.0.1:${closedPort}/x`);
    expect(closed.error).toMatch(/ECONNREFUSED/);
    expect(attemptLabels(closed)).toEqual({ result: 'connection_error', status_class: 'none' });

    const literal = await call(`${receiver.url}/ok`, { policy: STRICT_POLICY });
    expect(literal.refused).toBe(true);
    expect(attemptLabels(literal)).toEqual({ result: 'refused', status_class: 'none' });

    const loopback = ((_host: string, _opts: unknown, cb: (e: null, a: LookupAddress[]) => void) =>
      cb(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as Resolve;
    const resolved = await call(`http://hook.example:${new URL(receiver.url).port}/ok`, { policy: STRICT_POLICY, resolve: loopback });
    expect(resolved.refused).toBe(true);
    expect(attemptLabels(resolved)).toEqual({ result: 'refused', status_class: 'none' });
  });

  it('an unresolvable name is a connection_error; an error text it does not know is one too', async () => {
    const nxdomain = ((host: string, _opts: unknown, cb: (e: NodeJS.ErrnoException) => void) =>
      cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }))) as unknown as Resolve;
    const result = await call('http://nowhere.example/x', { resolve: nxdomain });
    expect(result.statusCode).toBeNull();
    expect(attemptLabels(result)).toEqual({ result: 'connection_error', status_class: 'none' });
    expect(attemptLabels({ statusCode: null, error: null })).toEqual({ result: 'connection_error', status_class: 'none' });
  });
});
