import { CRON_JOB_STATUSES } from '../../../domain/enums.js';
import type { CronJob } from '../../../domain/types.js';
import { patchCronJob, patchedLife } from '../../rules/cron-patch.js';
import { bulkWhere, CRON_ACTION_FROM, earliestNext, resumedJobs, type BulkResult, type CronBulkParams } from '../../rules/bulk.js';
import { CRON_TABLE } from '../../rules/paging.js';
import {
  CRON_JOB_COLUMNS,
  CRON_JOB_UPDATE_COLUMNS,
  cronJobFromRow,
  cronJobToRow,
  newCronJob,
  type CronRow,
} from '../../rows/cron-jobs.js';
import { columnList, PASS_THROUGH, valuesOf } from '../../rows/jobs.js';
import type { CronCreateParams, CronPageParams, CronUpdateParams } from '../../store.js';
import { PG_PLACEHOLDER, type NotifyContext, type Sql, type PgContext } from '../connection.js';
import { notifySql } from '../notify.js';
import { jobPageQuery, jobPageSql, pageOf, type PageRow } from './paging.js';
import type { Operations } from '../../sql-store.js';

export type { CronRow } from '../../rows/cron-jobs.js';

/** The columns of a job row, as `c.`. */
export const JOB_COLUMNS = `${columnList(CRON_JOB_COLUMNS, 'c')}, c.last_execution_id`;

/**
 * `SELECT … FROM cron_jobs c LEFT JOIN executions l` giving {@link CronRow}s: the newest execution
 * is one primary-key lookup through `last_execution_id`. Append a WHERE on `c.`.
 */
export const CRON_SELECT = `SELECT ${JOB_COLUMNS},
       l.scheduled_for AS last_invocation, l.status AS last_status
  FROM cron_jobs c LEFT JOIN executions l ON l.id = c.last_execution_id`;

/** The page statement of each driver (paging.ts `jobPageSql`); the newest execution joined once filtered. */
export const CRON_PAGE_SQL = jobPageSql(CRON_TABLE, CRON_JOB_STATUSES, {
  alias: 'c',
  select: `${JOB_COLUMNS}, l.scheduled_for AS last_invocation, l.status AS last_status`,
  join: 'LEFT JOIN executions l ON l.id = c.last_execution_id',
});

/** Joined row → cron job (store/rows/cron-jobs.ts; `pg` passes values through). */
export function cronFromRow(r: CronRow): CronJob {
  return cronJobFromRow(PASS_THROUGH, r);
}

