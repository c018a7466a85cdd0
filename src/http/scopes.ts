/**
 * The scope each authenticated route needs (docs/keys-and-audit.md, "Scopes"), declared once: in
 * the route's `schema.security` as `bearer('jobs:write')`, which is also what the OpenAPI
 * document says (`security: [{ bearerAuth: ['jobs:write'] }]`). {@link scopeOnRoute} reads it when
 * the route is registered (refusing a route under authentication that declares none, so the app
 * does not start) and puts it in `config.scope`; the auth hook (`auth.ts`) refuses a key without
 * it, before the body is read or validated and before anything looks for the resource.
 */
import type { onRouteHookHandler } from 'fastify';
import { API_KEY_SCOPES, type ApiKeyScope } from '../domain/enums.js';
import { InsufficientScopeError } from '../domain/errors.js';
import { grantsScope } from '../domain/scopes.js';
import type { ApiKey } from '../domain/types.js';
import { BEARER_AUTH } from './schemas/operations.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope the route needs, taken from its `schema.security` by {@link scopeOnRoute}. */
    scope?: ApiKeyScope;
  }
}

/** `security` of an operation that needs an API key holding `scope`. */
export function bearer(scope: ApiKeyScope): Array<Record<string, string[]>> {
  return [{ [BEARER_AUTH]: [scope] }];
}

/**
 * The scope a route's `security` declares: its one bearer requirement with exactly one known
 * scope; null otherwise (none, several, or an unknown one).
 */
export function declaredScope(security: unknown): ApiKeyScope | null {
  if (!Array.isArray(security) || security.length !== 1) return null;
  const scopes = (security[0] as Record<string, unknown>)[BEARER_AUTH];
  if (!Array.isArray(scopes) || scopes.length !== 1) return null;
  const scope = scopes[0] as ApiKeyScope;
  return API_KEY_SCOPES.includes(scope) ? scope : null;
}

/**
 * The `onRoute` hook of the authenticated routes: puts the scope their `schema.security`
 * declares in `config.scope`.
 * @throws Error when a route declares no scope (or not exactly one known scope): the app does
 *   not start, so a new route cannot forget its scope
 */
export const scopeOnRoute: onRouteHookHandler = (route) => {
  const scope = declaredScope((route.schema as { security?: unknown } | undefined)?.security);
  if (scope === null) {
    throw new Error(
      `The authenticated route ${String(route.method)} ${route.url} declares no scope: give its schema security: bearer(<scope>) ` +
        `with one of ${API_KEY_SCOPES.join(', ')} (src/http/scopes.ts).`,
    );
  }
  route.config = { ...route.config, scope };
};

/**
 * @throws InsufficientScopeError (403) naming the scope when `key` does not hold `needed` (nor a
 *   scope that implies it). No check when `needed` is undefined (routes outside authentication).
 */
export function requireScope(key: ApiKey, needed: ApiKeyScope | undefined): void {
  if (needed !== undefined && !grantsScope(key.scopes, needed)) {
    throw new InsufficientScopeError(`this key lacks the scope ${needed}`);
  }
}
