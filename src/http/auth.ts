/**
 * Bearer authentication of the interface's endpoints (every endpoint needs a valid API key in
 * `Authorization: Bearer`, holding the route's scope; docs/security.md, docs/keys-and-audit.md), as
 * an `onRequest` hook so that nothing of an unauthenticated or unauthorised request is parsed or
 * validated; with the rate limits (`rate-limit.ts`) around it.
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import type { ApiKey } from '../domain/types.js';
import { authenticate } from '../service/api-keys.js';
import type { LastUsedRecorder } from '../service/last-used.js';
import type { Store } from '../store/store.js';
import { requireScope } from './scopes.js';
import { AUTH_THROTTLED, RATE_LIMITED, rateLimitHeaders, TooManyRequestsError, type RequestLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key that authenticated the request (set by the auth hook; null on open routes). */
    apiKey: ApiKey | null;
  }
}

/**
 * The token of an `Authorization` header value, or null when the header is missing, not the
 * Bearer scheme, or has no credentials.
 */
export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  // `Bearer <token>`: the scheme is case-insensitive (RFC 9110 §11.1); spaces around are dropped.
  // Parsed by hand rather than by a backtracking regular expression.
  const value = header.trim();
  const space = value.indexOf(' ');
  if (space < 0 || value.slice(0, space).toLowerCase() !== 'bearer') return null;
  const token = value.slice(space + 1).trim();
  return token === '' ? null : token;
}

/**
 * The hook, in this order:
 *  1. 429 (with `Retry-After`) when the client's address is blocked for failing authentication
 *     too often (`limiter.failures`), before its token is even looked at;
 *  2. 401 (with `WWW-Authenticate: Bearer`) when the token is missing, malformed or unknown, its
 *     key expired, or it was replaced by a rotation whose grace period is over — counted as a
 *     failure of the address (`request.ip`: the client's address, behind a trusted proxy the
 *     forwarded one) — and 403 when its key is `Disabled`;
 *  3. a token from the key's bucket (`limiter.keys`, unless off): the `RateLimit-*` fields go on
 *     the answer, whatever it is, and an empty bucket is a 429 with `Retry-After`;
 *  4. notes the use in `recorder` and sets `request.apiKey`;
 *  5. 403 `insufficient_scope` naming the scope when the key lacks the one the route declares
 *     (`config.scope`, from its `schema.security`: scopes.ts), before the body is read or
 *     validated and before anything looks for the resource.
 * The key is looked up on every request (no cache), so disabling or deleting it applies to the
 * next request.
 */
export function authHook(store: Store, clock: Clock, recorder: LastUsedRecorder, limiter: RequestLimiter): onRequestAsyncHookHandler {
  return async function bearerAuth(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const now = clock.now();
    const blocked = limiter.failures.blockedFor(request.ip, now);
    if (blocked !== null) {
      reply.header('retry-after', String(blocked));
      throw new TooManyRequestsError(AUTH_THROTTLED, blocked);
    }
    try {
      const token = bearerToken(request.headers.authorization);
      if (token === null) {
        throw new DomainError('unauthenticated', 'Send an API key in the header Authorization: Bearer <token>.');
      }
      request.apiKey = await authenticate(store, token, now);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'unauthenticated') {
        limiter.failures.fail(request.ip, now);
        // The audit log counts failed sign-ins per address and minute; a failure to count is logged, never the answer.
        await store.auditAuthFailure({ address: request.ip, now }).catch((e: unknown) => request.log.warn({ err: e }, 'could not count a failed sign-in in the audit log'));
        if (bearerToken(request.headers.authorization) !== null) {
          reply.header('www-authenticate', 'Bearer realm="punctual", error="invalid_token"');
        }
      }
      throw err;
    }
    if (limiter.keys !== null) {
      const decision = limiter.keys.take(request.apiKey.id, now);
      reply.headers(rateLimitHeaders(decision));
      if (!decision.allowed) {
        reply.header('retry-after', String(decision.retryAfterSeconds));
        throw new TooManyRequestsError(RATE_LIMITED, decision.retryAfterSeconds);
      }
    }
    recorder.record(request.apiKey.id, now);
    requireScope(request.apiKey, request.routeOptions.config.scope);
  };
}