/** The `cron_jobs` table. */
export const cronJobs = {
  /** Inserts an Active job and, in the same statement, announces its first occurrence when soon. */
  async create(sql: Sql, n: NotifyContext, p: CronCreateParams): Promise<CronJob> {
    const [r] = await sql.rows<CronRow>(
      `WITH ins AS (
         INSERT INTO cron_jobs (${columnList(CRON_JOB_COLUMNS)})
         VALUES (${columnList(CRON_JOB_COLUMNS.map((_, i) => `$${i + 1}`))})
         RETURNING *)
       SELECT ${JOB_COLUMNS}, NULL::bigint AS last_invocation, NULL::text AS last_status,
              ${notifySql('c.next_invocation', `$${CRON_JOB_COLUMNS.length + 1}`, n.clock)} AS notified
         FROM ins AS c`,
      [...valuesOf(cronJobToRow(newCronJob(p)), CRON_JOB_COLUMNS), n.channel],
    );
    return cronFromRow(r!);
  },

  async get(sql: Sql, id: string): Promise<CronJob | null> {
    const [r] = await sql.rows<CronRow>(`${CRON_SELECT} WHERE c.id = $1`, [id], 'punctual_cron_get');
    return r ? cronFromRow(r) : null;
  },

  /** Oldest first: by created_at, then id (UUID v7: the order of creation within one ms). */
  async list(sql: Sql): Promise<CronJob[]> {
    return (await sql.rows<CronRow>(`${CRON_SELECT} ORDER BY c.created_at, c.id`)).map(cronFromRow);
  },

  /** See `Store.cronPage`: one statement (paging.ts), driven by the key, else the first tag, else the status, else every job. */
  async page(sql: Sql, p: CronPageParams): Promise<{ cronJobs: CronJob[]; nextCursor: string | null }> {
    const q = jobPageQuery(CRON_PAGE_SQL, p);
    const { rows, nextCursor } = pageOf(await sql.rows<PageRow<CronRow>>(q.text, q.values), q.limit);
    return { cronJobs: rows.map(cronFromRow), nextCursor };
  },

  /**
   * Read (FOR UPDATE of the job row), patch, recompute, write, in the caller's transaction: a
   * claim on another node skips the locked row (SKIP LOCKED) or waits for nothing, and cannot
   * advance the job between the read and the write, so the occurrence recomputed is never stale
   * (cron-patch.ts). A job left Active is announced (its next occurrence, when soon).
   */
  async update(sql: Sql, n: NotifyContext, p: CronUpdateParams): Promise<CronJob | null> {
    const [row] = await sql.rows<CronRow>(`${CRON_SELECT} WHERE c.id = $1 FOR UPDATE OF c`, [p.id]);
    if (!row) return null;
    const patched = patchCronJob(cronFromRow(row), p);
    const values = cronJobToRow({ ...patched, ...patchedLife(patched, p) });
    const channel = `$${CRON_JOB_UPDATE_COLUMNS.length + 2}`;
    const notified = notifySql(`CASE WHEN u.status = 'Active' THEN u.next_invocation END`, channel, n.clock);
    await sql.rows(
      `WITH u AS (
         UPDATE cron_jobs SET ${columnList(CRON_JOB_UPDATE_COLUMNS.map((c, i) => `${c} = $${i + 2}`))}
         WHERE id = $1
         RETURNING status, next_invocation)
       SELECT ${notified} AS notified FROM u`,
      [values.id, ...valuesOf(values, CRON_JOB_UPDATE_COLUMNS), n.channel],
    );
    const [updated] = await sql.rows<CronRow>(`${CRON_SELECT} WHERE c.id = $1`, [p.id]);
    return cronFromRow(updated!);
  },

  async delete(sql: Sql, id: string): Promise<boolean> {
    return (await sql.count('DELETE FROM cron_jobs WHERE id = $1', [id])) > 0;
  },

  /**
   * See `Store.cronBulk` (store/rules/bulk.ts), in the caller's transaction. A resume reads the
   * matching Paused jobs FOR UPDATE (no claim advances them meanwhile), writes each as the single
   * resume does, and announces the earliest occurrence when soon.
   */
  async bulk(sql: Sql, n: NotifyContext, p: CronBulkParams): Promise<BulkResult> {
    const w = bulkWhere(CRON_TABLE, 'c', p.filter, CRON_ACTION_FROM[p.action], PG_PLACEHOLDER);
    if (p.action === 'resume') {
      const rows = await sql.rows<CronRow>(`${CRON_SELECT} WHERE ${w.sql} ORDER BY c.id FOR UPDATE OF c`, w.params);
      const resumed = resumedJobs(rows.map(cronFromRow), p.now);
      if (p.dryRun) return { count: resumed.length, wakeAt: null };
      for (const job of resumed) {
        const values = cronJobToRow(job);
        await sql.rows(
          `UPDATE cron_jobs SET ${columnList(CRON_JOB_UPDATE_COLUMNS.map((c, i) => `${c} = $${i + 2}`))} WHERE id = $1`,
          [values.id, ...valuesOf(values, CRON_JOB_UPDATE_COLUMNS)],
        );
      }
      const wakeAt = earliestNext(resumed);
      if (wakeAt !== null) await sql.rows(`SELECT ${notifySql('$1::bigint', '$2', n.clock)} AS notified`, [wakeAt, n.channel]);
      return { count: resumed.length, wakeAt };
    }
    if (p.dryRun) {
      const [r] = await sql.rows<{ n: number }>(`SELECT count(*)::int AS n FROM cron_jobs AS c WHERE ${w.sql}`, w.params);
      return { count: r?.n ?? 0, wakeAt: null };
    }
    const write = p.action === 'pause' ? `UPDATE cron_jobs AS c SET status = 'Paused'` : 'DELETE FROM cron_jobs AS c';
    return { count: await sql.count(`${write} WHERE ${w.sql}`, w.params), wakeAt: null };
  },
};

/** The store operations of cron jobs (store/sql-store.ts). */
export const cronJobOperations = {
  cronCreate: async (c, p) => cronJobs.create(c.sql, await c.notifyContext(), p),
  cronGet: (c, p) => cronJobs.get(c.sql, p.id),
  cronList: (c) => cronJobs.list(c.sql),
  cronPage: (c, p) => cronJobs.page(c.sql, p),
  cronUpdate: async (c, p) => {
    const n = await c.notifyContext();
    return c.tx((sql) => cronJobs.update(sql, n, p));
  },
  cronDelete: (c, p) => cronJobs.delete(c.sql, p.id),
  cronBulk: async (c, p) => {
    const n = await c.notifyContext();
    return c.tx((sql) => cronJobs.bulk(sql, n, p));
  },
} satisfies Partial<Operations<PgContext>>;
