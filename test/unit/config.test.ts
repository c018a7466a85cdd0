import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

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
    });
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

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', PUNCTUAL_BOOTSTRAP_TOKEN: '' })).toMatchObject({ port: 8080, bootstrapToken: null });
  });
});
