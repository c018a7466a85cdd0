import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAttempt, parseRetryAfter, retryDelayMs } from '../../src/dispatch/retry.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';

describe('retry rules', () => {
  it.each([
    [null, 'retry'],
    [200, 'succeeded'],
    [204, 'succeeded'],
    [299, 'succeeded'],
    [301, 'retry'],
    [307, 'retry'],
    [400, 'failed'],
    [401, 'failed'],
    [404, 'failed'],
    [408, 'retry'],
    [410, 'failed'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
    [599, 'retry'],
  ] as const)('status %s → %s', (status, verdict) => {
    expect(classifyAttempt(status)).toBe(verdict);
  });

  it('full jitter stays within [0, min(max, initial·2^(n−1))]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
        const d = retryDelayMs(n, DEFAULT_RETRY_POLICY, null, () => r);
        const ceiling = Math.min(3_600_000, 1_000 * 2 ** (n - 1));
        return d >= 0 && d <= ceiling && d === Math.floor(r * ceiling);
      }),
    );
    expect(retryDelayMs(1, DEFAULT_RETRY_POLICY, null, () => 0.999)).toBe(999);
    expect(retryDelayMs(30, DEFAULT_RETRY_POLICY, null, () => 0.999999)).toBeLessThanOrEqual(3_600_000);
  });

  it('honours Retry-After up to the maximum delay', () => {
    const policy = { maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 60_000 };
    expect(retryDelayMs(1, policy, 30_000)).toBe(30_000);
    expect(retryDelayMs(1, policy, 7_200_000)).toBe(60_000);
  });

  it('parses Retry-After in seconds and as an HTTP-date', () => {
    const now = Date.UTC(2026, 10, 21, 10, 0, 0);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
