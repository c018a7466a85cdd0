/**
 * Parsing and validation of cron expressions and time zone names (docs/cron.md).
 * Value sets are checked through their occurrences in UTC, the only observable effect.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/domain/errors.js';
import { nextOccurrences, parseCronExpression, validateTimeZone } from '../../src/cron/index.js';

const FROM = Date.parse('2026-01-01T00:00:00Z'); // a Thursday

/** The next `n` occurrences in UTC, as ISO strings. */
function utc(expression: string, n = 5, from = FROM): string[] {
  return nextOccurrences(parseCronExpression(expression), 'UTC', from, n).map((ms) => new Date(ms).toISOString());
}

/** Minutes (of the first hour of 2026) at which `field` fires as the minute field. */
function minutes(field: string): number[] {
  return nextOccurrences(parseCronExpression(`${field} 0 * * *`), 'UTC', FROM - 1, 60)
    .filter((ms) => ms < FROM + 3_600_000)
    .map((ms) => new Date(ms).getUTCMinutes());
}

/** Weekdays (0 = Sunday) of the days a day-of-week field selects, over the first 2 weeks of 2026. */
function weekdays(field: string): number[] {
  const days = nextOccurrences(parseCronExpression(`0 0 * * ${field}`), 'UTC', FROM - 1, 14)
    .filter((ms) => ms < FROM + 7 * 86_400_000)
    .map((ms) => new Date(ms).getUTCDay());
  return days.sort((a, b) => a - b);
}

function parseError(expression: string, path?: string): InvalidInputError {
  try {
    parseCronExpression(expression, path);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    return err as InvalidInputError;
  }
  throw new Error(`'${expression}' was accepted`);
}

