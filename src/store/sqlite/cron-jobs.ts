import type { CronJob, CronJobStatus, ExecutionStatus, MisfirePolicy, OverlapPolicy } from '../../domain/types.js';
import { cutPage, foldNameNeedle, scanBound, startOf } from '../paging.js';
import type { CronCreateParams, CronPageParams, CronUpdateParams } from '../store.js';
import type { Db } from './connection.js';
import { nullableObjectFromColumn } from './json.js';
import { scanPage, type ScanRow } from './paging.js';

/** A row of `cron_jobs` joined with its newest execution, as selected by {@link CRON_SELECT}. */
export interface CronRow {
  id: string;
  expression: string;
  name: string | null;
  timezone: string | null;
  status: CronJobStatus;
  endpoint: string;
  data: string | null;
  invocations: number;
  next_invocation: number;
  created_at: number;
  retry_max_attempts: number;
  retry_initial_delay_ms: number;
  retry_max_delay_ms: number;
  timeout_ms: number;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
  last_execution_id: string | null;
  /** `scheduled_for` of the newest execution (LEFT JOIN), or null. */
  last_invocation: number | null;
  /** `status` of the newest execution (LEFT JOIN), or null. */
  last_status: ExecutionStatus | null;
}

/**
 * `SELECT … FROM cron_jobs c LEFT JOIN executions l` giving {@link CronRow}s: the newest execution
 * is one primary-key lookup through `last_execution_id`. Append a WHERE on `c.`.
 */
export const CRON_SELECT = `SELECT c.id, c.expression, c.name, c.timezone, c.status, c.endpoint, c.data,
       c.invocations, c.next_invocation, c.created_at,
       c.retry_max_attempts, c.retry_initial_delay_ms, c.retry_max_delay_ms, c.timeout_ms,
       c.misfire, c.overlap, c.last_execution_id,
       l.scheduled_for AS last_invocation, l.status AS last_status
  FROM cron_jobs c LEFT JOIN executions l ON l.id = c.last_execution_id`;

