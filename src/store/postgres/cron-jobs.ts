import { CRON_JOB_STATUSES } from '../../domain/enums.js';
import type { CronJob } from '../../domain/types.js';
import { patchCronJob, patchedNextInvocation } from '../cron-patch.js';
import { jobPageBounds } from '../paging.js';
import {
  CRON_JOB_COLUMNS,
  CRON_JOB_UPDATE_COLUMNS,
  cronJobFromRow,
  cronJobToRow,
  newCronJob,
  type CronRow,
} from '../rows-cron.js';
import { columnList, PASS_THROUGH, valuesOf } from '../rows.js';
import type { CronCreateParams, CronPageParams, CronUpdateParams } from '../store.js';
import type { Sql } from './connection.js';
import { notifySql } from './notify.js';
import { foldNameSql, keyPageSql, pageOf, tablePageSql, type PageRow } from './paging.js';
import type { NotifyContext } from './schedules.js';

export type { CronRow } from '../rows-cron.js';

/** The columns of a job row, as `c.`. */
export const JOB_COLUMNS = `${columnList(CRON_JOB_COLUMNS, 'c')}, c.last_execution_id`;

/**
 * `SELECT … FROM cron_jobs c LEFT JOIN executions l` giving {@link CronRow}s: the newest execution
 * is one primary-key lookup through `last_execution_id`. Append a WHERE on `c.`.
 */
export const CRON_SELECT = `SELECT ${JOB_COLUMNS},
       l.scheduled_for AS last_invocation, l.status AS last_status
  FROM cron_jobs c LEFT JOIN executions l ON l.id = c.last_execution_id`;

/**
 * Page statements by driver (migration 2; see paging.ts): every job (`cron_jobs_by_created`) or
 * one status (`cron_jobs_<status>_by_created`); checked row by row: the status (`$5`) and the name
 * (`$6`, folded; a null name never matches). Null parameters are not checked.
 */
const PAGE_FILTER = `($5::text IS NULL OR c.status = $5::text)
     AND ($6::text IS NULL OR strpos(${foldNameSql('c.name')}, $6::text) > 0)`;
/** The hits of a page (`where`: the driver's condition); the newest execution joined once filtered. */
const hits = (where: string) =>
  `SELECT ${JOB_COLUMNS}, l.scheduled_for AS last_invocation, l.status AS last_status, c.created_at AS k_at, c.id AS k_id
     FROM (SELECT * FROM cron_jobs WHERE ${where} ORDER BY created_at, id LIMIT $3) AS c
     LEFT JOIN executions l ON l.id = c.last_execution_id
    WHERE ${PAGE_FILTER}
    ORDER BY c.created_at, c.id LIMIT $4 + 1`;
/**
 * The page statement of each driver (paging.ts `tablePageSql`), and of a key (the unique index
 * `cron_jobs_by_key`, migration 17; the key is `$7`).
 */
export const CRON_PAGE_SQL = { ...tablePageSql('cron_jobs', CRON_JOB_STATUSES, hits), key: keyPageSql('cron_jobs', '$7', hits) };

/** Joined row → cron job (../rows-cron.ts; `pg` passes values through). */
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

  /** See `Store.cronPage`: one statement (paging.ts), driven by the key, else the status, else every job. */
  async page(sql: Sql, p: CronPageParams): Promise<{ cronJobs: CronJob[]; nextCursor: string | null }> {
    const b = jobPageBounds(p);
    const key = p.key ?? null;
    const values: unknown[] = [b.at, b.id, b.scan, b.limit, p.status, b.name];
    // An unknown status has no index: the scan over every job then finds nothing, within its bound.
    let text = (p.status === null ? undefined : CRON_PAGE_SQL.status[p.status]) ?? CRON_PAGE_SQL.all;
    if (key !== null) {
      text = CRON_PAGE_SQL.key;
      values.push(key);
    }
    const { rows, nextCursor } = pageOf(await sql.rows<PageRow<CronRow>>(text, values), b.limit);
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
    const values = cronJobToRow({ ...patched, nextInvocation: patchedNextInvocation(patched, p) });
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
};
