/**
 * Properties of nextOccurrences / nextOccurrence, and their speed (the dispatcher calls
 * nextOccurrence on every cron firing).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextOccurrence, nextOccurrences, parseCronExpression } from '../../src/cron/index.js';

const EXPRESSIONS = [
  '* * * * *',
  '*/7 * * * *',
  '30 2 * * *',
  '0,30 1,2,3 * * *',
  '0-59 0-23 * * *',
  '15 */2 * * *',
  '0 0 * * *',
  '45 23 * * SAT',
  '0 12 13 * FRI',
  '0 12 */13 * FRI',
  '0 9 1-7 * MON',
  '0 0 29 2 *',
  '0 0 31 * *',
  '@hourly',
  '@weekly',
  '@yearly',
  '*/20 * * * * *',
  '*/10 30 2 * * *',
  '0 0 * * * *',
];
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Dublin',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/Santiago',
  'America/Havana',
  'Pacific/Apia',
  'Asia/Kolkata',
  'Antarctica/Troll',
];

describe('nextOccurrences', () => {
  it('is strictly increasing, starts after `from`, and each element is an occurrence found again from just before it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EXPRESSIONS),
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(1960, 0, 1), max: Date.UTC(2040, 0, 1) }),
        fc.integer({ min: 1, max: 40 }),
        (expression, zone, from, count) => {
          const cron = parseCronExpression(expression);
          const occ = nextOccurrences(cron, zone, from, count);
          expect(occ).toHaveLength(count);
          let previous = from;
          for (const t of occ) {
            expect(t).toBeGreaterThan(previous);
            expect(nextOccurrence(cron, zone, t - 1)).toBe(t);
            expect(nextOccurrence(cron, zone, previous)).toBe(t);
            previous = t;
          }
        },
      ),
      { numRuns: 300, seed: 20_261_101 },
    );
  });

  it('returns [] for count 0 and is strictly after an occurrence it starts on', () => {
    const cron = parseCronExpression('0 * * * *');
    const on = Date.parse('2026-05-01T10:00:00Z');
    expect(nextOccurrences(cron, 'UTC', on, 0)).toEqual([]);
    expect(nextOccurrences(cron, 'UTC', on, 2)).toEqual([on + 3_600_000, on + 7_200_000]);
    expect(nextOccurrence(cron, 'UTC', on - 0.5)).toBe(on);
  });
});

describe('speed (the dispatcher advances every job with nextOccurrence)', () => {
  function microsPerCall(expression: string, zone: string, calls: number): number {
    const cron = parseCronExpression(expression);
    let t = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 1000; i++) t = nextOccurrence(cron, zone, t)!; // warm up, build the zone's tables
    const start = performance.now();
    for (let i = 0; i < calls; i++) t = nextOccurrence(cron, zone, t)!;
    return ((performance.now() - start) * 1000) / calls;
  }

  it('an every-second job advances in microseconds', () => {
    const utc = microsPerCall('* * * * * *', 'UTC', 50_000);
    const ny = microsPerCall('* * * * * *', 'America/New_York', 50_000);
    const fixed = microsPerCall('0,30 1 * * *', 'America/New_York', 2_000);
    console.info(`nextOccurrence: every second ${utc.toFixed(2)} µs (UTC), ${ny.toFixed(2)} µs (New York); fixed-time daily ${fixed.toFixed(2)} µs`);
    // Typical values are well under 5 µs; the bound leaves room for a loaded CI machine.
    expect(utc).toBeLessThan(50);
    expect(ny).toBeLessThan(50);
    expect(fixed).toBeLessThan(200);
  });
});
