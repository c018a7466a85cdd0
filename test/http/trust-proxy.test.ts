/**
 * `PUNCTUAL_TRUST_PROXY` (Fastify's `trustProxy`), over real sockets on 127.0.0.1: the lockout
 * after 50 failed authentications counts per client address. With the peer trusted, two clients
 * behind it (different `X-Forwarded-For`) are locked apart; untrusted (off, or trusting another
 * range), `X-Forwarded-For` is ignored and the peer's address is the one locked. And the parsing
 * of the setting.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH_FAILURE_LIMIT } from '../../src/http/rate-limit.js';
import { parseTrustProxy, type TrustProxy } from '../../src/net/trust-proxy.js';
import { openHarness, type Harness } from './harness.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const BAD = 'Bearer pk_not-a-real-token-not-a-real-token-0000';

/** The app of `trustProxy` listening on 127.0.0.1; returns its base URL. */
async function serve(trustProxy: TrustProxy): Promise<string> {
  h = await openHarness({ trustProxy });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}

/** GET /schedules with `authorization` and, when given, `X-Forwarded-For`; the status. */
async function status(base: string, authorization: string, forwardedFor?: string): Promise<number> {
  const res = await fetch(`${base}/schedules`, { headers: { authorization, ...(forwardedFor && { 'x-forwarded-for': forwardedFor }) } });
  await res.arrayBuffer();
  return res.status;
}

/** Fails authentication `AUTH_FAILURE_LIMIT` times as `forwardedFor`: the next attempt from there is locked (429). */
async function lockOut(base: string, forwardedFor?: string): Promise<void> {
  for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) expect(await status(base, BAD, forwardedFor)).toBe(401);
  expect(await status(base, BAD, forwardedFor)).toBe(429);
}

describe('behind a trusted proxy', () => {
  it('two clients behind it are locked apart, by their forwarded addresses', async () => {
    const base = await serve(['127.0.0.1']);
    await lockOut(base, '203.0.113.7');
    // Another client behind the same proxy is not locked, with a good token or a bad one.
    expect(await status(base, `Bearer ${h!.token}`, '198.51.100.9')).toBe(200);
    expect(await status(base, BAD, '198.51.100.9')).toBe(401);
    // The locked client stays locked, even with a good token.
    expect(await status(base, `Bearer ${h!.token}`, '203.0.113.7')).toBe(429);
    // The proxy's own address (no header) is not locked either.
    expect(await status(base, `Bearer ${h!.token}`)).toBe(200);
  });
});

describe('X-Forwarded-For from an untrusted peer is ignored', () => {
  for (const [name, trust] of [
    ['trust off', false],
    ['trusting another range', ['10.0.0.0/8']],
  ] as const) {
    it(`${name}: the peer's address is locked, whatever address it claims`, async () => {
      const base = await serve(trust as TrustProxy);
      await lockOut(base, '203.0.113.7');
      expect(await status(base, `Bearer ${h!.token}`, '198.51.100.9')).toBe(429);
    });
  }
});

describe('parseTrustProxy', () => {
  it('reads off, true, a hop count, and addresses and CIDR ranges', () => {
    expect(parseTrustProxy('')).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('TRUE')).toBe(true);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1 fd00::/8')).toEqual(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);
  });

  it('refuses anything else with the value in the message', () => {
    expect(() => parseTrustProxy('yes')).toThrow(/"yes" is not an IP address or CIDR range/);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/10.0.0.0\/33/);
    expect(() => parseTrustProxy('1000')).toThrow(/hop count/);
  });
});
