import { describe, expect, it } from 'vitest';
import { parseIsoInstant, toIso } from '../../src/domain/time.js';

describe('ISO 8601 instants', () => {
  it('accepts Z and offsets and keeps the instant', () => {
    expect(parseIsoInstant('2026-11-21T10:00:00Z')).toBe(Date.UTC(2026, 10, 21, 10));
    expect(parseIsoInstant('2026-11-21T11:00:00+01:00')).toBe(Date.UTC(2026, 10, 21, 10));
    expect(parseIsoInstant('2026-11-21T05:30:00-0430')).toBe(Date.UTC(2026, 10, 21, 10));
    expect(parseIsoInstant('2026-11-21T10:00:00.123456Z')).toBe(Date.UTC(2026, 10, 21, 10, 0, 0, 123));
    expect(toIso(Date.UTC(2026, 10, 21, 10))).toBe('2026-11-21T10:00:00.000Z');
  });

  it.each([
    '2026-11-21',
    '2026-11-21T10:00:00',
    '2026-02-30T10:00:00Z',
    '2026-13-01T10:00:00Z',
    '2026-11-21T24:00:00Z',
    'tomorrow',
    '',
    ' 2026-11-21T10:00:00Z',
    '2026-11-21T10:00:00+25:00',
  ])('refuses %j', (text) => {
    expect(parseIsoInstant(text)).toBeNull();
  });
});
