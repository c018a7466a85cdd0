import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAttempt, parseRetryAfter, retryDelayMs } from '../../src/dispatch/call/retry.js';
import { DEFAULT_RETRY_POLICY, EXPONENTIAL_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import type { RetryPolicy } from '../../src/domain/types.js';

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
        const d = retryDelayMs(n, EXPONENTIAL_RETRY_POLICY, null, () => r);
        const ceiling = Math.min(3_600_000, 1_000 * 2 ** (n - 1));
        return d >= 0 && d <= ceiling && d === Math.floor(r * ceiling);
      }),
    );
    expect(retryDelayMs(1, EXPONENTIAL_RETRY_POLICY, null, () => 0.999)).toBe(999);
    expect(retryDelayMs(30, EXPONENTIAL_RETRY_POLICY, null, () => 0.999999)).toBeLessThanOrEqual(3_600_000);
    // A policy stored before steps existed has no delaysMs: the same exponential rule.
    const { delaysMs: _none, ...old } = EXPONENTIAL_RETRY_POLICY;
    expect(retryDelayMs(3, old, null, () => 0.5)).toBe(2_000);
  });

  describe('steps (delaysMs)', () => {
    const STEPS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

    it('the default policy: 8 attempts, the Standard Webhooks schedule', () => {
      expect(DEFAULT_RETRY_POLICY.maxAttempts).toBe(8);
      expect(DEFAULT_RETRY_POLICY.delaysMs).toEqual(STEPS);
      // Without jitter (factor 1: random 0.5) the retries come 99,305 s (~27.6 h) after the first attempt.
      const span = STEPS.reduce((sum, _, i) => sum + retryDelayMs(i + 1, DEFAULT_RETRY_POLICY, null, () => 0.5), 0);
      expect(span).toBe(99_305_000);
    });

    it('the delay before retry n is step n × a factor in [0.8, 1.2), the last step repeated', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
          const step = STEPS[Math.min(n, STEPS.length) - 1]!;
          const d = retryDelayMs(n, DEFAULT_RETRY_POLICY, null, () => r);
          return Number.isInteger(d) && d >= 0.8 * step && d < 1.2 * step && d === Math.floor(step * (0.8 + 0.4 * r));
        }),
      );
      expect(retryDelayMs(1, DEFAULT_RETRY_POLICY, null, () => 0)).toBe(4_000);
      expect(retryDelayMs(2, DEFAULT_RETRY_POLICY, null, () => 0.5)).toBe(300_000);
      expect(retryDelayMs(7, DEFAULT_RETRY_POLICY, null, () => 0.999999)).toBe(Math.floor(36_000_000 * (0.8 + 0.4 * 0.999999)));
      const short: RetryPolicy = { maxAttempts: 10, initialDelayMs: 1_000, maxDelayMs: 60_000, delaysMs: [1_000, 2_000] };
      expect([1, 2, 3, 9].map((n) => retryDelayMs(n, short, null, () => 0.5))).toEqual([1_000, 2_000, 2_000, 2_000]);
    });

    it('the first retry of the default policy comes within 10 s (4–6 s)', () => {
      for (const r of [0, 0.25, 0.5, 0.999999]) {
        const d = retryDelayMs(1, DEFAULT_RETRY_POLICY, null, () => r);
        expect(d).toBeGreaterThanOrEqual(4_000);
        expect(d).toBeLessThan(6_000);
      }
    });

    it('steps are not capped by maxDelayMs, but Retry-After is', () => {
      const p: RetryPolicy = { maxAttempts: 3, initialDelayMs: 1_000, maxDelayMs: 60_000, delaysMs: [120_000] };
      expect(retryDelayMs(1, p, null, () => 0.5)).toBe(120_000);
      expect(retryDelayMs(1, p, 30_000)).toBe(30_000);
      expect(retryDelayMs(1, p, 7_200_000)).toBe(60_000);
      expect(retryDelayMs(1, DEFAULT_RETRY_POLICY, 86_400_000)).toBe(43_200_000);
      expect(retryDelayMs(1, DEFAULT_RETRY_POLICY, 0)).toBe(0);
    });
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
