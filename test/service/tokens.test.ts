import { describe, expect, it } from 'vitest';
import { digestToken, generateToken } from '../../src/service/tokens.js';

describe('tokens', () => {
  it('are pk_ + 43 base64url characters (256 random bits), all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const t = generateToken();
      expect(t).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(t.slice(3), 'base64url')).toHaveLength(32);
      seen.add(t);
    }
    expect(seen.size).toBe(1000);
  });

  it('are digested with SHA-256 as lowercase hex', () => {
    // FIPS 180-2 test vector.
    expect(digestToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const t = generateToken();
    expect(digestToken(t)).toMatch(/^[0-9a-f]{64}$/);
    expect(digestToken(t)).not.toBe(digestToken(generateToken()));
  });
});
