import type { CronJob, CronJobStatus } from '../../domain/types.js';
import { patchCronJob, patchedNextInvocation } from '../cron-patch.js';
import { jobPageBounds } from '../paging.js';
import { CRON_JOB_COLUMNS, CRON_JOB_UPDATE_COLUMNS, cronJobFromRow, cronJobToRow, newCronJob, type CronRow } from '../rows-cron.js';
import { columnList, mappedOrNull } from '../rows.js';
import type { CronCreateParams, CronPageParams, CronUpdateParams } from '../store.js';
import type { Db } from './connection.js';
import { SQLITE_CODEC } from './json.js';
import { readJobPage, type ScanRow } from './paging.js';

export type { CronRow } from '../rows-cron.js';

/**
 * `SELECT … FROM cron_jobs c LEFT JOIN executions l` giving {@link CronRow}s: the newest execution
 * is one primary-key lookup through `last_execution_id`. Append a WHERE on `c.`.
 */
export const CRON_SELECT = `SELECT ${columnList(CRON_JOB_COLUMNS, 'c')}, c.last_execution_id,
       l.scheduled_for AS last_invocation, l.status AS last_status
  FROM cron_jobs c LEFT JOIN executions l ON l.id = c.last_execution_id`;

/** Joined row → cron job (../rows-cron.ts, with SQLite's codec). */
export function cronFromRow(r: CronRow): CronJob {
  return cronJobFromRow(SQLITE_CODEC, r);
}

/** What a page scan checks row by row (see schedules.ts `PAGE_HIT`): the status and the name. */
const PAGE_HIT = `((:status IS NULL OR c.status = :status) AND (:name IS NULL OR instr(lower(c.name), :name) > 0))`;

const STATUS_KEYS: Record<CronJobStatus, true> = { Active: true, Paused: true };
const STATUSES = Object.keys(STATUS_KEYS) as CronJobStatus[];

/** A page scan of the jobs in list order after (`:at`, `:id`) `where` holds, at most `:scan`. */
const tableScan = (where: string) => `SELECT c.created_at, c.id, coalesce(${PAGE_HIT}, 0) AS hit FROM cron_jobs c
  WHERE ${where}(c.created_at, c.id) > (:at, :id) ORDER BY c.created_at, c.id LIMIT :scan`;

/**
 * Page scans in list order after (`:at`, `:id`), at most `:scan` rows, by driver (migration 3):
 * every job (`cron_jobs_by_created`), one status (its partial index
 * `cron_jobs_<status>_by_created`, the status written into the statement) or one key (the unique
 * index `cron_jobs_by_key`, migration 18). A null name never matches a name filter (`instr` of
 * NULL is NULL).
 */
export const CRON_PAGE_SQL = {
  all: tableScan(''),
  key: tableScan('c.key = :key AND '),
  status: Object.fromEntries(STATUSES.map((st) => [st, tableScan(`c.status = '${st}' AND `)])) as Record<CronJobStatus, string>,
};

/** The `cron_jobs` table: statements prepared once, synchronous methods (the store wraps them). */
export class CronJobQueries {
  private readonly insert;
  private readonly byId;
  private readonly all;
  private readonly pageScan;
  private readonly byIds;
  private readonly pageTx;
  private readonly write;
  private readonly remove;
  private readonly updateTx;

  constructor(db: Db) {
    this.insert = db.prepare<[object]>(
      `INSERT INTO cron_jobs (${columnList(CRON_JOB_COLUMNS)}) VALUES (${columnList(CRON_JOB_COLUMNS.map((c) => `:${c}`))})`,
    );
    this.byId = db.prepare<[string], CronRow>(`${CRON_SELECT} WHERE c.id = ?`);
    this.all = db.prepare<[], CronRow>(`${CRON_SELECT} ORDER BY c.created_at, c.id`);
    this.pageScan = {
      all: db.prepare<[object], ScanRow>(CRON_PAGE_SQL.all),
      status: new Map(STATUSES.map((st) => [st, db.prepare<[object], ScanRow>(CRON_PAGE_SQL.status[st])])),
      key: db.prepare<[object], ScanRow>(CRON_PAGE_SQL.key),
    };
    this.byIds = db.prepare<[string], CronRow>(
      `${CRON_SELECT} WHERE c.id IN (SELECT value FROM json_each(?)) ORDER BY c.created_at, c.id`,
    );
    // A deferred transaction: the scan and the read of the rows see one snapshot.
    this.pageTx = db.transaction((p: CronPageParams) => this.pageIn(p));
    // The whole row but what only the claim moves (invocations, the newest execution).
    this.write = db.prepare<[object]>(
      `UPDATE cron_jobs SET ${columnList(CRON_JOB_UPDATE_COLUMNS.map((c) => `${c} = :${c}`))} WHERE id = :id`,
    );
    this.remove = db.prepare<[string]>('DELETE FROM cron_jobs WHERE id = ?');
    // Read, patch, recompute, write in one IMMEDIATE transaction: no claim can advance the job
    // between the read and the write, so the occurrence recomputed is never stale (cron-patch.ts).
    this.updateTx = db.transaction((p: CronUpdateParams): CronJob | null => {
      const row = this.byId.get(p.id);
      if (!row) return null;
      const patched = patchCronJob(cronFromRow(row), p);
      this.write.run(cronJobToRow({ ...patched, nextInvocation: patchedNextInvocation(patched, p) }));
      return cronFromRow(this.byId.get(p.id)!);
    });
  }

  create(p: CronCreateParams): CronJob {
    this.insert.run(cronJobToRow(newCronJob(p)));
    return this.get(p.id)!;
  }

  get(id: string): CronJob | null {
    return mappedOrNull(this.byId.get(id), cronFromRow);
  }

  list(): CronJob[] {
    return this.all.all().map(cronFromRow);
  }

  /** See `Store.cronPage`. */
  page(p: CronPageParams): { cronJobs: CronJob[]; nextCursor: string | null } {
    return this.pageTx(p);
  }

  /** Scans from the cursor by key, by status or over every job (see schedules.ts `pageIn`), then reads the hits. */
  private pageIn(p: CronPageParams): { cronJobs: CronJob[]; nextCursor: string | null } {
    const b = jobPageBounds(p);
    const key = p.key ?? null;
    // An unknown status has no index: the scan over every job then finds nothing, within its bound.
    const stmt =
      key !== null ? this.pageScan.key : ((p.status === null ? undefined : this.pageScan.status.get(p.status)) ?? this.pageScan.all);
    const { items, nextCursor } = readJobPage(stmt, { ...b, status: p.status, key }, b.limit, b.scan, (ids) =>
      this.byIds.all(ids).map(cronFromRow),
    );
    return { cronJobs: items, nextCursor };
  }

  update(p: CronUpdateParams): CronJob | null {
    return this.updateTx.immediate(p);
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }
}
