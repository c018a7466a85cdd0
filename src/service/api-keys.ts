/**
 * API key use cases: create (the only place a token is shown), read, rename, enable/disable,
 * delete, authenticate, and the operator's bootstrap key.
 */
import { auditRecord, type AuditContext } from '../domain/audit.js';
import type { Clock } from '../domain/clock.js';
import { API_KEY_STATUSES } from '../domain/enums.js';
import { DomainError, InvalidInputError, NotFoundError } from '../domain/errors.js';
import { isUuid, newId } from '../domain/ids.js';
import type { ApiKey, ApiKeyStatus } from '../domain/types.js';
import type { Store } from '../store/store.js';
import type { LastUsedRecorder } from './last-used.js';
import { Checks, DEFAULT_RULE_CONTEXT, type RuleContext } from './rules.js';
import { digestToken, generateToken } from './tokens.js';

/** Shortest bootstrap token accepted. */
export const BOOTSTRAP_TOKEN_MIN_LENGTH = 32;

/** Name of the key made from `PUNCTUAL_BOOTSTRAP_TOKEN`. */
export const BOOTSTRAP_KEY_NAME = 'bootstrap';

/** Input of {@link createApiKey}. `status` null or absent means `Enabled`. */
export interface ApiKeyCreateInput {
  name: string;
  status?: ApiKeyStatus | null;
}

/** Input of {@link updateApiKey}: absent fields keep their values. */
export interface ApiKeyPatch {
  name?: string;
  status?: ApiKeyStatus;
}

/**
 * Creates a key with a new random token.
 * @param rules the limits of the service (the name's length); default `DEFAULT_RULE_CONTEXT`
 * @returns the key and its token; the token is not stored (only its SHA-256 digest) and cannot
 *   be shown again.
 * @throws InvalidInputError when `name` is blank or too long, or `status` is not a key state
 */
export async function createApiKey(
  store: Store,
  clock: Clock,
  input: ApiKeyCreateInput,
  rules: RuleContext = DEFAULT_RULE_CONTEXT,
  audit?: AuditContext,
): Promise<{ apiKey: ApiKey; token: string }> {
  new Checks(rules)
    .required('/name', input.name)
    .rule('/name', 'name', input.name)
    .oneOf('/status', input.status ?? undefined, API_KEY_STATUSES)
    .throwIfAny();
  const token = generateToken();
  const apiKey = await store.apiKeyCreate({
    id: newId(),
    name: input.name,
    status: input.status ?? 'Enabled',
    digest: digestToken(token),
    now: clock.now(),
    audit: auditRecord(audit, 'apiKey.create', clock.now()),
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
 * Renames a key and/or sets its status (this is how a key is disabled and enabled again; the
 * change applies from the next request).
 * @param rules the limits of the service (the name's length); default `DEFAULT_RULE_CONTEXT`
 * @throws InvalidInputError for a blank or too long name or an unknown status; NotFoundError for an unknown id
 */
export async function updateApiKey(
  store: Store,
  id: string,
  patch: ApiKeyPatch,
  recorder?: LastUsedRecorder,
  rules: RuleContext = DEFAULT_RULE_CONTEXT,
  audit?: AuditContext,
): Promise<ApiKey> {
  new Checks(rules).rule('/name', 'name', patch.name).oneOf('/status', patch.status, API_KEY_STATUSES).throwIfAny();
  if (!isUuid(id)) throw new NotFoundError('No API key has this id.');
  const key = await store.apiKeyUpdate({ id, name: patch.name, status: patch.status, audit: auditRecord(audit, 'apiKey.update', Date.now()) });
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
 * Makes sure an `Enabled` key named `bootstrap` with this token exists (`PUNCTUAL_BOOTSTRAP_TOKEN`):
 * creates it, or enables and renames the key that already has the token.
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
    now: clock.now(),
  });
}

/**
 * The key a bearer token belongs to, looked up by its SHA-256 digest on every call (no cache, so
 * disabling or deleting a key applies to the next request). Looking up by digest means no
 * comparison of the secret itself happens in the process: the database compares digests, whose
 * timing reveals nothing about the token.
 * @throws DomainError `unauthenticated` when no key has this token; `forbidden` when the key is
 *   `Disabled`
 */
export async function authenticate(store: Store, token: string): Promise<ApiKey> {
  const key = await store.apiKeyFindByDigest({ digest: digestToken(token) });
  if (key === null) throw new DomainError('unauthenticated', 'The API key is not valid.');
  if (key.status !== 'Enabled') throw new DomainError('forbidden', 'The API key is disabled.');
  return key;
}

function withPendingUse(key: ApiKey, recorder: LastUsedRecorder | undefined): ApiKey {
  const pending = recorder?.pendingFor(key.id);
  if (pending === undefined || (key.lastUsed !== null && key.lastUsed >= pending)) return key;
  return { ...key, lastUsed: pending };
}
