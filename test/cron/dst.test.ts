/**
 * DST cases worked out by hand (docs/cron.md, "Cron expressions and DST"). Each row: expression,
 * zone, start (exclusive), expected occurrences in UTC with the local wall time in a comment.
 * Transitions used (from tzdata):
 *   America/New_York    2026-03-08 07:00Z 01:59 EST → 03:00 EDT; 2026-11-01 06:00Z 01:59 EDT → 01:00 EST
 *                       1965-04-25 07:00Z and 1965-10-31 06:00Z, the same shape
 *   Australia/Lord_Howe 2026-10-03 15:30Z 01:59 → 02:30 (+10:30 → +11); 2026-04-04 15:00Z 01:59 → 01:30
 *   Pacific/Chatham     2026-09-26 14:00Z 02:44 → 03:45 (+12:45 → +13:45); 2026-04-04 14:00Z 03:44 → 02:45
 *   Europe/Dublin       2026-03-29 01:00Z 00:59 GMT → 02:00 IST; 2026-10-25 01:00Z 01:59 IST → 01:00 GMT
 *   America/Santiago    2026-09-06 04:00Z Sat 23:59 → Sun 01:00; 2026-04-05 03:00Z Sat 23:59 → Sat 23:00
 *   America/Havana      2026-03-08 05:00Z Sat 23:59 → Sun 01:00; 2026-11-01 05:00Z 00:59 → 00:00
 *   Pacific/Apia        2011-12-30 10:00Z Thu 29th 23:59 (-10) → Sat 31st 00:00 (+14): Friday 30th never was
 *   Antarctica/Troll    2026-03-29 01:00Z 00:59 (+00) → 03:00 (+02)
 *   Pacific/Kwajalein   1969-09-30 13:00Z 23:59 (+11) → 01:00 the same day (-12)
 */
import { describe, expect, it } from 'vitest';
import { nextOccurrence, nextOccurrences, parseCronExpression } from '../../src/cron/index.js';

function occ(expression: string, zone: string, fromIso: string, n: number): string[] {
  return nextOccurrences(parseCronExpression(expression), zone, Date.parse(fromIso), n).map((ms) =>
    new Date(ms).toISOString().replace(':00.000Z', 'Z'),
  );
}

type Row = [expression: string, zone: string, from: string, expected: string[]];

