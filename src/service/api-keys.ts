/**
 * API key use cases: create (with rotation, the only places a token is shown), read, rename,
 * enable/disable, re-scope, set the expiry, delete, authenticate, and the operator's bootstrap key.
 * Scopes and expiry: docs/keys-and-audit.md.
 */
import { auditRecord, type AuditContext } from '../domain/audit.js';
import type { Clock } from '../domain/clock.js';
import { API_KEY_SCOPES, API_KEY_STATUSES } from '../domain/enums.js';
import { DomainError, InsufficientScopeError, InvalidInputError, NotFoundError } from '../domain/errors.js';
import { isUuid, newId } from '../domain/ids.js';
import { ALL_SCOPES, canonicalScopes, scopesNotHeld } from '../domain/scopes.js';
import { parseIsoInstant, toIso } from '../domain/time.js';
import type { ApiKey, ApiKeyScope, ApiKeyStatus } from '../domain/types.js';
import type { Store } from '../store/store.js';
import type { LastUsedRecorder } from './last-used.js';
import { Checks, DEFAULT_RULE_CONTEXT, type RuleContext } from './rules.js';
import { digestToken, generateToken } from './tokens.js';

/** Shortest bootstrap token accepted. */
export const BOOTSTRAP_TOKEN_MIN_LENGTH = 32;

/** Name of the key made from `PUNCTUAL_BOOTSTRAP_TOKEN`. */
export const BOOTSTRAP_KEY_NAME = 'bootstrap';

/**
 * Input of {@link createApiKey}. `status` null or absent means `Enabled`; `scopes` absent means
 * the granter's; `expiresAt` (ISO 8601 with Z or an offset) null or absent means never.
 */
export interface ApiKeyCreateInput {
  name: string;
  status?: ApiKeyStatus | null;
  scopes?: readonly ApiKeyScope[];
  expiresAt?: string | null;
}

/** Input of {@link updateApiKey}: absent fields keep their values; `expiresAt` null removes the expiry. */
export interface ApiKeyPatch {
  name?: string;
  status?: ApiKeyStatus;
  scopes?: readonly ApiKeyScope[];
  expiresAt?: string | null;
}

/**
 * The scopes of whoever creates or changes a key: the calling key's through the API; every scope
 * on the server (`punctual keys create`, the bootstrap token), {@link ALL_SCOPES}.
 */
export type Granter = readonly ApiKeyScope[];

/** Checks `scopes` (non-empty, known values) and `expiresAt` (an instant after `now`) into `checks`. */
function checkScopesAndExpiry(checks: Checks, input: { scopes?: readonly unknown[]; expiresAt?: string | null }, now: number): Checks {
  if (input.scopes !== undefined) {
    if (!Array.isArray(input.scopes) || input.scopes.length === 0) checks.add('/scopes', 'must list at least one scope');
    else input.scopes.forEach((s, i) => checks.oneOf(`/scopes/${i}`, s, API_KEY_SCOPES));
  }
  checks.rule('/expiresAt', 'instant', input.expiresAt, true);
  const at = typeof input.expiresAt === 'string' ? parseIsoInstant(input.expiresAt) : null;
  if (at !== null && at <= now) checks.add('/expiresAt', `must be after the current time (${toIso(now)})`);
  return checks;
}

/**
 * @throws InsufficientScopeError (403) naming the scopes of `requested` that `granter` does not
 *   hold: a key never grants more than it holds.
 */
export function assertMayGrant(granter: Granter, requested: readonly ApiKeyScope[]): void {
  const missing = scopesNotHeld(granter, requested);
  if (missing.length > 0) {
    throw new InsufficientScopeError(`this key cannot grant the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which it does not hold`);
  }
}

/** `expiresAt` of an input → epoch ms, null (never) or undefined (absent); the text was checked. */
function expiryOf(value: string | null | undefined): number | null | undefined {
  return value === undefined ? undefined : value === null ? null : parseIsoInstant(value);
}

