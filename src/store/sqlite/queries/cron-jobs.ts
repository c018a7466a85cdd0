import { CRON_JOB_STATUSES } from '../../../domain/enums.js';
import type { CronJob, CronJobStatus } from '../../../domain/types.js';
import { patchCronJob, patchedLife } from '../../rules/cron-patch.js';
import { bulkWhere, CRON_ACTION_FROM, earliestNext, resumedJobs, type BulkResult, type CronBulkParams } from '../../rules/bulk.js';
import { CRON_TABLE } from '../../rules/paging.js';
import { CRON_JOB_COLUMNS, CRON_JOB_UPDATE_COLUMNS, cronJobFromRow, cronJobToRow, newCronJob, type CronRow } from '../../rows/cron-jobs.js';
import { columnList } from '../../rows/jobs.js';
import type { CronCreateParams, CronPageParams, CronUpdateParams } from '../../store.js';
import type { Db } from '../connection.js';
import { SQLITE_CODEC } from '../connection.js';
import { jobPageSql, JobReads, SQLITE_PLACEHOLDER } from './paging.js';
import type { Operations } from '../../sql-store.js';

export type { CronRow } from '../../rows/cron-jobs.js';

/**
 * `SELECT … FROM cron_jobs c LEFT JOIN executions l` giving {@link CronRow}s: the newest execution
 * is one primary-key lookup through `last_execution_id`. Append a WHERE on `c.`.
 */
export const CRON_SELECT = `SELECT ${columnList(CRON_JOB_COLUMNS, 'c')}, c.last_execution_id,
       l.scheduled_for AS last_invocation, l.status AS last_status
  FROM cron_jobs c LEFT JOIN executions l ON l.id = c.last_execution_id`;

/** Joined row → cron job (store/rows/cron-jobs.ts, with SQLite's codec). */
export function cronFromRow(r: CronRow): CronJob {
  return cronJobFromRow(SQLITE_CODEC, r);
}

/** The page scans of cron jobs (paging.ts `jobPageSql`), as those of schedules. */
export const CRON_PAGE_SQL = jobPageSql(CRON_TABLE, CRON_JOB_STATUSES);

/** The `cron_jobs` table: statements prepared once, synchronous methods (the store wraps them). */
export class CronJobQueries extends JobReads<CronJobStatus, CronRow, CronJob> {
  private readonly insert;
  private readonly write;
  private readonly remove;
  private readonly updateTx;

  constructor(private readonly db: Db) {
    super(db, { table: CRON_TABLE, statuses: CRON_JOB_STATUSES, select: CRON_SELECT, alias: 'c.', fromRow: cronFromRow });
    this.insert = db.prepare<[object]>(
      `INSERT INTO cron_jobs (${columnList(CRON_JOB_COLUMNS)}) VALUES (${columnList(CRON_JOB_COLUMNS.map((c) => `:${c}`))})`,
    );
    // The whole row but what only the claim moves (invocations, the newest execution).
    this.write = db.prepare<[object]>(
      `UPDATE cron_jobs SET ${columnList(CRON_JOB_UPDATE_COLUMNS.map((c) => `${c} = :${c}`))} WHERE id = :id`,
    );
    this.remove = db.prepare<[string]>('DELETE FROM cron_jobs WHERE id = ?');
    // Read, patch, recompute, write in one IMMEDIATE transaction: no claim can advance the job
    // between the read and the write, so the occurrence recomputed is never stale (cron-patch.ts).
    this.updateTx = db.transaction((p: CronUpdateParams): CronJob | null => {
      const job = this.get(p.id);
      if (!job) return null;
      const patched = patchCronJob(job, p);
      this.write.run(cronJobToRow({ ...patched, ...patchedLife(patched, p) }));
      return this.get(p.id)!;
    });
  }

  create(p: CronCreateParams): CronJob {
    this.insert.run(cronJobToRow(newCronJob(p)));
    return this.get(p.id)!;
  }

  /** See `Store.cronPage`. */
  page(p: CronPageParams): { cronJobs: CronJob[]; nextCursor: string | null } {
    const { items, nextCursor } = this.readPage(p);
    return { cronJobs: items, nextCursor };
  }

  update(p: CronUpdateParams): CronJob | null {
    return this.updateTx.immediate(p);
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }

  /**
   * See `Store.cronBulk` (store/rules/bulk.ts): one IMMEDIATE transaction. A resume reads the
   * matching Paused jobs and writes each as the single resume does.
   */
  bulk(p: CronBulkParams): BulkResult {
    const w = bulkWhere(CRON_TABLE, 'c', p.filter, CRON_ACTION_FROM[p.action], SQLITE_PLACEHOLDER);
    return this.db
      .transaction((): BulkResult => {
        if (p.action === 'resume') {
          const resumed = resumedJobs(this.db.prepare<unknown[], CronRow>(`${CRON_SELECT} WHERE ${w.sql}`).all(...w.params).map(cronFromRow), p.now);
          if (!p.dryRun) for (const job of resumed) this.write.run(cronJobToRow(job));
          return { count: resumed.length, wakeAt: p.dryRun ? null : earliestNext(resumed) };
        }
        if (p.dryRun) {
          return { count: this.db.prepare<unknown[], number>(`SELECT count(*) FROM cron_jobs AS c WHERE ${w.sql}`).pluck().get(...w.params) ?? 0, wakeAt: null };
        }
        const write = p.action === 'pause' ? `UPDATE cron_jobs AS c SET status = 'Paused'` : 'DELETE FROM cron_jobs AS c';
        return { count: this.db.prepare(`${write} WHERE ${w.sql}`).run(...w.params).changes, wakeAt: null };
      })
      .immediate();
  }
}

/** The store operations of cron jobs (../../sql-store.ts), on the statements of CronJobQueries. */
export const cronJobOperations = {
  cronCreate: (q, p) => q.cron.create(p),
  cronGet: (q, p) => q.cron.get(p.id),
  cronList: (q) => q.cron.list(),
  cronPage: (q, p) => q.cron.page(p),
  cronUpdate: (q, p) => q.cron.update(p),
  cronDelete: (q, p) => q.cron.delete(p.id),
  cronBulk: (q, p) => q.cron.bulk(p),
} satisfies Partial<Operations<{ cron: CronJobQueries }>>;
