/**
 * PostgreSQL's list of executions across jobs and replay (`Store.executionSearch`,
 * `Store.executionReplay`, `Store.executionsReplay`). The filter, the indexes walked and what a
 * replay writes are decided in `store/sql/execution-search.ts`; this module only runs them.
 */
import type { Execution, JobType } from '../../../domain/types.js';
import {
  inKeyOrder,
  pageOfKeys,
  replaySelectionSql,
  replaySetSql,
  searchPageSql,
  type ExecutionSearchParams,
  type ExecutionsReplayParams,
  type SearchKey,
} from '../../sql/execution-search.js';
import { PASS_THROUGH } from '../../rows/jobs.js';
import * as execRows from '../../rows/executions.js';
import { PG_PLACEHOLDER, type NotifyContext, type Sql, type PgContext } from '../connection.js';
import { ATTEMPTS_OF_SQL, executions } from './executions.js';
import { notifySql } from '../notify.js';
import type { Operations } from '../../sql-store.js';

/** The outcome of one replay (see `Store.executionReplay`). */
export type ReplayResult = Execution | 'not_found' | 'not_failed' | 'job_deleted';

/** The executions list across jobs, and replays. */
export const executionSearch = {
  /** One page of executions across jobs, newest first (see `store/sql/execution-search.ts`). */
  async search(sql: Sql, p: ExecutionSearchParams): Promise<{ executions: Execution[]; nextCursor: string | null }> {
    const { keys, limit } = searchPageSql(p, PG_PLACEHOLDER);
    const { ids, nextCursor } = pageOfKeys(await sql.rows<SearchKey>(keys.sql, keys.params), limit);
    if (ids.length === 0) return { executions: [], nextCursor };
    const rows = inKeyOrder(ids, await sql.rows<execRows.ExecutionRow>(`SELECT ${execRows.EXECUTION_COLUMNS} FROM executions WHERE id = ANY($1::text[])`, [ids]));
    const attempts = await sql.rows<execRows.AttemptRow>(ATTEMPTS_OF_SQL, [ids]);
    return { executions: execRows.executionPage(PASS_THROUGH, rows, rows.length, () => attempts).executions, nextCursor };
  },

  /**
   * See `Store.executionReplay`; runs in the caller's transaction. The execution's row is locked
   * (FOR UPDATE) while it is checked and reopened; the replay is announced (due at `now`).
   */
  async replay(sql: Sql, n: NotifyContext, id: string, now: number): Promise<ReplayResult> {
    const at = Math.floor(now);
    const [e] = await sql.rows<{ status: string; job_type: JobType; job_id: string; job_exists: boolean }>(
      `SELECT e.status, e.job_type, e.job_id,
              (EXISTS (SELECT 1 FROM schedules s WHERE e.job_type = 'schedule' AND s.id = e.job_id)
               OR EXISTS (SELECT 1 FROM cron_jobs c WHERE e.job_type = 'cron' AND c.id = e.job_id)) AS job_exists
         FROM executions e WHERE e.id = $1 FOR UPDATE OF e`,
      [id],
    );
    if (!e) return 'not_found';
    if (e.status !== 'Failed') return 'not_failed';
    if (!e.job_exists) return 'job_deleted';
    await sql.rows(`UPDATE executions SET ${replaySetSql('$1::bigint')} WHERE id = $2 AND status = 'Failed'`, [at, id]);
    if (e.job_type === 'schedule') await sql.rows(`UPDATE schedules SET status = 'Running' WHERE id = $1`, [e.job_id]);
    await sql.rows(`SELECT ${notifySql('$1::bigint', '$2', n.clock)} AS notified`, [at, n.channel]);
    return (await executions.get(sql, id))!;
  },

  /**
   * See `Store.executionsReplay`; one statement in the caller's transaction: the selection, the
   * reopening of the executions still Failed, their schedules back to Running, and the
   * announcement of the replays (due at `now`).
   */
  async replayMany(sql: Sql, n: NotifyContext, p: ExecutionsReplayParams): Promise<number> {
    const selection = replaySelectionSql(p, PG_PLACEHOLDER);
    const k = selection.params.length;
    const now = `$${k + 1}::bigint`;
    const [row] = await sql.rows<{ replayed: string }>(
      `WITH k AS (${selection.sql}),
r AS (
  UPDATE executions x SET ${replaySetSql(now)}
    FROM k WHERE x.id = k.id AND x.status = 'Failed'
  RETURNING x.job_type, x.job_id),
s AS (
  UPDATE schedules SET status = 'Running' WHERE id IN (SELECT job_id FROM r WHERE job_type = 'schedule'))
SELECT (SELECT count(*) FROM r) AS replayed,
       ${notifySql(`CASE WHEN EXISTS (SELECT 1 FROM r) THEN ${now} END`, `$${k + 2}`, n.clock)} AS notified`,
      [...selection.params, Math.floor(p.now), n.channel],
    );
    return Number(row?.replayed ?? 0);
  },
};

/** The store operations of the search and replay of executions (store/sql-store.ts). */
export const executionSearchOperations = {
  executionSearch: (c, p) => executionSearch.search(c.sql, p),
  executionReplay: async (c, p) => {
    const n = await c.notifyContext();
    return c.tx((sql) => executionSearch.replay(sql, n, p.id, p.now));
  },
  executionsReplay: async (c, p) => {
    const n = await c.notifyContext();
    return c.tx((sql) => executionSearch.replayMany(sql, n, p));
  },
} satisfies Partial<Operations<PgContext>>;
