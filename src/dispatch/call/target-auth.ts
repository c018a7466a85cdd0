/**
 * Authentication to the target of a call: the `Authorization` header of HTTP Basic (RFC 7617), a
 * bearer token (RFC 6750), or an access token from the OAuth 2.0 client credentials grant
 * (RFC 6749 §4.4, the client authenticated with HTTP Basic, §2.3.1), fetched with openid-client
 * through the dispatcher's SSRF-guarded undici agent and cached (docs/calls.md, "Authentication").
 */
import { createHash } from 'node:crypto';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { literalHostProblem, SSRF_REFUSED, type EndpointPolicy } from '../../net/ssrf.js';
import type { TargetAuthOpened } from '../../secrets/job-secrets.js';

/** OAuth 2.0 client credentials of a job, opened: where to get a token, as whom, for what. */
export type OAuth2Credentials = Extract<TargetAuthOpened, { type: 'oauth2' }>;

/**
 * Why no token could be had. `retryable` false: the token endpoint refused the client (a 4xx,
 * quoted by its OAuth `error` code), so the attempt fails at once and is not retried; true: a
 * 5xx, a timeout, a connection error or an answer that is no token, retried like any call.
 */
export class TokenError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly refused = false,
  ) {
    super(message);
    this.name = 'TokenError';
  }
}

/** Reuse a token until this long before it expires (ms). */
export const TOKEN_EXPIRY_MARGIN_MS = 60_000;
/** Lifetime assumed for a token whose answer has no `expires_in` (ms). */
export const TOKEN_DEFAULT_LIFETIME_MS = 5 * 60_000;
/** Most credentials whose tokens are kept; the least recently used beyond are dropped. */
export const TOKEN_CACHE_MAX = 10_000;

interface CachedToken {
  token: string;
  /** Epoch ms after which the token is not handed out any more. */
  reuseUntil: number;
}

/** Options of {@link OAuthTokens}. */
export interface OAuthTokensOptions {
  /** The undici dispatcher of outgoing calls (keep-alive pools, the SSRF guard's lookup). */
  dispatcher: Dispatcher;
  /** The SSRF guard's policy, for an IP-literal token URL (host names: the dispatcher's lookup). */
  policy?: EndpointPolicy;
  /** Clock reading epoch ms. */
  now: () => number;
}

/**
 * Access tokens of the client credentials grant, cached per (token URL, client id, scope,
 * audience, client secret) and shared by every job with those credentials: a token is reused until
 * {@link TOKEN_EXPIRY_MARGIN_MS} before its `expires_in` ({@link TOKEN_DEFAULT_LIFETIME_MS} when
 * absent), and fetched once however many calls ask for it at the same moment.
 */
export class OAuthTokens {
  private readonly cache = new Map<string, CachedToken>();
  private readonly inFlight = new Map<string, Promise<CachedToken>>();

  constructor(private readonly opts: OAuthTokensOptions) {}

  /**
   * A valid access token for `creds`.
   * @param timeoutMs bound of the token request (the job's call timeout)
   * @throws TokenError when none could be had
   */
  async token(creds: OAuth2Credentials, timeoutMs: number): Promise<string> {
    const key = cacheKey(creds);
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.reuseUntil > this.opts.now()) return cached.token;
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = this.fetchToken(creds, timeoutMs).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return (await pending).token;
  }

  /**
   * Drops `token` from the cache (the target answered 401 with it), unless another token already
   * replaced it: the next {@link token} fetches a new one, once.
   */
  invalidate(creds: OAuth2Credentials, token: string): void {
    const key = cacheKey(creds);
    if (this.cache.get(key)?.token === token) this.cache.delete(key);
  }

  /** Credentials whose tokens are cached now (for tests of the bound). */
  get size(): number {
    return this.cache.size;
  }

  private async fetchToken(creds: OAuth2Credentials, timeoutMs: number): Promise<CachedToken> {
    const refusedBy = this.opts.policy ? literalHostProblem(creds.tokenUrl, this.opts.policy) : null;
    if (refusedBy !== null) throw new TokenError(`token endpoint refused: ${refusedBy}`, false, true);
    // Loaded at the first token a process needs: most deployments never do, and starts stay short.
    const oauth = await import('openid-client');
    const config = new oauth.Configuration(
      { issuer: new URL(creds.tokenUrl).origin, token_endpoint: creds.tokenUrl },
      creds.clientId,
      undefined,
      oauth.ClientSecretBasic(creds.clientSecret),
    );
    // The job's endpoint policy decides which URLs are allowed (http included), not the library.
    oauth.allowInsecureRequests(config);
    config.timeout = Math.max(1, Math.ceil(timeoutMs / 1_000));
    const { dispatcher } = this.opts;
    config[oauth.customFetch] = (url, init) =>
      undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher }) as unknown as Promise<Response>;
    const parameters: Record<string, string> = {};
    if (creds.scope !== null) parameters.scope = creds.scope;
    if (creds.audience !== null) parameters.audience = creds.audience;
    let answer: import('openid-client').TokenEndpointResponse;
    try {
      answer = await oauth.clientCredentialsGrant(config, parameters);
    } catch (err) {
      throw tokenError(err, oauth.ResponseBodyError);
    }
    const now = this.opts.now();
    const lifetimeMs = typeof answer.expires_in === 'number' ? answer.expires_in * 1_000 : TOKEN_DEFAULT_LIFETIME_MS;
    const entry = { token: answer.access_token, reuseUntil: now + lifetimeMs - TOKEN_EXPIRY_MARGIN_MS };
    const key = cacheKey(creds);
    this.cache.delete(key);
    this.cache.set(key, entry);
    if (this.cache.size > TOKEN_CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }
}

