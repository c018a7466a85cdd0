/**
 * The form of a Standard Webhooks signing secret: `whsec_` followed by the base64 of the key, at
 * least 24 bytes (Standard Webhooks specification, "Signature scheme": 24 to 64 bytes; Punctual
 * generates 32). Shared by the configuration, the service (a job's own secret) and the signer.
 */
import { randomBytes } from 'node:crypto';

const MESSAGE = 'must be whsec_ followed by base64 of at least 24 bytes';

/** Why `secret` is not a signing secret (a message without the value), or null when it is one. */
export function signingSecretProblem(secret: string): string | null {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  return m && Buffer.from(m[1]!, 'base64').length >= 24 ? null : MESSAGE;
}

/** A new random signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