const NY = 'America/New_York';
const rows: Record<string, Row[]> = {
  'America/New_York, spring forward 2026-03-08': [
    // 02:30 does not exist: a fixed-time job runs once at 03:00 EDT, the first instant after the gap.
    ['30 2 * * *', NY, '2026-03-07T12:00:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:30Z']],
    // Several wall times in one gap: one run.
    ['0,30 2 * * *', NY, '2026-03-08T06:00:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:00Z', '2026-03-09T06:30Z']],
    // 02:00, 02:30 (skipped) and 03:00 (real) coincide at 07:00Z: still one run; 03:30 follows.
    ['0,30 2,3 * * *', NY, '2026-03-08T06:00:00Z', ['2026-03-08T07:00Z', '2026-03-08T07:30Z', '2026-03-09T06:00Z']],
    // A wildcard job: the skipped wall times simply do not run.
    ['*/15 * * * *', NY, '2026-03-08T06:30:00Z', ['2026-03-08T06:45Z', '2026-03-08T07:00Z', '2026-03-08T07:15Z']],
    ['30 * * * *', NY, '2026-03-08T06:00:00Z', ['2026-03-08T06:30Z', '2026-03-08T07:30Z']],
    // Every minute, but written without *: fixed-time, so the whole gap is one run at 03:00.
    ['0-59 0-23 * * *', NY, '2026-03-08T06:58:00Z', ['2026-03-08T06:59Z', '2026-03-08T07:00Z', '2026-03-08T07:01Z']],
    // Strictly after: starting exactly at the gap run, or one millisecond before it.
    ['30 2 * * *', NY, '2026-03-08T07:00:00Z', ['2026-03-09T06:30Z']],
    ['30 2 * * *', NY, '2026-03-08T06:59:59.999Z', ['2026-03-08T07:00Z']],
  ],
  'America/New_York before 1970 (negative epoch times), 1965': [
    ['30 2 * * *', NY, '1965-04-24T12:00:00Z', ['1965-04-25T07:00Z', '1965-04-26T06:30Z']],
    ['30 1 * * *', NY, '1965-10-31T04:00:00Z', ['1965-10-31T05:30Z', '1965-11-01T06:30Z']],
    ['*/30 * * * *', NY, '1965-10-31T05:10:00Z', ['1965-10-31T05:30Z', '1965-10-31T06:00Z', '1965-10-31T06:30Z']],
  ],
  'America/New_York, fall back 2026-11-01': [
    // 01:30 happens twice (05:30Z EDT, 06:30Z EST): a fixed-time job runs on the first pass only.
    ['30 1 * * *', NY, '2026-11-01T04:00:00Z', ['2026-11-01T05:30Z', '2026-11-02T06:30Z']],
    ['0,30 1 * * *', NY, '2026-11-01T04:00:00Z', ['2026-11-01T05:00Z', '2026-11-01T05:30Z', '2026-11-02T06:00Z', '2026-11-02T06:30Z']],
    ['30 2 * * *', NY, '2026-11-01T04:00:00Z', ['2026-11-01T07:30Z']],
    // Starting between the passes, or inside the second one, does not bring the repeat back.
    ['30 1 * * *', NY, '2026-11-01T05:45:00Z', ['2026-11-02T06:30Z']],
    ['0 1,2 * * *', NY, '2026-11-01T06:10:00Z', ['2026-11-01T07:00Z']],
    ['0-59 0-23 * * *', NY, '2026-11-01T05:58:00Z', ['2026-11-01T05:59Z', '2026-11-01T07:00Z', '2026-11-01T07:01Z']],
    // Wildcard jobs run on both passes.
    ['*/15 * * * *', NY, '2026-11-01T05:40:00Z', ['2026-11-01T05:45Z', '2026-11-01T06:00Z', '2026-11-01T06:15Z', '2026-11-01T06:30Z', '2026-11-01T06:45Z', '2026-11-01T07:00Z']],
    ['0 * * * *', NY, '2026-11-01T04:30:00Z', ['2026-11-01T05:00Z', '2026-11-01T06:00Z', '2026-11-01T07:00Z']],
  ],
  'Australia/Lord_Howe, 30-minute transitions': [
    ['15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T12:00:00Z', ['2026-10-03T15:30Z', '2026-10-04T15:15Z']],
    ['0,20 2 * * *', 'Australia/Lord_Howe', '2026-10-03T12:00:00Z', ['2026-10-03T15:30Z', '2026-10-04T15:00Z']],
    ['*/10 * * * *', 'Australia/Lord_Howe', '2026-10-03T15:15:00Z', ['2026-10-03T15:20Z', '2026-10-03T15:30Z', '2026-10-03T15:40Z']],
    // 01:30-01:59 repeats: 01:45 first at 14:45Z (+11), not at 15:15Z (+10:30).
    ['45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T14:00:00Z', ['2026-04-04T14:45Z', '2026-04-05T15:15Z']],
    ['*/15 * * * *', 'Australia/Lord_Howe', '2026-04-04T14:20:00Z', ['2026-04-04T14:30Z', '2026-04-04T14:45Z', '2026-04-04T15:00Z', '2026-04-04T15:15Z', '2026-04-04T15:30Z']],
  ],
  'Pacific/Chatham, transitions at :45': [
    // 02:45 → 03:45: 03:00 and 03:30 are skipped and run once, at 03:45 (14:00Z).
    ['0 3 * * *', 'Pacific/Chatham', '2026-09-26T12:00:00Z', ['2026-09-26T14:00Z', '2026-09-27T13:15Z']],
    ['0,30 3 * * *', 'Pacific/Chatham', '2026-09-26T12:00:00Z', ['2026-09-26T14:00Z', '2026-09-27T13:15Z', '2026-09-27T13:45Z']],
    ['*/30 * * * *', 'Pacific/Chatham', '2026-09-26T13:50:00Z', ['2026-09-26T14:15Z', '2026-09-26T14:45Z']],
    // 03:44 → 02:45: 03:00 runs at 13:15Z (+13:45), not again at 14:15Z (+12:45).
    ['0 3 * * *', 'Pacific/Chatham', '2026-04-04T12:00:00Z', ['2026-04-04T13:15Z', '2026-04-05T14:15Z']],
    ['0 * * * *', 'Pacific/Chatham', '2026-04-04T13:00:00Z', ['2026-04-04T13:15Z', '2026-04-04T14:15Z', '2026-04-04T15:15Z']],
  ],
  'Europe/Dublin, negative DST (offsets as London)': [
    ['30 1 * * *', 'Europe/Dublin', '2026-03-28T12:00:00Z', ['2026-03-29T01:00Z', '2026-03-30T00:30Z']],
    ['30 1 * * *', 'Europe/Dublin', '2026-10-24T12:00:00Z', ['2026-10-25T00:30Z', '2026-10-26T01:30Z']],
    ['*/30 * * * *', 'Europe/Dublin', '2026-10-25T00:10:00Z', ['2026-10-25T00:30Z', '2026-10-25T01:00Z', '2026-10-25T01:30Z']],
  ],
  'midnight transitions (America/Santiago, America/Havana)': [
    // Santiago: Saturday 24:00 becomes Sunday 01:00, so Sunday 00:00 and 00:30 run at 01:00.
    ['0 0 * * *', 'America/Santiago', '2026-09-05T12:00:00Z', ['2026-09-06T04:00Z', '2026-09-07T03:00Z']],
    ['30 0 * * SUN', 'America/Santiago', '2026-09-05T12:00:00Z', ['2026-09-06T04:00Z', '2026-09-13T03:30Z']],
    ['0 0 6 9 *', 'America/Santiago', '2026-09-05T12:00:00Z', ['2026-09-06T04:00Z']],
    // Fall back: Saturday 23:00-23:59 repeats.
    ['30 23 * * *', 'America/Santiago', '2026-04-04T12:00:00Z', ['2026-04-05T02:30Z', '2026-04-06T03:30Z']],
    ['30 23 * * SAT', 'America/Santiago', '2026-04-04T12:00:00Z', ['2026-04-05T02:30Z', '2026-04-12T03:30Z']],
    ['0 0 * * SUN', 'America/Santiago', '2026-04-04T12:00:00Z', ['2026-04-05T04:00Z']],
    ['0 0 * * *', 'America/Havana', '2026-03-07T12:00:00Z', ['2026-03-08T05:00Z', '2026-03-09T04:00Z']],
    ['30 0 8 3 *', 'America/Havana', '2026-03-07T12:00:00Z', ['2026-03-08T05:00Z']],
    ['30 0 * * *', 'America/Havana', '2026-10-31T12:00:00Z', ['2026-11-01T04:30Z', '2026-11-02T05:30Z']],
    ['30 0 * * *', 'America/Havana', '2026-11-01T05:10:00Z', ['2026-11-02T05:30Z']],
  ],
  'Pacific/Apia skipped Friday 2011-12-30': [
    ['0 9 * * *', 'Pacific/Apia', '2011-12-29T12:00:00Z', ['2011-12-29T19:00Z', '2011-12-30T10:00Z', '2011-12-30T19:00Z']],
    ['0 9,15 * * *', 'Pacific/Apia', '2011-12-29T12:00:00Z', ['2011-12-29T19:00Z', '2011-12-30T01:00Z', '2011-12-30T10:00Z', '2011-12-30T19:00Z']],
    ['0 12 30 12 *', 'Pacific/Apia', '2011-12-01T00:00:00Z', ['2011-12-30T10:00Z']],
    ['0 12 * * FRI', 'Pacific/Apia', '2011-12-29T00:00:00Z', ['2011-12-30T10:00Z', '2012-01-05T22:00Z']],
    ['0 * * * *', 'Pacific/Apia', '2011-12-30T08:30:00Z', ['2011-12-30T09:00Z', '2011-12-30T10:00Z', '2011-12-30T11:00Z']],
  ],
  'Pacific/Kwajalein repeated 23 hours on 1969-09-30 (+11 → -12)': [
    // Wall clock: 1969-09-30 23:59 (+11) → 1969-09-30 01:00 (-12) at 13:00Z.
    ['0 12 * * *', 'Pacific/Kwajalein', '1969-09-30T00:00:00Z', ['1969-09-30T01:00Z', '1969-10-02T00:00Z']],
    ['0 */12 * * *', 'Pacific/Kwajalein', '1969-09-30T00:00:00Z', ['1969-09-30T01:00Z', '1969-10-01T00:00Z', '1969-10-01T12:00Z']],
  ],
  'Antarctica/Troll, a 2-hour gap': [
    ['30 1,2 * * *', 'Antarctica/Troll', '2026-03-29T00:00:00Z', ['2026-03-29T01:00Z', '2026-03-29T23:30Z']],
    ['0 * * * *', 'Antarctica/Troll', '2026-03-29T00:30:00Z', ['2026-03-29T01:00Z', '2026-03-29T02:00Z']],
  ],
  'seconds (6 fields)': [
    ['*/20 30 2 * * *', NY, '2026-03-08T06:00:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:30Z', '2026-03-09T06:30:20.000Z']],
    ['* * * * * *', NY, '2026-03-08T06:59:58Z', ['2026-03-08T06:59:59.000Z', '2026-03-08T07:00Z', '2026-03-08T07:00:01.000Z']],
    ['*/30 * 1 * * *', NY, '2026-11-01T05:59:00Z', ['2026-11-01T05:59:30.000Z', '2026-11-01T06:00Z', '2026-11-01T06:00:30.000Z']],
    ['0 30 1 * * *', NY, '2026-11-01T04:00:00Z', ['2026-11-01T05:30Z', '2026-11-02T06:30Z']],
  ],
  'rare expressions, years apart (the search skips ahead)': [
    // Second Sunday of March at 02:30 (day of week starts with *: AND) is always in New York's gap.
    ['30 2 8-14 3 */7', NY, '2026-03-09T00:00:00Z', ['2027-03-14T07:00Z', '2028-03-12T07:00Z', '2029-03-11T07:00Z']],
    // First Sunday of November at 01:30: the first pass (EDT) only.
    ['30 1 1-7 11 */7', NY, '2026-11-02T00:00:00Z', ['2027-11-07T05:30Z', '2028-11-05T05:30Z']],
    // Far from UTC both ways: 29 February on a Sunday.
    ['0 0 29 2 */7', 'Pacific/Kiritimati', '2026-01-01T00:00:00Z', ['2032-02-28T10:00Z', '2060-02-28T10:00Z']],
    ['0 0 29 2 */7', 'Pacific/Pago_Pago', '2026-01-01T00:00:00Z', ['2032-02-29T11:00Z', '2060-02-29T11:00Z']],
    ['0 0 29 2 */7', 'Pacific/Kiritimati', '2032-02-28T09:59:59.999Z', ['2032-02-28T10:00Z']],
  ],
  'UTC (a job without a zone)': [
    ['30 2 * * *', 'UTC', '2026-03-08T00:00:00Z', ['2026-03-08T02:30Z', '2026-03-09T02:30Z']],
  ],
};

