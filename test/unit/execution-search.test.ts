/**
 * The pure rules of the executions list across jobs (src/store/sql/execution-search.ts): the branches
 * of the keys statement, and a page cut from its keys (the rows read after them may miss one that
 * was pruned meanwhile: the page's cursor still comes from the keys).
 */
import { describe, expect, it } from 'vitest';
import { inKeyOrder, pageOfKeys, replaySelectionSql, searchKeysSql, type ExecutionFilter } from '../../src/store/sql/execution-search.js';
import { decodeCursor } from '../../src/store/rules/paging.js';

const NONE: ExecutionFilter = { statuses: [], jobType: null, jobId: null, from: null, to: null };
const q = () => '?';
const branches = (sql: string) => sql.match(/ORDER BY scheduled_for DESC, id DESC LIMIT \?\) b\d+/g)?.length ?? 0;

describe('searchKeysSql', () => {
  it('makes one branch per kind and status (every status without a filter), or per kind for a job; parameters in the order of their placeholders', () => {
    expect(branches(searchKeysSql(NONE, null, 11, q).sql)).toBe(12);
    expect(branches(searchKeysSql({ ...NONE, jobType: 'cron' }, null, 11, q).sql)).toBe(6);
    expect(branches(searchKeysSql({ ...NONE, statuses: ['Failed', 'Retrying', 'Failed'] }, null, 11, q).sql)).toBe(4);
    expect(branches(searchKeysSql({ ...NONE, jobId: 'j', statuses: ['Failed', 'Pending'] }, null, 11, q).sql)).toBe(2);
    const { sql, params } = searchKeysSql({ ...NONE, jobType: 'schedule', statuses: ['Failed'], from: 1, to: 9 }, { at: 5, id: 'x' }, 11, q);
    expect(sql.split('?').length - 1).toBe(params.length);
    expect(params).toEqual(['schedule', 1, 9, 5, 'x', 11, 11]);
  });

  it('selects for a replay only Failed executions whose job exists', () => {
    const { sql, params } = replaySelectionSql({ jobType: 'cron', jobId: null, from: null, to: null, now: 0, limit: 10_000 }, q);
    expect(params).toEqual(['cron', 10_000, 10_000]);
    // Statuses are literals (the partial index's predicate must be seen to hold).
    expect(sql).toContain("status = 'Failed' AND status <> 'Running'");
    expect(sql).toContain('EXISTS (SELECT 1 FROM cron_jobs j WHERE j.id = executions.job_id)');
  });
});

describe('pageOfKeys and inKeyOrder', () => {
  const keys = [
    { scheduled_for: 30, id: 'c' },
    { scheduled_for: 20, id: 'b' },
    { scheduled_for: 10, id: 'a' },
  ];

  it('cuts `limit` ids and continues after the last of them when a key follows', () => {
    const page = pageOfKeys(keys, 2);
    expect(page.ids).toEqual(['c', 'b']);
    expect(decodeCursor(page.nextCursor!)).toEqual({ at: 20, id: 'b' });
    expect(pageOfKeys(keys, 3)).toEqual({ ids: ['c', 'b', 'a'], nextCursor: null });
    expect(pageOfKeys([], 3)).toEqual({ ids: [], nextCursor: null });
  });

  it('orders the rows as the keys, leaving out a row pruned meanwhile (the cursor stays)', () => {
    expect(inKeyOrder(['c', 'b', 'a'], [{ id: 'a' }, { id: 'c' }])).toEqual([{ id: 'c' }, { id: 'a' }]);
  });
});