/**
 * Creates a key with a new random token.
 * @param rules the limits of the service (the name's length); default `DEFAULT_RULE_CONTEXT`
 * @param granter the scopes of the creator: the new key's scopes when `input.scopes` is absent,
 *   and the most it may be given; default every scope (the server's own commands)
 * @param audit who asks, for the audit event (none: no event)
 * @returns the key and its token; the token is not stored (only its SHA-256 digest) and cannot
 *   be shown again.
 * @throws InvalidInputError when `name` is blank or too long, `status` is not a key state,
 *   `scopes` is empty or names no scope, or `expiresAt` is not an instant after now;
 *   InsufficientScopeError when `scopes` holds a scope `granter` lacks
 */
export async function createApiKey(
  store: Store,
  clock: Clock,
  input: ApiKeyCreateInput,
  rules: RuleContext = DEFAULT_RULE_CONTEXT,
  granter: Granter = ALL_SCOPES,
  audit?: AuditContext,
): Promise<{ apiKey: ApiKey; token: string }> {
  const now = clock.now();
  const checks = new Checks(rules)
    .required('/name', input.name)
    .rule('/name', 'name', input.name)
    .oneOf('/status', input.status ?? undefined, API_KEY_STATUSES);
  checkScopesAndExpiry(checks, input, now).throwIfAny();
  const scopes = canonicalScopes(input.scopes ?? granter);
  assertMayGrant(granter, scopes);
  const token = generateToken();
  const apiKey = await store.apiKeyCreate({
    id: newId(),
    name: input.name,
    status: input.status ?? 'Enabled',
    digest: digestToken(token),
    scopes,
    expiresAt: expiryOf(input.expiresAt) ?? null,
    now,
    audit: auditRecord(audit, 'apiKey.create', now),
  });
  return { apiKey, token };
}

/**
 * The key with this id, or null (also for ids that are not UUIDs). With a recorder, `lastUsed`
 * includes uses not yet written.
 */
export async function getApiKey(store: Store, id: string, recorder?: LastUsedRecorder): Promise<ApiKey | null> {
  if (!isUuid(id)) return null;
  const key = await store.apiKeyGet({ id });
  return key && withPendingUse(key, recorder);
}

/** Every key, oldest first, `lastUsed` as in {@link getApiKey}. */
export async function listApiKeys(store: Store, recorder?: LastUsedRecorder): Promise<ApiKey[]> {
  const keys = await store.apiKeyList();
  return keys.map((k) => withPendingUse(k, recorder));
}

/**
 * Renames a key, sets its status (this is how a key is disabled and enabled again), its scopes
 * or its expiry; the change applies from the next request.
 * @param rules the limits of the service (the name's length); default `DEFAULT_RULE_CONTEXT`
 * @param options `clock` (default the system's), `granter`: the scopes of the caller (new `scopes`
 *   may hold none it lacks; default every scope), `audit`: who asks, for the audit event
 * @throws InvalidInputError for a blank or too long name, an unknown status, empty or unknown
 *   scopes, or an `expiresAt` that is not an instant after now; InsufficientScopeError when
 *   `scopes` holds a scope `granter` lacks; NotFoundError for an unknown id
 */
export async function updateApiKey(
  store: Store,
  id: string,
  patch: ApiKeyPatch,
  recorder?: LastUsedRecorder,
  rules: RuleContext = DEFAULT_RULE_CONTEXT,
  options: { clock?: Clock; granter?: Granter; audit?: AuditContext } = {},
): Promise<ApiKey> {
  const now = (options.clock ?? { now: () => Date.now() }).now();
  const checks = new Checks(rules).rule('/name', 'name', patch.name).oneOf('/status', patch.status, API_KEY_STATUSES);
  checkScopesAndExpiry(checks, patch, now).throwIfAny();
  if (patch.scopes !== undefined) assertMayGrant(options.granter ?? ALL_SCOPES, patch.scopes);
  if (!isUuid(id)) throw new NotFoundError('No API key has this id.');
  const key = await store.apiKeyUpdate({
    id,
    name: patch.name,
    status: patch.status,
    ...(patch.scopes === undefined ? {} : { scopes: canonicalScopes(patch.scopes) }),
    ...(patch.expiresAt === undefined ? {} : { expiresAt: expiryOf(patch.expiresAt) ?? null }),
    audit: auditRecord(options.audit, 'apiKey.update', now),
  });
  if (key === null) throw new NotFoundError('No API key has this id.');
  return withPendingUse(key, recorder);
}