describe.each(Object.entries(rows))('%s', (_, table) => {
  it.each(table)('%s in %s after %s', (expression, zone, from, expected) => {
    expect(occ(expression, zone, from, expected.length)).toEqual(expected);
  });
});

describe('zones', () => {
  it('an alias gives the same occurrences as its zone', () => {
    expect(occ('30 1 * * *', 'US/Eastern', '2026-11-01T04:00:00Z', 2)).toEqual(occ('30 1 * * *', NY, '2026-11-01T04:00:00Z', 2));
  });

  it('a zone without DST keeps its offset (Asia/Kolkata, +05:30)', () => {
    expect(occ('0 9 * * *', 'Asia/Kolkata', '2026-03-08T00:00:00Z', 2)).toEqual(['2026-03-08T03:30Z', '2026-03-09T03:30Z']);
  });

  it('an unknown zone or an impossible instant is a RangeError (callers validate first)', () => {
    const c = parseCronExpression('* * * * *');
    expect(() => nextOccurrence(c, 'Mars/Olympus_Mons', 0)).toThrow(RangeError);
    expect(() => nextOccurrence(c, 'UTC', Number.NaN)).toThrow(RangeError);
    expect(() => nextOccurrence(c, 'UTC', 8.64e15)).toThrow(RangeError);
  });

  it('works far from today: before tzdata starts (LMT) and in year 9999', () => {
    const c = parseCronExpression('0 12 * * *');
    // New York local mean time was -4:56:02 until 1883-11-18.
    expect(new Date(nextOccurrence(c, NY, Date.parse('1700-01-01T00:00:00Z'))!).toISOString()).toBe('1700-01-01T16:56:02.000Z');
    expect(new Date(nextOccurrence(c, NY, Date.parse('9999-12-31T00:00:00Z'))!).toISOString()).toBe('9999-12-31T17:00:00.000Z');
  });
});