/**
 * The `Authorization` header value of `auth`: `Basic base64(user:password)` (RFC 7617 §2, UTF-8),
 * `Bearer <token>` (RFC 6750 §2.1), or `Bearer <access token>` of the client credentials grant.
 * @throws TokenError when an OAuth 2.0 token could not be had
 */
export async function authorizationHeader(auth: TargetAuthOpened, tokens: OAuthTokens, timeoutMs: number): Promise<string> {
  switch (auth.type) {
    case 'basic':
      return `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}`;
    case 'bearer':
      return `Bearer ${auth.token}`;
    case 'oauth2':
      return `Bearer ${await tokens.token(auth, timeoutMs)}`;
  }
}

/** The cache key of credentials: a digest, so that the client secret is not kept as a key. */
function cacheKey(c: OAuth2Credentials): string {
  return createHash('sha256')
    .update(JSON.stringify([c.tokenUrl, c.clientId, c.scope, c.audience, c.clientSecret]))
    .digest('base64url');
}

/** What the grant threw → a {@link TokenError} that never carries the client secret. */
function tokenError(err: unknown, ResponseBodyError: typeof import('openid-client').ResponseBodyError): TokenError {
  if (err instanceof ResponseBodyError) {
    const refused = err.status >= 400 && err.status < 500;
    return new TokenError(`token endpoint answered HTTP ${err.status} (${err.error})`, !refused);
  }
  const status = responseStatus(err);
  if (status !== null) {
    return new TokenError(`token endpoint answered HTTP ${status}`, !(status >= 400 && status < 500));
  }
  if (codeOf(err) === SSRF_REFUSED) return new TokenError(`token endpoint refused: ${(causeOf(err) as Error).message}`, false, true);
  const e = err as { name?: string; message?: string; code?: string } | null;
  // openid-client reports its own timeout (the configuration's, the job's call timeout) as OAUTH_TIMEOUT.
  if (e?.code === 'OAUTH_TIMEOUT' || e?.name === 'TimeoutError') return new TokenError('token endpoint timed out', true);
  return new TokenError(`token endpoint failed: ${e?.message ?? String(err)}`, true);
}

/** The HTTP status of a grant error that kept its response (a non-OAuth error answer). */
function responseStatus(err: unknown): number | null {
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof Response || (typeof cause === 'object' && cause !== null && 'status' in cause && 'headers' in cause)
    ? (cause as { status: number }).status
    : null;
}

/** The innermost `cause` of an error chain (fetch wraps socket and lookup errors). */
function causeOf(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 5 && (e as { cause?: unknown } | null)?.cause !== undefined; i++) e = (e as { cause: unknown }).cause;
  return e;
}

/** The `code` of an error or of one of its causes. */
function codeOf(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown } | null;
  for (let i = 0; i < 5 && e; i++) {
    if (typeof e.code === 'string' && e.code !== 'OAUTH_RESPONSE_IS_NOT_CONFORM') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}