/**
 * Deletes a key; requests carrying its token are refused from the next one on.
 * @throws NotFoundError for an unknown id
 */
export async function deleteApiKey(store: Store, id: string, audit?: AuditContext): Promise<void> {
  if (!isUuid(id) || !(await store.apiKeyDelete({ id, audit: auditRecord(audit, 'apiKey.delete', Date.now()) }))) throw new NotFoundError('No API key has this id.');
}

/**
 * Makes sure an `Enabled` key named `bootstrap` with this token, every scope and no expiry exists
 * (`PUNCTUAL_BOOTSTRAP_TOKEN`): creates it, or enables, renames and re-scopes the key that already
 * has the token.
 * @throws InvalidInputError when the token is shorter than 32 characters (the token is never
 *   part of the message)
 */
export async function ensureBootstrapKey(store: Store, clock: Clock, token: string): Promise<ApiKey> {
  if (token.length < BOOTSTRAP_TOKEN_MIN_LENGTH) {
    throw InvalidInputError.field('/token', `must be at least ${BOOTSTRAP_TOKEN_MIN_LENGTH} characters`);
  }
  return store.apiKeyEnsure({
    id: newId(),
    name: BOOTSTRAP_KEY_NAME,
    status: 'Enabled',
    digest: digestToken(token),
    scopes: ALL_SCOPES,
    expiresAt: null,
    now: clock.now(),
  });
}

/** The `detail` of a 401 for a token no key has: the same whatever the token, so it tells nothing. */
export const UNKNOWN_TOKEN_DETAIL = 'The API key is not valid.';

/**
 * The key a bearer token belongs to, looked up by its SHA-256 digest on every call (no cache, so
 * disabling, deleting, expiring or rotating a key applies to the next request). The token may be
 * the key's, or the one its last rotation replaced while its grace period lasts. Looking up by
 * digest means no comparison of the secret itself happens in the process: the database compares
 * digests, whose timing reveals nothing about the token.
 * @param now epoch ms (UTC) the expiry and the grace period are reckoned at
 * @throws DomainError `unauthenticated` when no key has this token ({@link UNKNOWN_TOKEN_DETAIL}),
 *   when the key expired (at or after `expiresAt`; the detail says so), or when the token was
 *   replaced by a rotation whose grace period is over; `forbidden` when the key is `Disabled`
 */
export async function authenticate(store: Store, token: string, now: number): Promise<ApiKey> {
  const match = await store.apiKeyFindByDigest({ digest: digestToken(token) });
  if (match === null) throw new DomainError('unauthenticated', UNKNOWN_TOKEN_DETAIL);
  const { key } = match;
  if (match.token === 'previous' && (key.previousTokenExpiresAt === null || now >= key.previousTokenExpiresAt)) {
    throw new DomainError('unauthenticated', 'This token of the API key was replaced by a rotation and its grace period is over.');
  }
  if (key.expiresAt !== null && now >= key.expiresAt) {
    throw new DomainError('unauthenticated', `The API key expired at ${toIso(key.expiresAt)}.`);
  }
  if (key.status !== 'Enabled') throw new DomainError('forbidden', 'The API key is disabled.');
  return key;
}

function withPendingUse(key: ApiKey, recorder: LastUsedRecorder | undefined): ApiKey {
  const pending = recorder?.pendingFor(key.id);
  if (pending === undefined || (key.lastUsed !== null && key.lastUsed >= pending)) return key;
  return { ...key, lastUsed: pending };
}
