/**
 * Why a sealed secret could not be opened (docs/security.md, "Job secrets"). The messages are
 * fixed texts: they never hold the plaintext, the sealed text or key material, only a key's id.
 */

/** What went wrong: the key that sealed the value is not in the ring, or the value does not verify. */
export type SecretFailureReason = 'key_missing' | 'tampered';

/** Every failure of `KeyRing.open` (and `resealed`). `reason` says which; the subclasses give the detail. */
export class SecretDecryptError extends Error {
  constructor(
    readonly reason: SecretFailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'SecretDecryptError';
  }
}

/**
 * The value was sealed by a key that is not in the ring (removed too early, or another
 * deployment's key). Message: `secret cannot be decrypted (key <keyId> missing)`.
 */
export class SecretKeyMissingError extends SecretDecryptError {
  /**
   * @param keyId the id (8 hex characters) written in the sealed value
   */
  constructor(readonly keyId: string) {
    super('key_missing', `secret cannot be decrypted (key ${keyId} missing)`);
    this.name = 'SecretKeyMissingError';
  }
}

/**
 * The value does not verify under its key with the given job id and field: it was changed, is not
 * a sealed value at all, or was copied from another job or field.
 * Message: `secret cannot be decrypted (tampered or moved)`.
 */
export class SecretTamperedError extends SecretDecryptError {
  constructor() {
    super('tampered', 'secret cannot be decrypted (tampered or moved)');
    this.name = 'SecretTamperedError';
  }
}
