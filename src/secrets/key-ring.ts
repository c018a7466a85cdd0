/**
 * Encryption at rest of job secrets (docs/security.md, "Job secrets"): AES-256-GCM (NIST SP
 * 800-38D) with node:crypto, one or more 32-byte keys, the newest sealing and every one opening.
 *
 * A sealed value is one line of ASCII:
 *
 *     v1.<keyId>.<nonce>.<ciphertext and tag>
 *
 * - `v1`: the format;
 * - `keyId`: 8 lowercase hex characters, the first of SHA-256("punctual-key-id" ‖ key): names the
 *   key without revealing it ({@link keyIdOf});
 * - `nonce`: 12 random bytes (96 bits), new for every value, base64url without padding;
 * - the ciphertext of the UTF-8 plaintext followed by the 16-byte GCM tag, base64url without padding.
 *
 * The associated data is `["punctual-secret","v1",keyId,jobId,field]` as JSON, so a value copied to
 * another job or another field, or given another key id, does not verify.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { SecretKeyMissingError, SecretTamperedError } from './errors.js';

/** Bytes of a key (AES-256). */
export const KEY_BYTES = 32;
/** Bytes of a nonce (GCM's recommended 96 bits). */
export const NONCE_BYTES = 12;
/** Bytes of the GCM authentication tag. */
const TAG_BYTES = 16;
/** The format's version, the first part of every sealed value. */
const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const B64URL = /^[A-Za-z0-9_-]*$/;

/** Where a secret belongs: its job's id and its field's name. Both are bound to the sealed value. */
export interface SecretPlace {
  jobId: string;
  field: string;
}

/**
 * The id of a key: the first 8 hex characters of SHA-256 over the bytes of "punctual-key-id"
 * followed by the key. Stable, short, and no use to recover the key.
 * @throws Error when `key` is not 32 bytes
 */
export function keyIdOf(key: Uint8Array): string {
  if (key.length !== KEY_BYTES) throw new Error(`an encryption key must be ${KEY_BYTES} bytes`);
  return createHash('sha256').update('punctual-key-id').update(key).digest('hex').slice(0, 8);
}

/** A new random key (32 bytes from `crypto.randomBytes`). */
export function generateKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/**
 * Reads keys written as in `PUNCTUAL_ENCRYPTION_KEYS` or a key file: base64 (standard or
 * base64url, padding optional) of 32 bytes each, separated by spaces or line breaks, newest first.
 * @returns the keys, newest first; empty when `text` holds only white space
 * @throws Error naming the position of a malformed or repeated key (`key #2 …`), never its value
 */
export function parseKeys(text: string): Buffer[] {
  const words = text.split(/\s+/).filter(Boolean);
  const keys = words.map((word, i) => {
    const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(word) ? Buffer.from(word, 'base64') : null;
    if (bytes === null || bytes.length !== KEY_BYTES) {
      throw new Error(`key #${i + 1} must be base64 of ${KEY_BYTES} bytes (as printed by \`openssl rand -base64 32\`)`);
    }
    return bytes;
  });
  const ids = keys.map(keyIdOf);
  ids.forEach((id, i) => {
    const first = ids.indexOf(id);
    if (first !== i) throw new Error(`key #${i + 1} is the same as key #${first + 1}`);
  });
  return keys;
}

/**
 * One or more keys, newest first: the newest seals, every one opens. Holds its keys in a private
 * field: `JSON.stringify`, `util.inspect` and the logger see only the key ids.
 */
export class KeyRing {
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** The keys' ids, newest first. */
  readonly keyIds: readonly string[];

  /**
   * @param keys 32-byte keys, newest first (copied)
   * @throws Error when there is none, one is not 32 bytes, or two are the same
   */
  constructor(keys: readonly Uint8Array[]) {
    if (keys.length === 0) throw new Error('a key ring needs at least one key');
    const map = new Map<string, Buffer>();
    for (const key of keys) {
      const id = keyIdOf(key);
      if (map.has(id)) throw new Error(`key ${id} is in the ring twice`);
      map.set(id, Buffer.from(key));
    }
    this.#keys = map;
    this.keyIds = [...map.keys()];
  }

