import { createHash, randomBytes } from 'node:crypto';

/** Prefix that makes a Punctual token recognisable (in logs that should not have it, in secret scanners). */
export const TOKEN_PREFIX = 'pk_';

/**
 * A new API token: `pk_` followed by the base64url (RFC 4648 §5, no padding) form of 32 random
 * bytes from `crypto.randomBytes`, i.e. 256 random bits in 46 characters (a token must
 * carry at least 192).
 */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The SHA-256 digest of a token, lowercase hex (64 characters). Only this digest is stored, so a
 * copy of the database holds no usable key; keys are found by it (`Store.apiKeyFindByDigest`).
 */
export function digestToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
