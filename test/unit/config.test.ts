import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDuration, parseRetryDelays, parseRole } from '../../src/config.js';
import { DEFAULT_RATE_LIMIT } from '../../src/http/rate-limit.js';
import { DEFAULT_LIMITS } from '../../src/service/limits.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'file:./data/punctual.db',
      bootstrapToken: null,
      logLevel: 'info',
      requestTimeoutMs: 30_000,
      shutdownGraceMs: 10_000,
      nodeHeartbeatMs: 2_000,
      nodeTimeoutMs: 10_000,
      signingSecrets: null,
      encryptionKeys: null,
      retry: DEFAULT_RETRY_POLICY,
      executionRetentionMs: 7 * 86_400_000,
      auditRetentionMs: 90 * 86_400_000,
      misfireThresholdMs: 60_000,
      maxInFlight: 512,
      notifyMaxPerMinute: 10,
      notifyTimeoutMs: 10_000,
      publicUrl: null,
      endpointPolicy: { allowPrivate: false, networks: [], hosts: new Set() },
      limits: DEFAULT_LIMITS,
      rateLimit: DEFAULT_RATE_LIMIT,
      role: 'all',
      metricsPort: null,
      testClockOffsetMs: 0,
      trustProxy: false,
    });
  });

  it('reads PUNCTUAL_TRUST_PROXY, and names it when it is invalid', () => {
    expect(loadConfig({ PUNCTUAL_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }).trustProxy).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(loadConfig({ PUNCTUAL_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(() => loadConfig({ PUNCTUAL_TRUST_PROXY: 'proxy.local' })).toThrow(/PUNCTUAL_TRUST_PROXY="proxy.local"/);
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '9001',
      HOST: '0.0.0.0',
      DATABASE_URL: 'file:/tmp/x.db',
      PUNCTUAL_BOOTSTRAP_TOKEN: 'x'.repeat(32),
      LOG_LEVEL: 'DEBUG',
      PUNCTUAL_REQUEST_TIMEOUT_MS: '5000',
    });
    expect(c).toMatchObject({ port: 9001, host: '0.0.0.0', databaseUrl: 'file:/tmp/x.db', logLevel: 'debug', requestTimeoutMs: 5000 });
    expect(c.bootstrapToken).toBe('x'.repeat(32));
  });

  it('reports every invalid variable at once and never echoes the token', () => {
    const secret = 'short-secret';
    let error: unknown;
    try {
      loadConfig({ PORT: '80a', LOG_LEVEL: 'loud', PUNCTUAL_BOOTSTRAP_TOKEN: secret, PUNCTUAL_REQUEST_TIMEOUT_MS: '5' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    expect(e.problems).toHaveLength(4);
    expect(e.message).toMatch(/PORT="80a"/);
    expect(e.message).toMatch(/LOG_LEVEL="loud"/);
    expect(e.message).toMatch(/PUNCTUAL_BOOTSTRAP_TOKEN must be at least 32/);
    expect(e.message).not.toContain(secret);
  });

  it('reads PUNCTUAL_MAX_PAST as a duration, 365 days by default, at least 1s', () => {
    expect(loadConfig({}).limits.maxPastMs).toBe(365 * 86_400_000);
    expect(loadConfig({ PUNCTUAL_MAX_PAST: '30d' }).limits.maxPastMs).toBe(30 * 86_400_000);
    expect(() => loadConfig({ PUNCTUAL_MAX_PAST: '1y' })).toThrow(/PUNCTUAL_MAX_PAST="1y" must be a duration of at least 1s/);
    expect(() => loadConfig({ PUNCTUAL_MAX_PAST: '500ms' })).toThrow(/PUNCTUAL_MAX_PAST/);
  });

  it('reads the node heartbeat (ms) and timeout (a duration), the timeout more than twice the heartbeat', () => {
    const c = loadConfig({ PUNCTUAL_NODE_HEARTBEAT_MS: '500', PUNCTUAL_NODE_TIMEOUT: '5s' });
    expect([c.nodeHeartbeatMs, c.nodeTimeoutMs]).toEqual([500, 5_000]);
    expect(() => loadConfig({ PUNCTUAL_NODE_TIMEOUT: '10' })).toThrow(/PUNCTUAL_NODE_TIMEOUT="10" must be a duration of at least 1s/);
    expect(() => loadConfig({ PUNCTUAL_NODE_TIMEOUT: '4s' })).toThrow(/PUNCTUAL_NODE_TIMEOUT \(4000 ms\) must be more than twice PUNCTUAL_NODE_HEARTBEAT_MS \(2000 ms\)/);
    expect(() => loadConfig({ PUNCTUAL_NODE_HEARTBEAT_MS: '50' })).toThrow(/PUNCTUAL_NODE_HEARTBEAT_MS/);
  });

  it('reads the default retry policy of new jobs: PUNCTUAL_RETRY_DELAYS (durations) and PUNCTUAL_RETRY_MAX_ATTEMPTS', () => {
    expect(loadConfig({ PUNCTUAL_RETRY_DELAYS: '5s,5m,30m,2h,5h,10h,10h' }).retry).toEqual(DEFAULT_RETRY_POLICY);
    // The attempts follow the steps unless given; the other fields are the default's.
    expect(loadConfig({ PUNCTUAL_RETRY_DELAYS: ' 1s, 2s ,500ms' }).retry).toEqual({
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: 4,
      delaysMs: [1_000, 2_000, 500],
    });
    expect(loadConfig({ PUNCTUAL_RETRY_DELAYS: '1s', PUNCTUAL_RETRY_MAX_ATTEMPTS: '6' }).retry).toEqual({
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: 6,
      delaysMs: [1_000],
    });
    expect(loadConfig({ PUNCTUAL_RETRY_MAX_ATTEMPTS: '20' }).retry).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 20 });
    expect(parseRetryDelays('1d')).toEqual([86_400_000]);
    for (const [name, value, words] of [
      ['PUNCTUAL_RETRY_DELAYS', '5s,,5m', '"" must be a duration from 100ms to 24h'],
      ['PUNCTUAL_RETRY_DELAYS', '99ms', '"99ms" must be a duration from 100ms to 24h'],
      ['PUNCTUAL_RETRY_DELAYS', '25h', '"25h" must be a duration from 100ms to 24h'],
      ['PUNCTUAL_RETRY_DELAYS', '5', '"5" must be a duration'],
      ['PUNCTUAL_RETRY_DELAYS', Array.from({ length: 20 }, () => '1s').join(','), 'must list from 1 to 19 delays'],
      ['PUNCTUAL_RETRY_MAX_ATTEMPTS', '0', 'must be a whole number from 1 to 20'],
      ['PUNCTUAL_RETRY_MAX_ATTEMPTS', '21', 'must be a whole number from 1 to 20'],
    ] as const) {
      let message = '';
      try {
        loadConfig({ [name]: value });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toContain(name);
      expect(message).toContain(words);
    }
  });

  it('reads retention as a duration and signing secrets as a space-separated list', () => {
    const a = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const b = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const c = loadConfig({ PUNCTUAL_EXECUTION_RETENTION: '36h', PUNCTUAL_SIGNING_SECRET: ` ${a}  ${b} ` });
    expect(c.executionRetentionMs).toBe(36 * 3_600_000);
    expect(loadConfig({ PUNCTUAL_AUDIT_RETENTION: '365d' }).auditRetentionMs).toBe(365 * 86_400_000);
    expect(() => loadConfig({ PUNCTUAL_AUDIT_RETENTION: '90' })).toThrow(/PUNCTUAL_AUDIT_RETENTION/);
    expect(c.signingSecrets).toEqual([a, b]);
    expect(parseDuration('90m')).toBe(5_400_000);
    expect(parseDuration('7')).toBeNull();
    expect(() => loadConfig({ PUNCTUAL_EXECUTION_RETENTION: '7' })).toThrow(/PUNCTUAL_EXECUTION_RETENTION/);
    let message = '';
    try {
      loadConfig({ PUNCTUAL_SIGNING_SECRET: `${a} whsec_not-a-secret` });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/secret #2/);
    expect(message).not.toContain(a);
  });

  it('reads the role (PUNCTUAL_ROLE) and the test-only clock offset', () => {
    expect(loadConfig({ PUNCTUAL_ROLE: 'Dispatcher' }).role).toBe('dispatcher');
    expect(loadConfig({ PUNCTUAL_ROLE: 'api' }).role).toBe('api');
    expect(() => loadConfig({ PUNCTUAL_ROLE: 'worker' })).toThrow(/PUNCTUAL_ROLE="worker" must be one of all, api, dispatcher/);
    expect(parseRole(' ALL ')).toBe('all');
    expect(parseRole('both')).toBeNull();
    expect(loadConfig({ PUNCTUAL_TEST_CLOCK_OFFSET_MS: '-5000' }).testClockOffsetMs).toBe(-5_000);
    expect(() => loadConfig({ PUNCTUAL_TEST_CLOCK_OFFSET_MS: '5s' })).toThrow(/PUNCTUAL_TEST_CLOCK_OFFSET_MS/);
  });

  it('reads the SSRF guard, the size limits and the rate limit', () => {
    const c = loadConfig({
      PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS: 'true',
      PUNCTUAL_ALLOWED_NETWORKS: '10.0.0.0/8, hooks.internal',
      PUNCTUAL_MAX_BODY_BYTES: '2048',
      PUNCTUAL_RATE_LIMIT_PER_SECOND: '0',
    });
    expect(c.endpointPolicy.allowPrivate).toBe(true);
    expect(c.endpointPolicy.networks).toHaveLength(1);
    expect([...c.endpointPolicy.hosts]).toEqual(['hooks.internal']);
    expect(c.limits).toEqual({ ...DEFAULT_LIMITS, bodyBytes: 2048 });
    expect(c.rateLimit).toEqual({ perSecond: 0, burst: DEFAULT_RATE_LIMIT.burst });
    expect(() => loadConfig({ PUNCTUAL_ALLOWED_NETWORKS: 'not a network!' })).toThrow(/PUNCTUAL_ALLOWED_NETWORKS/);
    expect(() => loadConfig({ PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS: 'yes' })).toThrow(/PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS/);
  });

  it('reads the metrics port (PUNCTUAL_METRICS_PORT): unset is null, 0 picks a free port, PORT is refused', () => {
    expect(loadConfig({}).metricsPort).toBeNull();
    expect(loadConfig({ PUNCTUAL_METRICS_PORT: '' }).metricsPort).toBeNull();
    expect(loadConfig({ PUNCTUAL_METRICS_PORT: '9100' }).metricsPort).toBe(9100);
    expect(loadConfig({ PORT: '0', PUNCTUAL_METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(() => loadConfig({ PUNCTUAL_METRICS_PORT: '65536' })).toThrow(/PUNCTUAL_METRICS_PORT="65536" must be a whole number from 0 to 65535/);
    expect(() => loadConfig({ PUNCTUAL_METRICS_PORT: '-1' })).toThrow(/PUNCTUAL_METRICS_PORT="-1"/);
    expect(() => loadConfig({ PUNCTUAL_METRICS_PORT: 'metrics' })).toThrow(/PUNCTUAL_METRICS_PORT="metrics"/);
    expect(() => loadConfig({ PORT: '9100', PUNCTUAL_METRICS_PORT: '9100' })).toThrow(/PUNCTUAL_METRICS_PORT="9100" must differ from PORT/);
    expect(() => loadConfig({ PUNCTUAL_METRICS_PORT: '8080' })).toThrow(/must differ from PORT/); // PORT's default
  });

  it('reads the notification settings and the public URL (kept without its trailing slash)', () => {
    const c = loadConfig({ PUNCTUAL_NOTIFY_MAX_PER_MINUTE: '3', PUNCTUAL_NOTIFY_TIMEOUT_MS: '2000', PUNCTUAL_PUBLIC_URL: 'https://p.example.com/base/' });
    expect(c).toMatchObject({ notifyMaxPerMinute: 3, notifyTimeoutMs: 2000, publicUrl: 'https://p.example.com/base' });
    expect(() => loadConfig({ PUNCTUAL_NOTIFY_MAX_PER_MINUTE: '0' })).toThrow(/PUNCTUAL_NOTIFY_MAX_PER_MINUTE="0" must be a whole number from 1 to 10000/);
    expect(() => loadConfig({ PUNCTUAL_NOTIFY_TIMEOUT_MS: '999' })).toThrow(/PUNCTUAL_NOTIFY_TIMEOUT_MS/);
    expect(() => loadConfig({ PUNCTUAL_PUBLIC_URL: 'punctual.example.com' })).toThrow(/PUNCTUAL_PUBLIC_URL="punctual.example.com" must be an absolute http or https URL/);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', PUNCTUAL_BOOTSTRAP_TOKEN: '' })).toMatchObject({ port: 8080, bootstrapToken: null });
  });
});