/** Row → domain object. */
export function cronFromRow(r: CronRow): CronJob {
  return {
    id: r.id,
    expression: r.expression,
    name: r.name,
    invocations: r.invocations,
    timezone: r.timezone,
    status: r.status,
    endpoint: r.endpoint,
    data: nullableObjectFromColumn(r.data),
    createdAt: r.created_at,
    nextInvocation: r.next_invocation,
    retry: {
      maxAttempts: r.retry_max_attempts,
      initialDelayMs: r.retry_initial_delay_ms,
      maxDelayMs: r.retry_max_delay_ms,
    },
    timeoutMs: r.timeout_ms,
    misfire: r.misfire,
    overlap: r.overlap,
    lastInvocation: r.last_invocation ?? null,
    lastStatus: r.last_status ?? null,
  };
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
 * every job (`cron_jobs_by_created`) or one status (its partial index
 * `cron_jobs_<status>_by_created`, the status written into the statement). A null name never
 * matches a name filter (`instr` of NULL is NULL).
 */
export const CRON_PAGE_SQL = {
  all: tableScan(''),
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
      `INSERT INTO cron_jobs (id, expression, name, timezone, status, endpoint, data, invocations, next_invocation, created_at,
         retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, timeout_ms, misfire, overlap)
       VALUES (:id, :expression, :name, :timezone, 'Active', :endpoint, :data, 0, :nextInvocation, :now,
         :maxAttempts, :initialDelayMs, :maxDelayMs, :timeoutMs, :misfire, :overlap)`,
    );
    this.byId = db.prepare<[string], CronRow>(`${CRON_SELECT} WHERE c.id = ?`);
    this.all = db.prepare<[], CronRow>(`${CRON_SELECT} ORDER BY c.created_at, c.id`);
    this.pageScan = {
      all: db.prepare<[object], ScanRow>(CRON_PAGE_SQL.all),
      status: new Map(STATUSES.map((st) => [st, db.prepare<[object], ScanRow>(CRON_PAGE_SQL.status[st])])),
    };
    this.byIds = db.prepare<[string], CronRow>(
      `${CRON_SELECT} WHERE c.id IN (SELECT value FROM json_each(?)) ORDER BY c.created_at, c.id`,
    );
    // A deferred transaction: the scan and the read of the rows see one snapshot.
    this.pageTx = db.transaction((p: CronPageParams) => this.pageIn(p));
    this.write = db.prepare<[object]>(
      `UPDATE cron_jobs SET expression = :expression, name = :name, timezone = :timezone, status = :status,
         endpoint = :endpoint, data = :data, next_invocation = :nextInvocation,
         retry_max_attempts = :maxAttempts, retry_initial_delay_ms = :initialDelayMs,
         retry_max_delay_ms = :maxDelayMs, timeout_ms = :timeoutMs, misfire = :misfire, overlap = :overlap
       WHERE id = :id`,
    );
    this.remove = db.prepare<[string]>('DELETE FROM cron_jobs WHERE id = ?');
    // Read, patch, recompute, write in one IMMEDIATE transaction: no claim can advance the job
    // between the read and the write, so `recompute` never works on a stale occurrence.
    this.updateTx = db.transaction((p: CronUpdateParams): CronJob | null => {
      const row = this.byId.get(p.id);
      if (!row) return null;
      const current = cronFromRow(row);
      const patched: CronJob = {
        ...current,
        ...(p.expression !== undefined && { expression: p.expression }),
        ...(p.name !== undefined && { name: p.name }),
        ...(p.timezone !== undefined && { timezone: p.timezone }),
        ...(p.status !== undefined && { status: p.status }),
        ...(p.endpoint !== undefined && { endpoint: p.endpoint }),
        ...(p.data !== undefined && { data: p.data }),
        ...(p.retry !== undefined && { retry: { ...p.retry } }),
        ...(p.timeoutMs !== undefined && { timeoutMs: p.timeoutMs }),
        ...(p.misfire !== undefined && { misfire: p.misfire }),
        ...(p.overlap !== undefined && { overlap: p.overlap }),
      };
      // Whole ms, rounded up: never early. (The object handed to recompute is not mutated.)
      const nextInvocation = p.recompute
        ? Math.ceil(p.recompute({ ...patched, retry: { ...patched.retry } }))
        : patched.nextInvocation;
      this.write.run({
        ...bindSettings(patched),
        id: patched.id,
        expression: patched.expression,
        name: patched.name,
        timezone: patched.timezone,
        status: patched.status,
        endpoint: patched.endpoint,
        nextInvocation,
        data: patched.data === null ? null : JSON.stringify(patched.data),
      });
      return cronFromRow(this.byId.get(p.id)!);
    });
  }

  create(p: CronCreateParams): CronJob {
    this.insert.run({
      ...bindSettings(p),
      id: p.id,
      expression: p.expression,
      name: p.name ?? null,
      timezone: p.timezone ?? null,
      endpoint: p.endpoint,
      data: p.data == null ? null : JSON.stringify(p.data),
      nextInvocation: p.nextInvocation,
      now: p.now,
    });
    return this.get(p.id)!;
  }

  get(id: string): CronJob | null {
    const r = this.byId.get(id);
    return r ? cronFromRow(r) : null;
  }

  list(): CronJob[] {
    return this.all.all().map(cronFromRow);
  }

  /** See `Store.cronPage`. */
  page(p: CronPageParams): { cronJobs: CronJob[]; nextCursor: string | null } {
    return this.pageTx(p);
  }

  /** Scans from the cursor by status or over every job (see schedules.ts `pageIn`), then reads the hits. */
  private pageIn(p: CronPageParams): { cronJobs: CronJob[]; nextCursor: string | null } {
    const limit = Math.max(1, Math.floor(p.limit));
    const start = startOf(p.cursor);
    const scan = scanBound(limit, p.scan);
    // An unknown status has no index: the scan over every job then finds nothing, within its bound.
    const stmt = (p.status === null ? undefined : this.pageScan.status.get(p.status)) ?? this.pageScan.all;
    const params = { at: start.at, id: start.id, scan, status: p.status, name: p.name === null ? null : foldNameNeedle(p.name) };
    const { hits, scanEnd } = scanPage(stmt, params, limit, scan);
    const { rows, nextCursor } = cutPage(hits, limit, (r) => ({ at: r.created_at, id: r.id }), scanEnd);
    const cronJobs = rows.length === 0 ? [] : this.byIds.all(JSON.stringify(rows.map((r) => r.id))).map(cronFromRow);
    return { cronJobs, nextCursor };
  }

  update(p: CronUpdateParams): CronJob | null {
    return this.updateTx.immediate(p);
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }
}

/** Named parameters of the delivery settings and policies of a job. */
function bindSettings(j: Pick<CronJob, 'retry' | 'timeoutMs' | 'misfire' | 'overlap'>) {
  return {
    maxAttempts: j.retry.maxAttempts,
    initialDelayMs: j.retry.initialDelayMs,
    maxDelayMs: j.retry.maxDelayMs,
    timeoutMs: j.timeoutMs,
    misfire: j.misfire,
    overlap: j.overlap,
  };
}
