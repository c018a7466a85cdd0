/**
 * The filter combinations of `Store.executionSearch` whose plans test/store/sqlite.test.ts and
 * test/store/postgres.test.ts check (EXPLAIN QUERY PLAN / EXPLAIN): for each, the index every
 * branch of the statement must search (store/sql/execution-search.ts) and how many branches it has.
 */
import type { ExecutionSearchParams } from '../../src/store/sql/execution-search.js';
import { encodeCursor } from '../../src/store/rules/paging.js';

const BASE: ExecutionSearchParams = { statuses: [], jobType: null, jobId: null, from: null, to: null, limit: 100, cursor: null };

/**
 * One filter combination: its params, the index its branches search backwards and how many such
 * branches, and how many Running branches read executions_running_lease (Running executions are
 * not in the partial executions_by_type_status_time).
 */
export interface PlanCase {
  name: string;
  params: ExecutionSearchParams;
  index: 'executions_by_type_status_time' | 'executions_by_job';
  branches: number;
  running: number;
}

const S = 'executions_by_type_status_time';

export const SEARCH_PLAN_CASES: PlanCase[] = [
  // Without a status, one branch per kind and status: 5 statuses × 2 kinds, and Running of each kind.
  { name: 'no filter', params: BASE, index: S, branches: 10, running: 2 },
  { name: 'a cursor', params: { ...BASE, cursor: encodeCursor({ at: 5_000, id: 'e-1' }) }, index: S, branches: 10, running: 2 },
  { name: 'status', params: { ...BASE, statuses: ['Failed'] }, index: S, branches: 2, running: 0 },
  { name: 'two statuses', params: { ...BASE, statuses: ['Failed', 'Retrying'] }, index: S, branches: 4, running: 0 },
  { name: 'Running', params: { ...BASE, statuses: ['Running'] }, index: S, branches: 0, running: 2 },
  { name: 'jobType', params: { ...BASE, jobType: 'cron' }, index: S, branches: 5, running: 1 },
  { name: 'jobType + jobId', params: { ...BASE, jobType: 'schedule', jobId: 'j-5' }, index: 'executions_by_job', branches: 1, running: 0 },
  { name: 'jobId', params: { ...BASE, jobId: 'j-5' }, index: 'executions_by_job', branches: 2, running: 0 },
  { name: 'from/to', params: { ...BASE, from: 1_000, to: 19_000 }, index: S, branches: 10, running: 2 },
  {
    name: 'status + from/to',
    params: { ...BASE, statuses: ['Failed'], from: 1_000, to: 19_000, cursor: encodeCursor({ at: 18_000, id: 'e-1' }) },
    index: S,
    branches: 2,
    running: 0,
  },
  { name: 'status + jobType', params: { ...BASE, statuses: ['Failed'], jobType: 'cron' }, index: S, branches: 1, running: 0 },
  // Not here: `jobId` with `status`, whose statuses are checked on the job's rows (a page costs at
  // most the job's executions; the planner may then read them another way).
];
