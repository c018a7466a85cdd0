/**
 * The forms beyond Vixie's five fields (docs/cron.md): calendar words in the day fields (`L`,
 * `LW`, `nW`, `nL`, `n#k`), steps larger than their field, and `@every` intervals, accepted and
 * refused. The random comparison with the reference (reference.test.ts) covers them too; these
 * are the readable cases.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/domain/errors.js';
import { nextOccurrence, nextOccurrences, parseCronExpression } from '../../src/cron/index.js';

const FROM = Date.parse('2026-01-01T00:00:00Z'); // a Thursday

/** The next `n` occurrence dates (YYYY-MM-DD) in UTC. */
function dates(expression: string, n = 6, from = FROM): string[] {
  return nextOccurrences(parseCronExpression(expression), 'UTC', from, n).map((ms) => new Date(ms).toISOString().slice(0, 10));
}

function refusal(expression: string): string {
  try {
    parseCronExpression(expression);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    const e = err as InvalidInputError;
    expect(e.errors).toHaveLength(1);
    expect(e.errors[0]!.path).toBe('/expression');
    return e.errors[0]!.message;
  }
  throw new Error(`'${expression}' was accepted`);
}

describe('calendar words in the day fields', () => {
  it('L: the last day of the month (February 29 in a leap year)', () => {
    expect(dates('0 0 L * *', 4)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
    expect(dates('0 0 l 2 *', 2, Date.parse('2027-06-01T00:00:00Z'))).toEqual(['2028-02-29', '2029-02-28']);
  });

  it('LW: the last weekday of the month', () => {
    // Jan 31 2026 is a Saturday, May 31 a Sunday.
    expect(dates('0 0 LW * *', 5)).toEqual(['2026-01-30', '2026-02-27', '2026-03-31', '2026-04-30', '2026-05-29']);
  });

  it('nW: the weekday nearest day n, never leaving the month (Quartz)', () => {
    // 2026-02-15 is a Sunday (→ Monday 16), 2026-03-15 a Sunday, 2026-08-15 a Saturday (→ Friday 14).
    expect(dates('0 0 15W * *', 8)).toEqual([
      '2026-01-15', '2026-02-16', '2026-03-16', '2026-04-15', '2026-05-15', '2026-06-15', '2026-07-15', '2026-08-14',
    ]);
    // 2026-08-01 is a Saturday: 1W is Monday the 3rd, not Friday July 31.
    expect(dates('0 0 1W 8 *', 1)).toEqual(['2026-08-03']);
    // 2026-05-31 is a Sunday: 31W is Friday the 29th, not Monday June 1.
    expect(dates('0 0 31W 5 *', 1)).toEqual(['2026-05-29']);
    // A month without day n has no nW: 31W in April never, so 31W,1 in April is the 1st only.
    expect(dates('0 0 31W,1 4 *', 2)).toEqual(['2026-04-01', '2027-04-01']);
  });

  it('nL, NAMEL, NAME#L: the last such weekday of the month', () => {
    const lastFridays = ['2026-01-30', '2026-02-27', '2026-03-27', '2026-04-24'];
    for (const f of ['5L', 'FRIL', 'fri#l', '5#L', 'Fri#L']) expect(dates(`0 0 * * ${f}`, 4)).toEqual(lastFridays);
    expect(dates('0 0 * * 0L', 1)).toEqual(dates('0 0 * * 7L', 1));
  });

  it('n#k: the k-th such weekday; none in a month without one', () => {
    expect(dates('0 0 * * MON#1', 3)).toEqual(['2026-01-05', '2026-02-02', '2026-03-02']);
    expect(dates('0 0 * * 1#2', 2)).toEqual(['2026-01-12', '2026-02-09']);
    // Fifth Mondays of 2026: March 30, June 29, August 31, November 30.
    expect(dates('0 0 * * mon#5', 4)).toEqual(['2026-03-30', '2026-06-29', '2026-08-31', '2026-11-30']);
    // A fifth Monday in February needs a leap year starting the month on a Monday: 2044.
    expect(dates('0 0 * 2 MON#5', 1)).toEqual(['2044-02-29']);
  });

  it('calendar words combine in lists with ordinary values', () => {
    expect(dates('0 0 1,L * *', 4)).toEqual(['2026-01-31', '2026-02-01', '2026-02-28', '2026-03-01']);
    expect(dates('0 0 * * MON#1,FRI#L', 4)).toEqual(['2026-01-05', '2026-01-30', '2026-02-02', '2026-02-27']);
    expect(dates('0 0 * * SAT,MON#1', 3)).toEqual(['2026-01-03', '2026-01-05', '2026-01-10']);
  });

  it('keeps the Vixie rule: OR when both day fields are restricted, AND when one starts with *', () => {
    // L or any Monday.
    expect(dates('0 0 L * MON', 6)).toEqual(['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26', '2026-01-31', '2026-02-02']);
    // The 13th or the last Friday.
    expect(dates('0 0 13 * FRIL', 4)).toEqual(['2026-01-13', '2026-01-30', '2026-02-13', '2026-02-27']);
    // Odd days (the field starts with *) that are the first Monday: AND.
    expect(dates('0 0 */2 * MON#1', 3)).toEqual(['2026-01-05', '2026-06-01', '2026-08-03']);
  });

  it('steps larger than their field leave the start alone (Vixie cron)', () => {
    expect(dates('0 0 */100 * *', 3)).toEqual(['2026-02-01', '2026-03-01', '2026-04-01']);
    expect(dates('0 0 5-10/20 * *', 2)).toEqual(['2026-01-05', '2026-02-05']);
    expect(dates('0 0 10/40 * *', 2)).toEqual(['2026-01-10', '2026-02-10']);
    expect(dates('0 0 1 */13 *', 2)).toEqual(['2027-01-01', '2028-01-01']);
    expect(dates('0 0 * * */8', 2)).toEqual(['2026-01-04', '2026-01-11']); // Sundays
    expect(nextOccurrences(parseCronExpression('*/61 */25 * * *'), 'UTC', FROM, 2).map((t) => new Date(t).toISOString())).toEqual([
      '2026-01-02T00:00:00.000Z',
      '2026-01-03T00:00:00.000Z',
    ]);
    expect(dates('0 0 */99999999999999999999 * *', 1)).toEqual(['2026-02-01']);
  });

  it('refuses what has no meaning, naming the fault', () => {
    const cases: [string, RegExp][] = [
      ['0 0 L-2 * *', /day-of-month field 'L-2': 'L' and 'W' cannot be part of a range or take a step/],
      ['0 0 1-L * *', /cannot be part of a range/],
      ['0 0 L/2 * *', /cannot be part of a range/],
      ['0 0 15W-20 * *', /cannot be part of a range/],
      ['0 0 * * 5L-6', /day-of-week field '5L-6': 'L' and 'W' cannot be part of a range/],
      ['0 0 * * MON#1-3', /not a weekday and a week/],
      ['0 0 * * FRI#6', /week 6 must be 1 to 5/],
      ['0 0 * * FRI#0', /week 0 must be 1 to 5/],
      ['0 0 1#2 * *', /'#' .* belongs in the day-of-week field/],
      ['0 0 * * 15W', /'W' .* belongs in the day-of-month field/],
      ['0 0 5L * *', /belongs in the day-of-week field/],
      ['0 0 * * L', /'L' alone is ambiguous in day of week/],
      ['0 0 0W * *', /day 0 is out of range 1-31/],
      ['0 0 32W * *', /day 32 is out of range 1-31/],
      ['0 0 * * 8L', /8 is out of range 0-7/],
      ['0 0 * * MOL', /unknown day name 'MO'/],
      ['0 L * * *', /'L' and 'W' are allowed only in the day-of-month and day-of-week fields/],
      ['0 0 30W 2 *', /never fires/],
      ['0 0 31W 4,6 *', /never fires/],
    ];
    for (const [expression, message] of cases) expect(refusal(expression), expression).toMatch(message);
  });
});

describe('@every <duration>', () => {
  it('reads d, h, m, s in that order, any case, 1 s to 366 d', () => {
    const ms = (e: string): number | null => parseCronExpression(e).everyMs;
    expect(ms('@every 90s')).toBe(90_000);
    expect(ms('@every 15m')).toBe(900_000);
    expect(ms('@every 1h30m')).toBe(5_400_000);
    expect(ms('@every 7d')).toBe(7 * 86_400_000);
    expect(ms('@EVERY 1D2H3M4S')).toBe(86_400_000 + 2 * 3_600_000 + 3 * 60_000 + 4000);
    expect(ms(' @every\t1s ')).toBe(1000);
    expect(ms('@every 366d')).toBe(366 * 86_400_000);
    expect(ms('@every 0h1s')).toBe(1000);
    expect(ms('0 0 * * *')).toBeNull();
    const p = parseCronExpression('@every 1h');
    expect(p.fixedTime).toBe(false);
    expect(p.hasSeconds).toBe(false);
  });

  it('refuses other durations with a message', () => {
    expect(refusal('@every')).toMatch(/'@every' needs a duration/);
    expect(refusal('@every 0s')).toMatch(/from 1s to 366d/);
    expect(refusal('@every 366d1s')).toMatch(/from 1s to 366d/);
    expect(refusal('@every 367d')).toMatch(/from 1s to 366d/);
    for (const bad of ['@every 1m30h', '@every 1.5h', '@every 10', '@every 1w', '@every -1h', '@every 1h 30m', '@every h']) {
      expect(refusal(bad), bad).toMatch(/units d, h, m, s in that order/);
    }
  });

  it('occurrences: anchor + k·d strictly after, k ≥ 0; anchor defaults to afterMs', () => {
    const p = parseCronExpression('@every 1h30m');
    const d = 5_400_000;
    expect(nextOccurrence(p, 'UTC', FROM)).toBe(FROM + d);
    expect(nextOccurrence(p, 'UTC', FROM, FROM)).toBe(FROM + d);
    expect(nextOccurrence(p, 'UTC', FROM - 1, FROM)).toBe(FROM); // k = 0
    expect(nextOccurrence(p, 'UTC', FROM - 86_400_000, FROM)).toBe(FROM);
    expect(nextOccurrence(p, 'UTC', FROM + 10 * d, FROM)).toBe(FROM + 11 * d);
    expect(nextOccurrence(p, 'UTC', FROM + 10 * d - 1, FROM)).toBe(FROM + 10 * d);
    expect(nextOccurrences(p, 'UTC', FROM + 1, 3, FROM)).toEqual([FROM + d, FROM + 2 * d, FROM + 3 * d]);
    expect(nextOccurrences(p, 'UTC', FROM, 2)).toEqual([FROM + d, FROM + 2 * d]);
    // An anchor far ahead (beyond the 50-year horizon) gives none.
    expect(nextOccurrence(p, 'UTC', FROM, FROM + 60 * 365 * 86_400_000)).toBeNull();
    expect(() => nextOccurrence(p, 'UTC', FROM, Number.NaN)).toThrow(RangeError);
  });

  it('is absolute time: across a DST change in New York the spacing stays the same', () => {
    const p = parseCronExpression('@every 1h');
    const anchor = Date.parse('2026-03-08T05:30:00Z'); // 00:30 EST, before 02:00 EST → 03:00 EDT
    const got = nextOccurrences(p, 'America/New_York', anchor, 4, anchor);
    expect(got.map((t) => new Date(t).toISOString())).toEqual([
      '2026-03-08T06:30:00.000Z', // 01:30 EST
      '2026-03-08T07:30:00.000Z', // 03:30 EDT: one hour later, wall clock two
      '2026-03-08T08:30:00.000Z',
      '2026-03-08T09:30:00.000Z',
    ]);
    const daily = parseCronExpression('@every 1d');
    const fall = Date.parse('2026-10-31T13:00:00Z'); // 09:00 EDT
    expect(nextOccurrence(daily, 'America/New_York', fall, fall)).toBe(fall + 86_400_000); // 08:00 EST
  });
});