describe('parseCronExpression: accepted forms', () => {
  it('keeps the expression as given and exposes fixedTime', () => {
    const c = parseCronExpression('  30 2 * * *\t');
    expect(c.expression).toBe('  30 2 * * *\t');
    expect(c.fixedTime).toBe(true);
  });

  it('reads 5 fields as minute hour day-of-month month day-of-week', () => {
    expect(utc('15 10 2 3 *', 2)).toEqual(['2026-03-02T10:15:00.000Z', '2027-03-02T10:15:00.000Z']);
  });

  it('reads 6 fields with a leading seconds field', () => {
    expect(utc('*/20 * * * * *', 4)).toEqual([
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:40.000Z',
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:01:20.000Z',
    ]);
    expect(utc('* * * * * *', 3)).toEqual(['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z']);
  });

  it('accepts tabs and runs of spaces between fields and trims the ends', () => {
    expect(utc(' \t0\t\t12   * *  *  \n', 1)).toEqual(['2026-01-01T12:00:00.000Z']);
  });

  it('lists, ranges and steps', () => {
    expect(minutes('*/15')).toEqual([0, 15, 30, 45]);
    expect(minutes('1-30/7')).toEqual([1, 8, 15, 22, 29]);
    expect(minutes('5/15')).toEqual([5, 20, 35, 50]); // from 5 to the maximum, by 15
    expect(minutes('1,2,58-59')).toEqual([1, 2, 58, 59]);
    expect(minutes('10-12,40/10')).toEqual([10, 11, 12, 40, 50]);
    expect(minutes('07')).toEqual([7]);
    expect(minutes('*/60')).toEqual([0]);
  });

  it('month and weekday names, in any case', () => {
    expect(utc('0 0 1 jan,Jul *', 2)).toEqual(['2026-07-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
    expect(utc('0 0 1 FEB-APR/2 *', 2)).toEqual(['2026-02-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z']);
    expect(weekdays('mon-FRI')).toEqual([1, 2, 3, 4, 5]);
    expect(weekdays('SAT,sun')).toEqual([0, 6]);
  });

  it('0 and 7 are both Sunday; SUN ends a range as 7', () => {
    expect(weekdays('0')).toEqual([0]);
    expect(weekdays('7')).toEqual([0]);
    expect(weekdays('5-7')).toEqual([0, 5, 6]);
    expect(weekdays('0-7')).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(weekdays('MON-SUN')).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(weekdays('SAT-SUN')).toEqual([0, 6]);
    expect(weekdays('SUN-SUN')).toEqual([0]);
    expect(weekdays('*/2')).toEqual([0, 2, 4, 6]);
    expect(weekdays('1/2')).toEqual([1, 3, 5]); // a/n runs to 6 (Saturday)
  });

  it('nicknames, case-insensitive, expand to Vixie cron lines', () => {
    const y = ['2027-01-01T00:00:00.000Z'];
    expect(utc('@yearly', 1)).toEqual(y);
    expect(utc('@annually', 1)).toEqual(y);
    expect(utc('@monthly', 2)).toEqual(['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
    expect(utc('@weekly', 2)).toEqual(['2026-01-04T00:00:00.000Z', '2026-01-11T00:00:00.000Z']); // Sundays
    expect(utc('@daily', 1)).toEqual(['2026-01-02T00:00:00.000Z']);
    expect(utc('@MIDNIGHT', 1)).toEqual(['2026-01-02T00:00:00.000Z']);
    expect(utc('  @hourly ', 2)).toEqual(['2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z']);
  });

  it('fixedTime: neither minute nor hour field starts with * (nicknames expanded first)', () => {
    const fixed = (e: string): boolean => parseCronExpression(e).fixedTime;
    expect(fixed('30 2 * * *')).toBe(true);
    expect(fixed('0,30 1-3 * * *')).toBe(true);
    expect(fixed('0-59 0-23 * * *')).toBe(true);
    expect(fixed('5/15 2 * * *')).toBe(true);
    expect(fixed('*/15 2 * * *')).toBe(false);
    expect(fixed('0 * * * *')).toBe(false);
    expect(fixed('0 */2 * * *')).toBe(false);
    expect(fixed('@daily')).toBe(true);
    expect(fixed('@weekly')).toBe(true);
    expect(fixed('@hourly')).toBe(false);
    // 6 fields: minute and hour are the 2nd and 3rd; the seconds field does not count.
    expect(fixed('*/10 30 2 * * *')).toBe(true);
    expect(fixed('0 * 2 * * *')).toBe(false);
    expect(fixed('0 0 * * * *')).toBe(false);
  });

  it('day of month and day of week: OR when both are restricted, else AND', () => {
    // 2026-01: the 13th is a Tuesday; Fridays are 2, 9, 16.
    expect(utc('0 0 13 * FRI', 3)).toEqual(['2026-01-02T00:00:00.000Z', '2026-01-09T00:00:00.000Z', '2026-01-13T00:00:00.000Z']);
    // */1 starts with * : AND, so Friday the 13th only (2026-02-13 and 2026-03-13).
    expect(utc('0 0 13 * */1', 1)).toEqual(['2026-01-13T00:00:00.000Z']);
    expect(utc('0 0 13 * 5-5,*', 1)).toEqual(['2026-01-02T00:00:00.000Z']); // does not start with * : OR
    expect(utc('0 0 */13 * FRI', 2)).toEqual(['2026-02-27T00:00:00.000Z', '2026-03-27T00:00:00.000Z']); // AND
    expect(utc('0 0 * * FRI', 1)).toEqual(['2026-01-02T00:00:00.000Z']);
    expect(utc('0 0 13 * *', 1)).toEqual(['2026-01-13T00:00:00.000Z']);
  });

  it('accepts dates that exist in some allowed month, February counting 29 days', () => {
    expect(utc('0 0 29 2 *', 2)).toEqual(['2028-02-29T00:00:00.000Z', '2032-02-29T00:00:00.000Z']);
    expect(utc('0 0 31 2,3 *', 1)).toEqual(['2026-03-31T00:00:00.000Z']);
    expect(utc('0 0 31 2 MON', 1)).toEqual(['2026-02-02T00:00:00.000Z']); // OR: any Monday in February
    // Feb 29 on a Sunday (AND, */7 = Sunday): 40 years apart around 2100.
    expect(utc('0 0 29 2 */7', 2, Date.parse('2088-03-01T00:00:00Z'))).toEqual([
      '2128-02-29T00:00:00.000Z',
      '2156-02-29T00:00:00.000Z',
    ]);
  });
});

describe('parseCronExpression: refused forms', () => {
  const cases: [string, RegExp][] = [
    ['', /empty/],
    ['   ', /empty/],
    ['* * * *', /5 fields .* or 6 .*found 4/],
    ['0 0 0 * * * 2026', /found 7/],
    ['@reboot', /@reboot is not supported/],
    ['@every5m', /unknown nickname/],
    ['@daily *', /unknown nickname/],
    ['0 0 ? * *', /'\?' .* Quartz/],
    ['0 0 * * ?', /'\?'/],
    ['0 0 * * +MON', /'\+' prefix/],
    ['60 * * * *', /minute field '60': 60 is out of range 0-59/],
    ['* 24 * * *', /hour field '24': 24 is out of range 0-23/],
    ['* * 0 * *', /day-of-month field '0': 0 is out of range 1-31/],
    ['* * 32 * *', /32 is out of range 1-31/],
    ['* * * 13 *', /month field '13': 13 is out of range 1-12/],
    ['* * * 0 *', /0 is out of range 1-12/],
    ['* * * * 8', /day-of-week field '8': 8 is out of range 0-7/],
    ['60 * * * * *', /seconds field '60'/],
    ['30-10 * * * *', /range 30-10 runs backwards/],
    ['* * * * FRI-MON', /range FRI-MON runs backwards/],
    ['*/0 * * * *', /step 0 must be at least 1/],
    ['* * 1-5/0 * *', /step 0 must be at least 1/],
    ['/5 * * * *', /needs a start/],
    ['* * * * 7/2', /must start at 0-6/],
    ['1,,2 * * * *', /empty list element/],
    ['1, * * * *', /empty list element/],
    ['*-5 * * * *', /not a value, a range/],
    ['5- * * * *', /not a value, a range/],
    ['1-2-3 * * * *', /not a value, a range/],
    ['** * * * *', /not a value/],
    ['1.5 * * * *', /not a value/],
    ['-1 * * * *', /not a value/],
    ['JAN * * * *', /names are allowed only in the month and day-of-week fields/],
    ['* * * JAM *', /unknown month name 'JAM'/],
    ['* * * JANFEB *', /unknown month name/],
    ['* * * * MONDAY', /unknown day name 'MONDAY'/],
    ['0 0 31 2 *', /never fires/],
    ['0 0 30 2 *', /never fires/],
    ['0 0 30,31 2 *', /never fires/],
    ['0 0 31 4,6,9,11 *', /never fires/],
    ['0 0 31 2 */2', /never fires/], // day of week starts with * : AND
    ['0 0 31 FEB *', /never fires/],
    ['0 0\n* * *', /spaces or tabs, on one line/],
  ];
  it.each(cases)('%j is refused with a message naming the fault', (expression, message) => {
    const err = parseError(expression);
    expect(err.code).toBe('invalid_input');
    expect(err.errors).toHaveLength(1);
    expect(err.errors[0]!.path).toBe('/expression');
    expect(err.errors[0]!.message).toMatch(message);
  });

  it('reports the path it is given', () => {
    expect(parseError('0 0 31 2 *', '/query/expression').errors).toEqual([
      { path: '/query/expression', message: expect.stringMatching(/never fires/) },
    ]);
  });

  it('a non-string is refused, not thrown as a TypeError', () => {
    expect(parseError(42 as unknown as string).errors[0]!.message).toMatch(/string/);
  });
});

describe('validateTimeZone', () => {
  it.each(['America/New_York', 'US/Eastern', 'UTC', 'Etc/GMT+5', 'Asia/Kolkata', 'Asia/Calcutta', 'america/new_york', 'America/Port-au-Prince'])(
    '%s is accepted and returned as given',
    (zone) => {
      expect(validateTimeZone(zone)).toBe(zone);
    },
  );

  it.each(['', 'Mars/Olympus_Mons', '+05:00', '-03:30', 'America/New York', 'Europe/', 'UTC+1', 'a'.repeat(100)])('%j is refused', (zone) => {
    let err: unknown;
    try {
      validateTimeZone(zone);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).errors).toEqual([{ path: '/timezone', message: expect.stringMatching(/IANA time zone/) }]);
  });

  it('reports the path it is given', () => {
    expect(() => validateTimeZone('Nowhere/Else', '/query/timezone')).toThrow(/\/query\/timezone/);
  });
});
