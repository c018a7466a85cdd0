import type { LookupAddress } from 'node:dns';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../src/dispatch/call/deliver.js';
import { createHttpAgent } from '../../src/dispatch/call/http-agent.js';
import { generateSigningSecret, WebhookSigner } from '../../src/dispatch/call/signing.js';
import { parseAllowedNetworks, STRICT_POLICY, type EndpointPolicy } from '../../src/net/ssrf.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { claimedExecution } from '../support/claims.js';

type Resolve = NonNullable<Parameters<typeof createHttpAgent>[0]['resolve']>;

/** A resolver that answers from a list, one answer per lookup (the last repeats): DNS rebinding. */
function scriptedResolver(answers: string[]): { resolve: Resolve; lookups: () => number } {
  let n = 0;
  const resolve = ((_host: string, _opts: unknown, cb: (e: null, a: LookupAddress[]) => void) => {
    const address = answers[Math.min(n++, answers.length - 1)]!;
    cb(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  }) as unknown as Resolve;
  return { resolve, lookups: () => n };
}

/**
 * The SSRF guard at call time, through undici's real connector and real sockets: the addresses
 * connected to are checked after resolution, so rebinding is caught.
 */
describe('SSRF guard at call time (real connections)', () => {
  let receiver: Receiver;
  let port: string;
  beforeAll(async () => {
    receiver = await startReceiver();
    port = new URL(receiver.url).port;
  });
  afterAll(() => receiver?.close());

  const claim = (endpoint: string): ClaimedExecution =>
    claimedExecution({
      scheduledFor: Date.now(),
      dueAt: Date.now(),
      endpoint,
      retry: { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 1000 },
      timeoutMs: 2_000,
      leaseExpiresAt: Date.now() + 10_000,
    });
  const call = (endpoint: string, policy: EndpointPolicy, resolve?: Resolve) =>
    deliver(claim(endpoint), {
      dispatcher: createHttpAgent({ policy, resolve }),
      signer: new WebhookSigner([generateSigningSecret()]),
      userAgent: 'Punctual/test',
      now: () => Date.now(),
      policy,
    });

  it('refuses a host name that resolves to loopback, and does not retry it', async () => {
    const { resolve } = scriptedResolver(['127.0.0.1']);
    const result = await call(`http://hook.example:${port}/a`, STRICT_POLICY, resolve);
    expect(result).toMatchObject({ ok: false, refused: true, statusCode: null });
    expect(result.error).toMatch(/^refused: hook\.example resolves to 127\.0\.0\.1, a loopback address/);
    expect(receiver.arrivals.filter((a) => a.path === '/a')).toHaveLength(0);
  });

  it('catches DNS rebinding: public at the first lookup, loopback at the one used to connect', async () => {
    const { resolve, lookups } = scriptedResolver(['93.184.215.14', '::1']);
    // The first lookup (e.g. a validation elsewhere) sees a public address …
    await new Promise<void>((done) => resolve('rebind.example', {}, () => done()));
    // … the connection's own lookup gets loopback and is refused.
    const result = await call(`http://rebind.example:${port}/b`, STRICT_POLICY, resolve);
    expect(lookups()).toBe(2);
    expect(result.refused).toBe(true);
    expect(result.error).toContain('::1, a loopback address');
    expect(receiver.arrivals.filter((a) => a.path === '/b')).toHaveLength(0);
  });

  it('refuses IP-literal hosts, which skip the lookup, IPv4 and IPv6', async () => {
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]']) {
      const result = await call(`http://${host}:${port}/c`, STRICT_POLICY);
      expect(result.refused, host).toBe(true);
    }
    expect(receiver.arrivals.filter((a) => a.path === '/c')).toHaveLength(0);
  });

  it('lets allowed networks, allowed host names and PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS through', async () => {
    const { resolve } = scriptedResolver(['127.0.0.1']);
    const viaNetwork = await call(`http://hook.example:${port}/d`, { allowPrivate: false, ...parseAllowedNetworks('127.0.0.0/8') }, resolve);
    const viaHost = await call(`http://hook.example:${port}/e`, { allowPrivate: false, ...parseAllowedNetworks('hook.example') }, resolve);
    const viaSwitch = await call(`http://127.0.0.1:${port}/f`, { ...STRICT_POLICY, allowPrivate: true });
    expect([viaNetwork.statusCode, viaHost.statusCode, viaSwitch.statusCode]).toEqual([200, 200, 200]);
  });

  it('never follows a redirect to a refused (or any) address', async () => {
    receiver.respond('/redirect', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } });
    const res = await request(`${receiver.url}/redirect`, {
      dispatcher: createHttpAgent({ policy: { ...STRICT_POLICY, allowPrivate: true } }),
    });
    expect(res.statusCode).toBe(302);
    await res.body.dump();
  });
});
