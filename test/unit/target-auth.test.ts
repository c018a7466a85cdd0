import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  authorizationHeader,
  OAuthTokens,
  TOKEN_DEFAULT_LIFETIME_MS,
  TOKEN_EXPIRY_MARGIN_MS,
  TokenError,
  type OAuth2Credentials,
} from '../../src/dispatch/call/target-auth.js';
import { createHttpAgent } from '../../src/dispatch/call/http-agent.js';
import { STRICT_POLICY } from '../../src/net/ssrf.js';
import { freePort } from '../support/ports.js';
import { startTokenEndpoint, type TokenEndpoint } from '../support/token-endpoint.js';

/** One request the token endpoint received. */
interface TokenRequest {
  authorization: string | undefined;
  contentType: string | undefined;
  form: URLSearchParams;
}

/** A real OAuth 2.0 token endpoint on 127.0.0.1 (RFC 6749 §4.4), answering queued answers, then fresh tokens. */
let endpoint: TokenEndpoint;
let tokenUrl: string;
/** The requests the token endpoint received since the test began, in order. */
const requests = (): TokenRequest[] =>
  endpoint.requests.map((form, i) => ({ form, authorization: endpoint.authorizations[i], contentType: endpoint.contentTypes[i] }));

beforeAll(async () => {
  endpoint = await startTokenEndpoint('token-');
  tokenUrl = endpoint.url;
});
afterAll(() => endpoint.close());

const dispatcher = new Agent();
const clock = { t: Date.UTC(2030, 0, 1) };
let tokens: OAuthTokens;
beforeEach(() => {
  endpoint.reset();
  tokens = new OAuthTokens({ dispatcher, now: () => clock.t });
});

const creds = (o: Partial<OAuth2Credentials> = {}): OAuth2Credentials => ({
  type: 'oauth2',
  tokenUrl,
  clientId: 'punctual-client',
  clientSecret: 'client-secret-value-xyz',
  scope: 'jobs:write',
  audience: 'https://api.example',
  ...o,
});

