/**
 * The rules of API key scopes (docs/keys-and-audit.md, "Scopes"), once: which scope a key's list
 * grants, and which of a requested list a key may not hand out. Pure.
 */
import { API_KEY_SCOPES, type ApiKeyScope } from './enums.js';

/** What holding a scope grants besides itself: `jobs:write` implies `jobs:read`. */
const IMPLIED: Partial<Record<ApiKeyScope, readonly ApiKeyScope[]>> = { 'jobs:write': ['jobs:read'] };

/** Whether a key holding `held` may do what needs `needed` (held directly, or implied by one held). */
export function grantsScope(held: readonly ApiKeyScope[], needed: ApiKeyScope): boolean {
  return held.some((s) => s === needed || (IMPLIED[s]?.includes(needed) ?? false));
}

/**
 * The scopes of `requested` that a key holding `held` does not have (so may not grant), in the
 * order of {@link API_KEY_SCOPES}; empty when it may grant them all. A key never grants more
 * than it holds.
 */
export function scopesNotHeld(held: readonly ApiKeyScope[], requested: readonly ApiKeyScope[]): ApiKeyScope[] {
  return canonicalScopes(requested).filter((s) => !grantsScope(held, s));
}

/** `scopes` without duplicates, in the order of {@link API_KEY_SCOPES} (how keys store them). */
export function canonicalScopes(scopes: readonly ApiKeyScope[]): ApiKeyScope[] {
  return API_KEY_SCOPES.filter((s) => scopes.includes(s));
}

/** Every scope: keys made on the server, by the bootstrap token, and those made before scopes existed. */
export const ALL_SCOPES: readonly ApiKeyScope[] = API_KEY_SCOPES;
