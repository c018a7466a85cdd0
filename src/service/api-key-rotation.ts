/**
 * Rotation of an API key's token (docs/keys-and-audit.md, "Rotation"): a new token for the same
 * key, the old one accepted for a grace period so that deployments roll over without a gap.
 */
import type { Clock } from '../domain/clock.js';
import { NotFoundError } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import type { ApiKey } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { assertMayGrant, type Granter } from './api-keys.js';
import { Checks } from './rules.js';
import { digestToken, generateToken } from './tokens.js';
import { auditRecord, type AuditContext } from '../domain/audit.js';

/** Longest grace period of a rotation: 7 days, in seconds. */
export const ROTATION_GRACE_MAX_SECONDS = 604_800;

/** Grace period of a rotation that gives none: 1 hour, in seconds. */
export const ROTATION_GRACE_DEFAULT_SECONDS = 3_600;

/**
 * Gives the key a new random token; the token it had stays valid for `gracePeriodSeconds` (0 to
 * 604,800; default 3,600) from now, then is refused (401). A token replaced by an earlier
 * rotation is forgotten at once. Id, name, scopes, status, expiry and `lastUsed` stay.
 * @param granter the caller's scopes: it must hold every scope of the key, since it receives a
 *   token that carries them (a key never grants more than it holds)
 * @returns the key and its new token (not stored, only its SHA-256 digest; shown only this once)
 * @throws InvalidInputError for a grace period that is not a whole number of seconds from 0 to
 *   604,800; NotFoundError for an unknown id; InsufficientScopeError when `granter` lacks a scope of the key
 */
export async function rotateApiKey(
  store: Store,
  clock: Clock,
  id: string,
  input: { gracePeriodSeconds?: number },
  granter: Granter,
  audit?: AuditContext,
): Promise<{ apiKey: ApiKey; token: string }> {
  new Checks().integer('/gracePeriodSeconds', input.gracePeriodSeconds, 0, ROTATION_GRACE_MAX_SECONDS).throwIfAny();
  const key = isUuid(id) ? await store.apiKeyGet({ id }) : null;
  if (key === null) throw new NotFoundError('No API key has this id.');
  assertMayGrant(granter, key.scopes);
  const token = generateToken();
  const graceMs = (input.gracePeriodSeconds ?? ROTATION_GRACE_DEFAULT_SECONDS) * 1000;
  const now = clock.now();
  const apiKey = await store.apiKeyRotate({
    id,
    digest: digestToken(token),
    previousExpiresAt: now + graceMs,
    audit: auditRecord(audit, 'apiKey.rotate', now),
  });
  if (apiKey === null) throw new NotFoundError('No API key has this id.');
  return { apiKey, token };
}