  /** A ring of one random key that lives as long as the process (tests, an in-memory store). */
  static ephemeral(): KeyRing {
    return new KeyRing([generateKey()]);
  }

  /** The id of the newest key, the one that seals. */
  get currentKeyId(): string {
    return this.keyIds[0]!;
  }

  /**
   * Seals `plaintext` for `place` with the newest key and a fresh random nonce.
   * @returns `v1.<keyId>.<nonce>.<ciphertext+tag>` (see the module's description); never contains the plaintext
   */
  seal(plaintext: string, place: SecretPlace): string {
    const keyId = this.currentKeyId;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#keys.get(keyId)!, nonce);
    cipher.setAAD(associatedData(keyId, place));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, keyId, nonce.toString('base64url'), body.toString('base64url')].join('.');
  }

  /**
   * Opens a value sealed by {@link seal} for the same `place`, with whichever key of the ring sealed it.
   * @returns the plaintext
   * @throws SecretKeyMissingError when the key named in the value is not in the ring
   * @throws SecretTamperedError when the value is malformed, was changed, or belongs to another job or field
   */
  open(sealed: string, place: SecretPlace): string {
    const parts = parse(sealed);
    const key = this.#keys.get(parts.keyId);
    if (key === undefined) throw new SecretKeyMissingError(parts.keyId);
    try {
      const decipher = createDecipheriv(ALGORITHM, key, parts.nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(associatedData(parts.keyId, place));
      decipher.setAuthTag(parts.body.subarray(parts.body.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(parts.body.subarray(0, parts.body.length - TAG_BYTES)), decipher.final()]);
      return plain.toString('utf8');
    } catch {
      throw new SecretTamperedError();
    }
  }

  /**
   * `sealed` as sealed by the newest key: the same text when it already is, else opened and sealed
   * again (new nonce). For re-encrypting stored secrets after a new key was added.
   * @throws as {@link open}
   */
  resealed(sealed: string, place: SecretPlace): string {
    const plaintext = this.open(sealed, place);
    return parse(sealed).keyId === this.currentKeyId ? sealed : this.seal(plaintext, place);
  }

  /** The id of the key named in a sealed value, or null when `sealed` is not one. Checks nothing else. */
  static keyIdIn(sealed: string): string | null {
    try {
      return parse(sealed).keyId;
    } catch {
      return null;
    }
  }

  toJSON(): { keyIds: readonly string[] } {
    return { keyIds: this.keyIds };
  }

  [inspect.custom](): string {
    return `KeyRing(${this.keyIds.join(', ')})`;
  }
}

/** The GCM associated data of a value: the format, the key id and the place, as a JSON array (unambiguous). */
function associatedData(keyId: string, place: SecretPlace): Buffer {
  return Buffer.from(JSON.stringify(['punctual-secret', VERSION, keyId, place.jobId, place.field]), 'utf8');
}

/**
 * Splits a sealed value into its parts.
 * @throws SecretTamperedError when it is not `v1.<8 hex>.<16 base64url>.<base64url of ≥ 16 bytes>`
 */
function parse(sealed: string): { keyId: string; nonce: Buffer; body: Buffer } {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION || !/^[0-9a-f]{8}$/.test(parts[1]!)) throw new SecretTamperedError();
  const [, keyId, nonceText, bodyText] = parts as [string, string, string, string];
  if (!B64URL.test(nonceText) || !B64URL.test(bodyText)) throw new SecretTamperedError();
  const nonce = Buffer.from(nonceText, 'base64url');
  const body = Buffer.from(bodyText, 'base64url');
  // Re-encoding must give the same text: one sealed value has exactly one spelling.
  if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES || body.toString('base64url') !== bodyText) {
    throw new SecretTamperedError();
  }
  return { keyId, nonce, body };
}
