/**
 * SQLite's list of executions across jobs and replay (`Store.executionSearch`,
 * `Store.executionReplay`, `Store.executionsReplay`). The filter, the indexes walked and what a
 * replay writes are decided in `store/sql/execution-search.ts`; this module only runs them.
 */
import type { Statement } from 'better-sqlite3';
import type { Execution, JobType } from '../../../domain/types.js';
import * as search from '../../sql/execution-search.js';
import * as execRows from '../../rows/executions.js';
import type { Db } from '../connection.js';
import { ATTEMPTS_OF_SQL, type ExecutionQueries } from './executions.js';
import { SQLITE_CODEC } from '../connection.js';
import { SQLITE_PLACEHOLDER } from './paging.js';
import type { Operations } from '../../sql-store.js';

/** Prepared statements kept per statement text (a filter's shape), at most this many. */
const STATEMENT_CACHE_MAX = 128;

/** The outcome of one replay (see `Store.executionReplay`). */
export type ReplayResult = Execution | 'not_found' | 'not_failed' | 'job_deleted';

/** The executions list across jobs, and replays. */
export class ExecutionSearchQueries {
  private readonly statements = new Map<string, Statement<unknown[], unknown>>();
  private readonly attemptsOf;
  private readonly rowsOf;
  private readonly state;
  private readonly scheduleExists;
  private readonly cronExists;
  private readonly replayOne;
  private readonly restartSchedule;
  private readonly replayIds;
  private readonly replayOneTx;
  private readonly replayManyTx;

  constructor(
    private readonly db: Db,
    private readonly executions: ExecutionQueries,
  ) {
    this.attemptsOf = db.prepare<[{ ids: string }], execRows.AttemptRow>(ATTEMPTS_OF_SQL);
    this.rowsOf = db.prepare<[string], execRows.ExecutionRow>(
      `SELECT ${execRows.EXECUTION_COLUMNS} FROM executions WHERE id IN (SELECT value FROM json_each(?))`,
    );
    this.state = db.prepare<[string], { status: string; job_type: JobType; job_id: string }>(
      'SELECT status, job_type, job_id FROM executions WHERE id = ?',
    );
    this.scheduleExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM schedules WHERE id = ?');
    this.cronExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM cron_jobs WHERE id = ?');
    this.replayOne = db.prepare<[number, string]>(`UPDATE executions SET ${search.replaySetSql('?')} WHERE id = ? AND status = 'Failed'`);
    // The schedule of a replayed execution runs again: Running until the new outcome settles it.
    this.restartSchedule = db.prepare<[string]>(`UPDATE schedules SET status = 'Running' WHERE id IN (SELECT value FROM json_each(?))`);
    this.replayIds = db.prepare<[number, string], { job_type: JobType; job_id: string }>(
      `UPDATE executions SET ${search.replaySetSql('?')} WHERE id IN (SELECT value FROM json_each(?)) AND status = 'Failed'
       RETURNING job_type, job_id`,
    );
    this.replayOneTx = db.transaction((id: string, now: number): ReplayResult => {
      const e = this.state.get(id);
      if (!e) return 'not_found';
      if (e.status !== 'Failed') return 'not_failed';
      const exists = e.job_type === 'schedule' ? this.scheduleExists.get(e.job_id) : this.cronExists.get(e.job_id);
      if (!exists) return 'job_deleted';
      this.replayOne.run(now, id);
      if (e.job_type === 'schedule') this.restartSchedule.run(JSON.stringify([e.job_id]));
      return this.executions.get(id)!;
    });
    this.replayManyTx = db.transaction((p: search.ExecutionsReplayParams): number => {
      const selection = search.replaySelectionSql(p, SQLITE_PLACEHOLDER);
      const ids = this.prepared(selection.sql).all(...selection.params).map((r) => (r as { id: string }).id);
      if (ids.length === 0) return 0;
      const changed = this.replayIds.all(Math.floor(p.now), JSON.stringify(ids));
      const schedules = changed.filter((r) => r.job_type === 'schedule').map((r) => r.job_id);
      if (schedules.length > 0) this.restartSchedule.run(JSON.stringify(schedules));
      return changed.length;
    });
  }

  /** One page of executions across jobs, newest first (see `store/sql/execution-search.ts`). */
  search(p: search.ExecutionSearchParams): { executions: Execution[]; nextCursor: string | null } {
    const { keys, limit } = search.searchPageSql(p, SQLITE_PLACEHOLDER);
    const { ids, nextCursor } = search.pageOfKeys(this.prepared(keys.sql).all(...keys.params) as search.SearchKey[], limit);
    const rows = ids.length === 0 ? [] : search.inKeyOrder(ids, this.rowsOf.all(JSON.stringify(ids)));
    const page = execRows.executionPage(SQLITE_CODEC, rows, rows.length, (ids) => this.attemptsOf.all({ ids: JSON.stringify(ids) }));
    return { executions: page.executions, nextCursor };
  }

  /** See `Store.executionReplay`. One IMMEDIATE transaction. */
  replay(id: string, now: number): ReplayResult {
    return this.replayOneTx.immediate(id, Math.floor(now));
  }

  /** See `Store.executionsReplay`. One IMMEDIATE transaction. */
  replayMany(p: search.ExecutionsReplayParams): number {
    return this.replayManyTx.immediate(p);
  }

  /** The prepared statement of `sql`, from the cache (the oldest entry leaves when it is full). */
  private prepared(sql: string): Statement<unknown[], unknown> {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= STATEMENT_CACHE_MAX) this.statements.delete(this.statements.keys().next().value!);
      s = this.db.prepare<unknown[], unknown>(sql);
      this.statements.set(sql, s);
    }
    return s;
  }
}

/** The store operations of the search and replay of executions (../../sql-store.ts), on the statements of ExecutionSearchQueries. */
export const executionSearchOperations = {
  executionSearch: (q, p) => q.search.search(p),
  executionReplay: (q, p) => q.search.replay(p.id, p.now),
  executionsReplay: (q, p) => q.search.replayMany(p),
} satisfies Partial<Operations<{ search: ExecutionSearchQueries }>>;
