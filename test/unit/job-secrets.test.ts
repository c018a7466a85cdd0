/**
 * The secrets of a job (src/secrets/job-secrets.ts): sealed one value at a time under its field,
 * merged by patches, opened for a call, re-sealed by a rotation.
 */
import { describe, expect, it } from 'vitest';
import { SecretKeyMissingError, SecretTamperedError } from '../../src/secrets/errors.js';
import {
  carriesSecrets,
  hasSigningSecret,
  openJobSecrets,
  resealJobSecrets,
  sealJobSecrets,
  secretHeaderNames,
} from '../../src/secrets/job-secrets.js';
import { generateKey, KeyRing } from '../../src/secrets/key-ring.js';

const JOB = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const OTHER = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
const oauth = { type: 'oauth2' as const, tokenUrl: 'https://auth.example/token', clientId: 'cid', clientSecret: 'client-secret-1' };

describe('job secrets', () => {
  it('seals each value apart, shows names and public parts only, and opens them for a call', () => {
    const ring = KeyRing.ephemeral();
    const stored = sealJobSecrets(ring, JOB, null, {
      secretHeaders: { 'X-Api-Key': 'key-value-1', 'x-other': 'other-value' },
      auth: oauth,
      signingSecret: 'whsec_' + Buffer.alloc(32, 7).toString('base64'),
    });
    expect(stored.auth).toEqual({ type: 'oauth2', tokenUrl: 'https://auth.example/token', clientId: 'cid', scope: null, audience: null });
    expect(Object.keys(stored.secrets!).sort()).toEqual(['auth', 'header:X-Api-Key', 'header:x-other', 'signingSecret']);
    const text = JSON.stringify(stored);
    for (const plain of ['key-value-1', 'other-value', 'client-secret-1', Buffer.alloc(32, 7).toString('base64')]) expect(text).not.toContain(plain);
    expect(secretHeaderNames(stored.secrets)).toEqual(['X-Api-Key', 'x-other']);
    expect(hasSigningSecret(stored.secrets)).toBe(true);

    const opened = openJobSecrets(ring, JOB, stored.auth, stored.secrets);
    expect(opened.headers).toEqual({ 'X-Api-Key': 'key-value-1', 'x-other': 'other-value' });
    expect(opened.auth).toEqual({ ...stored.auth, clientSecret: 'client-secret-1' });
    expect(opened.signingSecret).toBe('whsec_' + Buffer.alloc(32, 7).toString('base64'));
  });

  it('basic and bearer keep their public part and open their secret', () => {
    const ring = KeyRing.ephemeral();
    const basic = sealJobSecrets(ring, JOB, null, { auth: { type: 'basic', username: 'u', password: 'p@ss' } });
    expect(basic.auth).toEqual({ type: 'basic', username: 'u' });
    expect(openJobSecrets(ring, JOB, basic.auth, basic.secrets).auth).toEqual({ type: 'basic', username: 'u', password: 'p@ss' });
    const bearer = sealJobSecrets(ring, JOB, null, { auth: { type: 'bearer', token: 'tok' } });
    expect(bearer.auth).toEqual({ type: 'bearer' });
    expect(openJobSecrets(ring, JOB, bearer.auth, bearer.secrets).auth).toEqual({ type: 'bearer', token: 'tok' });
  });

  it('a patch replaces all secret headers at once, null removes, absent keeps; nothing left is null', () => {
    const ring = KeyRing.ephemeral();
    const a = sealJobSecrets(ring, JOB, null, { secretHeaders: { A: '1', B: '2' }, auth: { type: 'bearer', token: 't' } });
    const b = sealJobSecrets(ring, JOB, a, { secretHeaders: { C: '3' } });
    expect(secretHeaderNames(b.secrets)).toEqual(['C']);
    expect(b.secrets!.auth).toBe(a.secrets!.auth); // left as sealed
    expect(b.auth).toEqual({ type: 'bearer' });
    const c = sealJobSecrets(ring, JOB, b, { auth: null });
    expect(c.auth).toBeNull();
    expect(Object.keys(c.secrets!)).toEqual(['header:C']);
    expect(sealJobSecrets(ring, JOB, c, { secretHeaders: null })).toEqual({ auth: null, secrets: null });
    expect(sealJobSecrets(ring, JOB, c, {})).toEqual(c);
  });

  it('a value copied to another job or field does not open', () => {
    const ring = KeyRing.ephemeral();
    const s = sealJobSecrets(ring, JOB, null, { secretHeaders: { A: 'a-value' }, auth: { type: 'bearer', token: 't' } });
    expect(() => openJobSecrets(ring, OTHER, s.auth, s.secrets)).toThrow(SecretTamperedError);
    const moved = { 'header:B': s.secrets!['header:A']! };
    expect(() => openJobSecrets(ring, JOB, null, moved)).toThrow(SecretTamperedError);
  });

  it('a missing key fails with its id; a rotation re-seals with the newest key, after which the old key can go', () => {
    const oldKey = generateKey();
    const newKey = generateKey();
    const oldRing = new KeyRing([oldKey]);
    const s = sealJobSecrets(oldRing, JOB, null, { secretHeaders: { A: 'a-value' } });
    const newOnly = new KeyRing([newKey]);
    expect(() => openJobSecrets(newOnly, JOB, null, s.secrets)).toThrow(SecretKeyMissingError);
    expect(() => openJobSecrets(newOnly, JOB, null, s.secrets)).toThrow(`secret cannot be decrypted (key ${oldRing.currentKeyId} missing)`);

    const both = new KeyRing([newKey, oldKey]);
    const rekeyed = resealJobSecrets(both, JOB, s.secrets!);
    expect(rekeyed.changed).toBe(true);
    expect(openJobSecrets(newOnly, JOB, null, rekeyed.secrets).headers).toEqual({ A: 'a-value' });
    expect(resealJobSecrets(both, JOB, rekeyed.secrets)).toEqual({ secrets: rekeyed.secrets, changed: false });
  });

  it('carriesSecrets: only values count, not removals', () => {
    expect(carriesSecrets({})).toBe(false);
    expect(carriesSecrets({ secretHeaders: null, auth: null, signingSecret: null })).toBe(false);
    expect(carriesSecrets({ secretHeaders: {} })).toBe(false);
    expect(carriesSecrets({ secretHeaders: { A: '1' } })).toBe(true);
    expect(carriesSecrets({ auth: { type: 'bearer', token: 't' } })).toBe(true);
    expect(carriesSecrets({ signingSecret: 'whsec_x' })).toBe(true);
  });
});
