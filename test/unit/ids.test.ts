import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { isUuid, newId } from '../../src/domain/ids.js';

/** Resource ids: UUID v7 (RFC 9562 §5.7), monotonic within the process (§6.2 method 1). */
describe('newId', () => {
  it('makes valid, unique version-7 UUIDs carrying the current millisecond', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5_000 }, newId);
    const after = Date.now();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(validate(id) && isUuid(id)).toBe(true);
      expect(version(id)).toBe(7);
      expect('89ab').toContain(id[19]); // RFC 9562 variant 10xx
      const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after + 1); // a wrapped counter may borrow a millisecond
    }
  });

  it('orders ids made one after another, also within one millisecond (1,000 pool refills)', () => {
    const ids = Array.from({ length: 256_000 }, newId);
    for (let i = 1; i < ids.length; i++) {
      if (!(ids[i - 1]! < ids[i]!)) throw new Error(`ids ${i - 1} and ${i} out of order: ${ids[i - 1]} ≥ ${ids[i]}`);
    }
  });
});
