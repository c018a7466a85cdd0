/** The backfill's rules on their own (src/store/rules/backfill.ts): which occurrences, and their pace. */
import { describe, expect, it } from 'vitest';
import { cronJobNext } from '../../src/cron/index.js';
import type { CronJob } from '../../src/domain/types.js';
import { BACKFILL_MAX, BACKFILL_RECHECK_MS, backfillOccurrences, backfillRows } from '../../src/store/rules/backfill.js';

const job = (expression: string, timezone: string | null = null) => ({ expression, timezone }) as CronJob;
const iso = (ms: number) => new Date(ms).toISOString();

describe('backfillOccurrences', () => {
  it('[from, to): from included, to excluded, in the job\'s zone (a DST change keeps wall time)', () => {
    const from = Date.parse('2026-03-28T00:00:00Z');
    const got = backfillOccurrences(job('30 2 * * *', 'Europe/Berlin'), from, Date.parse('2026-03-31T00:30:00Z'), cronJobNext) as number[];
    // 02:30 does not exist on 29 March in Berlin: docs/cron.md runs it at 03:00 (the end of the gap).
    expect(got.map(iso)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect((backfillOccurrences(job('0 * * * *'), Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T02:00:00Z'), cronJobNext) as number[]).map(iso)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T01:00:00.000Z',
    ]);
  });

  it(`at most ${BACKFILL_MAX}: exactly that many is fine, one more is too_many`, () => {
    const from = Date.parse('2026-01-01T00:00:00Z');
    expect(backfillOccurrences(job('* * * * *'), from, from + BACKFILL_MAX * 60_000, cronJobNext)).toHaveLength(BACKFILL_MAX);
    expect(backfillOccurrences(job('* * * * *'), from, from + BACKFILL_MAX * 60_000 + 1, cronJobNext)).toBe('too_many');
  });

  it('a broken engine ends the walk (throws, non-numbers, not increasing)', () => {
    expect(backfillOccurrences(job('x'), 0, 1e12, () => { throw new Error('no'); })).toEqual([]);
    expect(backfillOccurrences(job('x'), 0, 1e12, () => Number.NaN)).toEqual([]);
    expect(backfillOccurrences(job('x'), 0, 1e12, () => 5)).toEqual([5]);
  });
});

describe('backfillRows', () => {
  const none = () => false;
  it('leaves out the occurrences that exist; overlap allow: all due now', () => {
    expect(backfillRows([1, 2, 3], (o) => o === 2, 'allow', () => true, 100)).toEqual([
      { scheduledFor: 1, nextAttemptAt: 100 },
      { scheduledFor: 3, nextAttemptAt: 100 },
    ]);
  });
  it('overlap skip: the oldest due now, the others wait; none due while the job has one in progress', () => {
    expect(backfillRows([1, 2], none, 'skip', () => false, 100)).toEqual([
      { scheduledFor: 1, nextAttemptAt: 100 },
      { scheduledFor: 2, nextAttemptAt: 100 + BACKFILL_RECHECK_MS },
    ]);
    expect(backfillRows([1, 2], none, 'skip', () => true, 100).map((r) => r.nextAttemptAt)).toEqual([100 + BACKFILL_RECHECK_MS, 100 + BACKFILL_RECHECK_MS]);
    expect(backfillRows([1], () => true, 'skip', () => false, 100)).toEqual([]);
  });
});