describe('authorizationHeader', () => {
  it('HTTP Basic is base64 of user:password in UTF-8 (RFC 7617 §2)', async () => {
    expect(await authorizationHeader({ type: 'basic', username: 'Aladdin', password: 'open sesame' }, tokens, 1000)).toBe(
      'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==',
    );
    expect(await authorizationHeader({ type: 'basic', username: 'test', password: '123£' }, tokens, 1000)).toBe('Basic dGVzdDoxMjPCow==');
  });

  it('a bearer token is sent as it is (RFC 6750 §2.1)', async () => {
    expect(await authorizationHeader({ type: 'bearer', token: 'abc.def' }, tokens, 1000)).toBe('Bearer abc.def');
  });

  it('OAuth 2.0: the client credentials grant, the client authenticated with HTTP Basic, scope and audience sent', async () => {
    expect(await authorizationHeader(creds(), tokens, 5000)).toBe('Bearer ' + endpoint.issued.at(-1));
    expect(requests()).toHaveLength(1);
    const [r] = requests();
    expect(r!.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(r!.form.get('grant_type')).toBe('client_credentials');
    expect(r!.form.get('scope')).toBe('jobs:write');
    expect(r!.form.get('audience')).toBe('https://api.example');
    expect(r!.form.get('client_secret')).toBeNull(); // not in the body: §2.3.1 Basic
    // §2.3.1: the id and secret are form-urlencoded, then joined by ':' and base64-encoded.
    const [id, secret] = Buffer.from(r!.authorization!.replace(/^Basic /, ''), 'base64').toString().split(':').map(decodeURIComponent);
    expect([id, secret]).toEqual(['punctual-client', 'client-secret-value-xyz']);
  });
});

describe('OAuthTokens', () => {
  it('fetches one token however many calls ask at the same moment, and shares it', async () => {
    endpoint.answers.push({ status: 200, body: { access_token: 'shared', token_type: 'Bearer', expires_in: 3600 }, delayMs: 50 });
    const all = await Promise.all(Array.from({ length: 25 }, () => tokens.token(creds(), 5000)));
    expect(new Set(all)).toEqual(new Set(['shared']));
    expect(requests()).toHaveLength(1);
    expect(await tokens.token(creds(), 5000)).toBe('shared');
    expect(requests()).toHaveLength(1);
  });

  it('reuses a token until 60 s before expires_in, then fetches a new one', async () => {
    endpoint.answers.push({ status: 200, body: { access_token: 'first', token_type: 'Bearer', expires_in: 120 } });
    const t0 = clock.t;
    expect(await tokens.token(creds(), 5000)).toBe('first');
    clock.t = t0 + 120_000 - TOKEN_EXPIRY_MARGIN_MS - 1;
    expect(await tokens.token(creds(), 5000)).toBe('first');
    clock.t = t0 + 120_000 - TOKEN_EXPIRY_MARGIN_MS;
    expect(await tokens.token(creds(), 5000)).not.toBe('first');
    expect(requests()).toHaveLength(2);
  });

  it('assumes 5 minutes when expires_in is absent', async () => {
    endpoint.answers.push({ status: 200, body: { access_token: 'no-expiry', token_type: 'Bearer' } });
    const t0 = clock.t;
    expect(await tokens.token(creds(), 5000)).toBe('no-expiry');
    clock.t = t0 + TOKEN_DEFAULT_LIFETIME_MS - TOKEN_EXPIRY_MARGIN_MS - 1;
    expect(await tokens.token(creds(), 5000)).toBe('no-expiry');
    clock.t = t0 + TOKEN_DEFAULT_LIFETIME_MS - TOKEN_EXPIRY_MARGIN_MS;
    await tokens.token(creds(), 5000);
    expect(requests()).toHaveLength(2);
  });

  it('keeps tokens apart per client, scope, audience and secret', async () => {
    const a = await tokens.token(creds(), 5000);
    expect(await tokens.token(creds({ scope: 'other' }), 5000)).not.toBe(a);
    expect(await tokens.token(creds({ audience: null }), 5000)).not.toBe(a);
    expect(await tokens.token(creds({ clientSecret: 'rotated' }), 5000)).not.toBe(a);
    expect(await tokens.token(creds({ clientId: 'other' }), 5000)).not.toBe(a);
    expect(requests()).toHaveLength(5);
    expect(requests()[2]!.form.get('audience')).toBeNull();
    expect(tokens.size).toBe(5);
  });

  it('invalidate drops the token the target refused, once: the next call fetches a new one', async () => {
    const a = await tokens.token(creds(), 5000);
    tokens.invalidate(creds(), 'some-older-token'); // not the cached one: kept
    expect(await tokens.token(creds(), 5000)).toBe(a);
    tokens.invalidate(creds(), a);
    const b = await tokens.token(creds(), 5000);
    expect(b).not.toBe(a);
    expect(requests()).toHaveLength(2);
  });

  it("a 4xx from the token endpoint fails at once, not retryable, quoting its OAuth error code and never the secret", async () => {
    endpoint.answers.push({ status: 400, body: { error: 'invalid_client', error_description: 'bad secret' } });
    const err = await tokens.token(creds(), 5000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenError);
    expect((err as TokenError).retryable).toBe(false);
    expect((err as TokenError).message).toBe('token endpoint answered HTTP 400 (invalid_client)');
    expect((err as TokenError).message).not.toContain('client-secret-value-xyz');
  });

  it('a 4xx without an OAuth body is not retryable either', async () => {
    endpoint.answers.push({ status: 403, body: 'forbidden', contentType: 'text/plain' });
    const err = (await tokens.token(creds(), 5000).catch((e: unknown) => e)) as TokenError;
    expect(err).toBeInstanceOf(TokenError);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/HTTP 403/);
  });

  it('a 5xx, an answer without a token, a timeout and a closed port are retryable', async () => {
    endpoint.answers.push({ status: 503, body: 'busy', contentType: 'text/plain' });
    const e503 = (await tokens.token(creds(), 5000).catch((e: unknown) => e)) as TokenError;
    expect([e503.retryable, e503.message]).toEqual([true, 'token endpoint answered HTTP 503']);

    endpoint.answers.push({ status: 200, body: { token_type: 'Bearer' } });
    const noToken = (await tokens.token(creds(), 5000).catch((e: unknown) => e)) as TokenError;
    expect(noToken.retryable).toBe(true);

    endpoint.answers.push({ status: 200, body: { access_token: 'slow', token_type: 'Bearer' }, delayMs: 1_500 });
    const slow = (await tokens.token(creds(), 1000).catch((e: unknown) => e)) as TokenError;
    expect([slow.retryable, slow.message, slow.cause]).toEqual([true, 'token endpoint timed out', undefined]);

    const port = await freePort(); // nothing listens on it
    const refused = (await tokens.token(creds({ tokenUrl: `http://127.0.0.1:${port}/t` }), 2000).catch((e: unknown) => e)) as TokenError;
    expect(refused).toBeInstanceOf(TokenError);
    expect(refused.retryable).toBe(true);
    expect(refused.message).not.toContain('client-secret-value-xyz');
    expect(requests().length).toBe(3); // nothing was cached from the failures
  });

  it('a token URL the SSRF guard refuses is never contacted', async () => {
    const guarded = new OAuthTokens({ dispatcher, policy: STRICT_POLICY, now: () => clock.t });
    const err = (await guarded.token(creds(), 5000).catch((e: unknown) => e)) as TokenError;
    expect(err).toBeInstanceOf(TokenError);
    expect([err.retryable, err.refused]).toEqual([false, true]);
    expect(err.message).toMatch(/^token endpoint refused: /);
    expect(requests()).toHaveLength(0);
  });

  it("a host name that resolves to a refused address is stopped by the guarded agent's lookup, not retried", async () => {
    const guarded = new OAuthTokens({ dispatcher: createHttpAgent({ policy: STRICT_POLICY }), policy: STRICT_POLICY, now: () => clock.t });
    const err = (await guarded.token(creds({ tokenUrl: tokenUrl.replace('127.0.0.1', 'localhost') }), 5000).catch((e: unknown) => e)) as TokenError;
    expect(err).toBeInstanceOf(TokenError);
    expect([err.retryable, err.refused]).toEqual([false, true]);
    expect(requests()).toHaveLength(0);
  });
});
