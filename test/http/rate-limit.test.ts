/**
 * Rate limits (docs/security.md): the per-key token bucket with its IETF `RateLimit-*` fields and
 * `Retry-After`, and the per-address guard against repeated failed authentications. Time comes
 * from an injected clock: no sleeps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AUTH_FAILURE_LIMIT,
  AuthFailureGuard,
  clientKey,
  TokenBuckets,
} from '../../src/http/rate-limit.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { expectProblem, openHarness, type Harness } from './harness.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const BAD = { authorization: 'Bearer pk_not-a-real-token-not-a-real-token-0000' };

describe('per API key: a token bucket', () => {
  it('takes `burst` requests at once, then refills at `perSecond`; RateLimit-* on every answer', async () => {
    h = await openHarness({ rateLimit: { perSecond: 2, burst: 3 } });
    const get = (headers = h!.headers) => h!.app.inject({ method: 'GET', url: '/schedules', headers });
    const fields = (res: Awaited<ReturnType<typeof get>>) => [
      res.headers['ratelimit-limit'],
      res.headers['ratelimit-remaining'],
      res.headers['ratelimit-reset'],
    ];

    const answers = [await get(), await get(), await get()];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(answers.map(fields)).toEqual([
      ['3', '2', '1'], // 1 token missing: full again in 0.5 s, rounded up
      ['3', '1', '1'],
      ['3', '0', '2'],
    ]);

    const refused = await get();
    const body = expectProblem(refused, 429);
    expect(body.type).toBe('urn:punctual:problem:rate_limited');
    expect(refused.headers['retry-after']).toBe('1');
    expect(fields(refused)).toEqual(['3', '0', '2']);

    h.clock.t += 499; // not yet one token
    expectProblem(await get(), 429);
    h.clock.t += 1;
    expect((await get()).statusCode).toBe(200);
    h.clock.t += 10_000; // refilled, never above the burst
    expect(fields(await get())).toEqual(['3', '2', '1']);
  });

  it('counts every answered request of the key, errors included, and sends the fields on them', async () => {
    h = await openHarness({ rateLimit: { perSecond: 1, burst: 2 } });
    const bad = await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, payload: { name: '' } });
    expectProblem(bad, 400);
    expect(bad.headers['ratelimit-remaining']).toBe('1');
    const missing = await h.app.inject({ method: 'PATCH', url: '/cron/0190a8f0-0000-7000-8000-000000000000', headers: h.headers, payload: {} });
    expectProblem(missing, 404);
    expect(missing.headers['ratelimit-remaining']).toBe('0');
    const refused = await h.app.inject({ method: 'GET', url: '/api-keys', headers: h.headers });
    expectProblem(refused, 429);
    expect(refused.headers['retry-after']).toBe('1');
  });

  it('a refused request does nothing', async () => {
    h = await openHarness({ rateLimit: { perSecond: 1, burst: 1 } });
    const payload = { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/' };
    expect((await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, payload })).statusCode).toBe(201);
    expectProblem(await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, payload }), 429);
    expect(await h.store.scheduleList()).toHaveLength(1);
  });

  it('each key has its own bucket', async () => {
    h = await openHarness({ rateLimit: { perSecond: 1, burst: 1 } });
    const other = await createApiKey(h.store, h.clock, { name: 'other' });
    expect((await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers })).statusCode).toBe(200);
    expectProblem(await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers }), 429);
    const res = await h.app.inject({ method: 'GET', url: '/schedules', headers: { authorization: `Bearer ${other.token}` } });
    expect(res.statusCode).toBe(200);
  });

  it('the defaults are 1,000 a second with a burst of 2,000', async () => {
    h = await openHarness();
    const res = await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers });
    expect(res.headers['ratelimit-limit']).toBe('2000');
    expect(res.headers['ratelimit-remaining']).toBe('1999');
    expect(res.headers['ratelimit-reset']).toBe('1');
  });

  it('perSecond 0 turns it off: no fields, no 429', async () => {
    h = await openHarness({ rateLimit: { perSecond: 0, burst: 1 } });
    for (let i = 0; i < 5; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('open probes are not limited and carry no fields', async () => {
    h = await openHarness({ rateLimit: { perSecond: 1, burst: 1 } });
    for (let i = 0; i < 3; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/healthz' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('per client address: failed authentications', () => {
  it(`after ${AUTH_FAILURE_LIMIT} failures within a minute, 429 until the minute has passed, whatever the token`, async () => {
    h = await openHarness({ rateLimit: { perSecond: 0 } }); // the guard stays on with the key limit off
    const get = (headers: Record<string, string>, remoteAddress = '203.0.113.7') =>
      h!.app.inject({ method: 'GET', url: '/schedules', headers, remoteAddress });

    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
      h.clock.t += 1_000; // 50 failures over 50 s: all within the minute of the first
      expectProblem(await get(i % 2 === 0 ? BAD : {}), 401);
    }
    const t1 = h.clock.t - 49_000; // the first failure
    for (const headers of [BAD, h.headers]) {
      const res = await get(headers);
      const body = expectProblem(res, 429);
      expect(body.type).toBe('urn:punctual:problem:too_many_failed_authentications');
      expect(res.headers['retry-after']).toBe('11'); // the window ends at t1 + 60 s, 11 s from now
    }
    // Other addresses are not affected.
    expect((await get(h.headers, '198.51.100.1')).statusCode).toBe(200);
    // Nothing of a blocked request is looked at: no lastUsed update, no body validation.
    const blocked = await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, remoteAddress: '203.0.113.7', payload: 'x' });
    expectProblem(blocked, 429);

    h.clock.t = t1 + 59_999;
    expect((await get(h.headers)).statusCode).toBe(429);
    h.clock.t = t1 + 60_000;
    expect((await get(h.headers)).statusCode).toBe(200);
  });

  it('49 failures do not block; successes do not reset the count; the window restarts after a minute', async () => {
    h = await openHarness();
    const get = (headers: Record<string, string>) => h!.app.inject({ method: 'GET', url: '/schedules', headers });
    for (let i = 0; i < AUTH_FAILURE_LIMIT - 1; i++) expectProblem(await get(BAD), 401);
    expect((await get(h.headers)).statusCode).toBe(200);
    expectProblem(await get(BAD), 401); // the 50th
    expectProblem(await get(h.headers), 429);
    h.clock.t += 60_000;
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) expectProblem(await get(BAD), 401);
    expectProblem(await get(BAD), 429);
  });

  it('a Disabled key (403) is not a failed authentication', async () => {
    h = await openHarness();
    const disabled = await createApiKey(h.store, h.clock, { name: 'off', status: 'Disabled' });
    for (let i = 0; i < AUTH_FAILURE_LIMIT + 5; i++) {
      expectProblem(await h.app.inject({ method: 'GET', url: '/schedules', headers: { authorization: `Bearer ${disabled.token}` } }), 403);
    }
    expect((await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers })).statusCode).toBe(200);
  });

  it('IPv6 clients are counted by /64: other addresses of the network are blocked too, other networks are not', async () => {
    h = await openHarness();
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
      const remoteAddress = `2001:db8:1:2::${(i + 1).toString(16)}`;
      expectProblem(await h.app.inject({ method: 'GET', url: '/schedules', headers: BAD, remoteAddress }), 401);
    }
    const same = await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers, remoteAddress: '2001:db8:1:2:ffff::1' });
    expectProblem(same, 429);
    const other = await h.app.inject({ method: 'GET', url: '/schedules', headers: h.headers, remoteAddress: '2001:db8:1:3::1' });
    expect(other.statusCode).toBe(200);
  });
});

describe('TokenBuckets', () => {
  it('drops buckets that had time to fill up (they equal no bucket), keeping busy ones', () => {
    const buckets = new TokenBuckets({ perSecond: 10, burst: 20 }, 1_000, 1_000);
    for (let i = 0; i < 500; i++) buckets.take(`idle${i}`, 0);
    buckets.take('busy', 0);
    buckets.take('busy', 1_500);
    expect(buckets.size).toBe(501);
    // Idle buckets are full 2 s after their last use (20 tokens at 10/s); busy was used at 1.5 s.
    // Sweeps run at most once a second: at 0, at 1.5 s (nothing full yet), at 2.6 s.
    const d = buckets.take('busy', 2_600);
    expect(buckets.size).toBe(1);
    expect(d).toMatchObject({ allowed: true, limit: 20, remaining: 19 }); // refilled to 20 (the cap), minus this one
  });

  it('never holds more than maxEntries buckets: the least recently used go first', () => {
    const buckets = new TokenBuckets({ perSecond: 1, burst: 5 }, 100, 1_000_000);
    for (let i = 0; i < 10_000; i++) buckets.take(`k${i}`, 0);
    expect(buckets.size).toBe(100);
  });

  it('a clock that steps back refills nothing', () => {
    const buckets = new TokenBuckets({ perSecond: 1, burst: 2 });
    buckets.take('k', 10_000);
    buckets.take('k', 10_000);
    expect(buckets.take('k', 5_000).allowed).toBe(false);
    expect(buckets.take('k', 5_999).allowed).toBe(false);
    expect(buckets.take('k', 6_000).allowed).toBe(true);
  });

  it('refuses settings that cannot make a bucket', () => {
    expect(() => new TokenBuckets({ perSecond: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new TokenBuckets({ perSecond: 1, burst: 0 })).toThrow(RangeError);
  });
});

describe('AuthFailureGuard', () => {
  it('never tracks more than maxEntries addresses, and forgets windows that are over', () => {
    const guard = new AuthFailureGuard(50, 60_000, 1_000);
    for (let i = 0; i < 100_000; i++) guard.fail(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 0);
    expect(guard.size).toBe(1_000);
    guard.fail('192.0.2.1', 60_000); // a minute later: everything before is swept
    expect(guard.size).toBe(1);
  });

  it('counts IPv4-mapped IPv6 addresses as the IPv4 address', () => {
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('not an address')).toBe('not an address');
  });
});
