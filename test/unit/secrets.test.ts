/**
 * Sealing of job secrets (src/secrets/key-ring.ts, docs/security.md "Job secrets"): AES-256-GCM
 * bound to the job and field, the key's id in the sealed text, rotation by a ring of keys.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SecretDecryptError, SecretKeyMissingError, SecretTamperedError } from '../../src/secrets/errors.js';
import { generateKey, KeyRing, keyIdOf, parseKeys } from '../../src/secrets/key-ring.js';

const place = { jobId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', field: 'authorization' };
const PLAIN = 'Bearer s3cr3t-value-for-the-receiver';

/** What `fn` throws (fails the test when it returns). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

function expectTampered(fn: () => unknown): void {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(SecretTamperedError);
  expect(err).toBeInstanceOf(SecretDecryptError);
  expect((err as SecretDecryptError).reason).toBe('tampered');
  expect(err.message).toBe('secret cannot be decrypted (tampered or moved)');
}

describe('KeyRing', () => {
  it('opens what it sealed, and the sealed text is v1.<keyId>.<nonce>.<ciphertext+tag>', () => {
    const ring = KeyRing.ephemeral();
    const sealed = ring.seal(PLAIN, place);
    expect(ring.open(sealed, place)).toBe(PLAIN);
    const [version, keyId, nonce, body] = sealed.split('.');
    expect(version).toBe('v1');
    expect(keyId).toBe(ring.currentKeyId);
    expect(Buffer.from(nonce!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(body!, 'base64url')).toHaveLength(Buffer.byteLength(PLAIN) + 16);
    // Empty and non-ASCII plaintexts round-trip too.
    for (const text of ['', 'pässwörd ✓ 🔑']) expect(ring.open(ring.seal(text, place), place)).toBe(text);
  });

  it('uses a new nonce for every value, and the sealed text never contains the plaintext', () => {
    const ring = KeyRing.ephemeral();
    const a = ring.seal(PLAIN, place);
    const b = ring.seal(PLAIN, place);
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
    for (const s of [a, b]) {
      expect(s).not.toContain(PLAIN);
      expect(s).not.toContain(Buffer.from(PLAIN).toString('base64url').slice(0, 12));
      expect(s).not.toContain(Buffer.from(PLAIN).toString('hex').slice(0, 12));
    }
  });

  it('derives the key id from SHA-256("punctual-key-id" + key), 8 hex characters, never the key', () => {
    const key = generateKey();
    const expected = createHash('sha256').update(Buffer.concat([Buffer.from('punctual-key-id'), key])).digest('hex').slice(0, 8);
    expect(keyIdOf(key)).toBe(expected);
    expect(new KeyRing([key]).currentKeyId).toBe(expected);
    expect(key.toString('hex')).not.toContain(expected);
  });

  it('does not open a value for another job or another field', () => {
    const ring = KeyRing.ephemeral();
    const sealed = ring.seal(PLAIN, place);
    expectTampered(() => ring.open(sealed, { ...place, jobId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c' }));
    expectTampered(() => ring.open(sealed, { ...place, field: 'token' }));
    // The parts are bound unambiguously: moving a character from the job id to the field fails too.
    const split = ring.seal(PLAIN, { jobId: 'ab', field: 'c' });
    expectTampered(() => ring.open(split, { jobId: 'a', field: 'bc' }));
  });

  it('detects tampering with any part', () => {
    const ring = KeyRing.ephemeral();
    const sealed = ring.seal(PLAIN, place);
    const [v, id, nonce, body] = sealed.split('.') as [string, string, string, string];
    const flip = (text: string, at: number) => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[at] = bytes[at]! ^ 0x01;
      return bytes.toString('base64url');
    };
    expectTampered(() => ring.open([v, id, flip(nonce, 0), body].join('.'), place));
    expectTampered(() => ring.open([v, id, nonce, flip(body, 0)].join('.'), place)); // ciphertext
    expectTampered(() => ring.open([v, id, nonce, flip(body, Buffer.from(body, 'base64url').length - 1)].join('.'), place)); // tag
    expectTampered(() => ring.open([v, id, nonce, body.slice(0, -4)].join('.'), place)); // truncated
    expectTampered(() => ring.open(['v2', id, nonce, body].join('.'), place));
    for (const junk of ['', PLAIN, 'v1', 'v1...', `v1.${id}.${nonce}`, `${sealed}.x`, `v1.${id}.!!!.${body}`, `v1.${id.toUpperCase()}.${nonce}.${body}`]) {
      expectTampered(() => ring.open(junk, place));
    }
  });

  it('a value whose key id was changed to another key of the ring does not open', () => {
    const older = generateKey();
    const ring = new KeyRing([generateKey(), older]);
    const sealed = ring.seal(PLAIN, place);
    const moved = sealed.replace(ring.keyIds[0]!, ring.keyIds[1]!);
    expectTampered(() => ring.open(moved, place));
  });

  it('a value sealed by a key not in the ring gives the exact missing-key message with its id', () => {
    const oldKey = generateKey();
    const sealed = new KeyRing([oldKey]).seal(PLAIN, place);
    const ring = KeyRing.ephemeral();
    const err = thrown(() => ring.open(sealed, place));
    expect(err).toBeInstanceOf(SecretKeyMissingError);
    expect(err.message).toBe(`secret cannot be decrypted (key ${keyIdOf(oldKey)} missing)`);
    expect((err as SecretKeyMissingError).reason).toBe('key_missing');
    expect((err as SecretKeyMissingError).keyId).toBe(keyIdOf(oldKey));
    expect(() => ring.resealed(sealed, place)).toThrow(SecretKeyMissingError);
  });

  it('rotates: the new key first seals, old values still open, resealed moves them to the new key', () => {
    const oldKey = generateKey();
    const newKey = generateKey();
    const before = new KeyRing([oldKey]);
    const old = before.seal(PLAIN, place);
    expect(before.resealed(old, place)).toBe(old); // already sealed by the newest key

    const rotated = new KeyRing([newKey, oldKey]);
    expect(rotated.keyIds).toEqual([keyIdOf(newKey), keyIdOf(oldKey)]);
    expect(rotated.open(old, place)).toBe(PLAIN);
    const fresh = rotated.seal(PLAIN, place);
    expect(KeyRing.keyIdIn(fresh)).toBe(keyIdOf(newKey));

    const moved = rotated.resealed(old, place);
    expect(KeyRing.keyIdIn(moved)).toBe(keyIdOf(newKey));
    expect(rotated.resealed(moved, place)).toBe(moved);
    // Once every value is resealed, the old key can go.
    const after = new KeyRing([newKey]);
    expect(after.open(moved, place)).toBe(PLAIN);
    expect(() => after.open(old, place)).toThrow(`secret cannot be decrypted (key ${keyIdOf(oldKey)} missing)`);
    expect(() => rotated.resealed(moved, { ...place, field: 'other' })).toThrow(SecretTamperedError);
  });

  it('opens a value made by an independent AES-256-GCM encryption with the documented associated data', () => {
    const key = generateKey();
    const keyId = keyIdOf(key);
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(JSON.stringify(['punctual-secret', 'v1', keyId, place.jobId, place.field])));
    const body = Buffer.concat([cipher.update(PLAIN, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const sealed = `v1.${keyId}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
    expect(new KeyRing([key]).open(sealed, place)).toBe(PLAIN);
  });

  it('never shows its keys: JSON and inspect give the ids only; errors hold no plaintext or key', () => {
    const key = generateKey();
    const ring = new KeyRing([key]);
    for (const text of [JSON.stringify(ring), inspect(ring, { showHidden: true, depth: 10 }), JSON.stringify({ ...ring })]) {
      expect(text).toContain(ring.currentKeyId);
      expect(text).not.toContain(key.toString('base64'));
      expect(text).not.toContain(key.toString('hex').slice(0, 16));
    }
    const sealed = ring.seal(PLAIN, place);
    const err = thrown(() => ring.open(sealed, { ...place, field: 'x' }));
    const shown = `${err.message} ${err.stack} ${JSON.stringify(err)} ${inspect(err)}`;
    expect(shown).not.toContain(PLAIN);
    expect(shown).not.toContain(key.toString('base64'));
    expect(shown).not.toContain(sealed.split('.')[3]!.slice(0, 12));
  });

  it('refuses a ring without keys, with a key of the wrong size, or with a key twice', () => {
    const key = generateKey();
    expect(() => new KeyRing([])).toThrow('at least one key');
    expect(() => new KeyRing([randomBytes(16)])).toThrow('32 bytes');
    expect(() => new KeyRing([key, Buffer.from(key)])).toThrow(`key ${keyIdOf(key)} is in the ring twice`);
  });
});

describe('parseKeys', () => {
  it('reads base64 or base64url keys separated by spaces or line breaks, newest first', () => {
    const [a, b, c] = [generateKey(), generateKey(), generateKey()];
    const keys = parseKeys(` ${a.toString('base64')}  ${b.toString('base64url')}\n${c.toString('base64')}\n`);
    expect(keys.map((k) => k.toString('hex'))).toEqual([a, b, c].map((k) => k.toString('hex')));
    expect(parseKeys(' \n ')).toEqual([]);
  });

  it('names the position of a bad key and never its value', () => {
    const good = generateKey().toString('base64');
    const short = randomBytes(16).toString('base64');
    for (const [text, message] of [
      [`${good} ${short}`, 'key #2 must be base64 of 32 bytes'],
      [`not*base64*at*all`, 'key #1 must be base64 of 32 bytes'],
      [`${good} ${good}`, 'key #2 is the same as key #1'],
    ] as const) {
      const err = thrown(() => parseKeys(text));
      expect(err.message).toContain(message);
      expect(err.message).not.toContain(good);
      expect(err.message).not.toContain(short);
    }
  });
});
