import type { CronJob, CronJobStatus, ExecutionStatus, JsonObject, MisfirePolicy, OverlapPolicy } from '../../domain/types.js';
import { foldNameNeedle, scanBound, startOf } from '../paging.js';
import type { CronCreateParams, CronPageParams, CronUpdateParams } from '../store.js';
import type { Sql } from './connection.js';
import { notifySql } from './notify.js';
import { foldNameSql, pageOf, pageSql, type PageRow } from './paging.js';
import type { NotifyContext } from './schedules.js';

/** A row of `cron_jobs` joined with its newest execution, as selected by {@link CRON_SELECT}. */
export interface CronRow {
  id: string;
  expression: string;
  name: string | null;
  timezone: string | null;
  status: CronJobStatus;
  endpoint: string;
  data: JsonObject | null;
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

/** The columns of a job row, as `c.`. */
export const JOB_COLUMNS = `c.id, c.expression, c.name, c.timezone, c.status, c.endpoint, c.data,
       c.invocations, c.next_invocation, c.created_at,
       c.retry_max_attempts, c.retry_initial_delay_ms, c.retry_max_delay_ms, c.timeout_ms,
       c.misfire, c.overlap, c.last_execution_id`;

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
const AFTER = '(created_at, id) > ($1::bigint, $2::text)';

const STATUS_KEYS: Record<CronJobStatus, true> = { Active: true, Paused: true };
const STATUSES = Object.keys(STATUS_KEYS) as CronJobStatus[];

/** The page statement of each driver; a status is written into its statement (its partial index). */
export const CRON_PAGE_SQL = {
  all: pageSql({ hits: hits(AFTER), driver: `FROM cron_jobs WHERE ${AFTER}`, order: 'created_at, id' }),
  status: Object.fromEntries(
    STATUSES.map((st) => [
      st,
      pageSql({ hits: hits(`status = '${st}' AND ${AFTER}`), driver: `FROM cron_jobs WHERE status = '${st}' AND ${AFTER}`, order: 'created_at, id' }),
    ]),
  ) as Record<CronJobStatus, string>,
};

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
    data: r.data,
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

/** The `cron_jobs` table. */
export const cronJobs = {
  /** Inserts an Active job and, in the same statement, announces its first occurrence when soon. */
  async create(sql: Sql, n: NotifyContext, p: CronCreateParams): Promise<CronJob> {
    const [r] = await sql.rows<CronRow>(
      `WITH ins AS (
         INSERT INTO cron_jobs (id, expression, name, timezone, status, endpoint, data, invocations, next_invocation, created_at,
           retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, timeout_ms, misfire, overlap)
         VALUES ($1, $2, $3, $4, 'Active', $5, $6::json, 0, $7, $8, $9, $10, $11, $12, $13, $14)
         RETURNING *)
       SELECT ${JOB_COLUMNS}, NULL::bigint AS last_invocation, NULL::text AS last_status,
              ${notifySql('c.next_invocation', '$15', n.clock)} AS notified
         FROM ins AS c`,
      [
        p.id,
        p.expression,
        p.name ?? null,
        p.timezone ?? null,
        p.endpoint,
        p.data == null ? null : JSON.stringify(p.data),
        p.nextInvocation,
        p.now,
        p.retry.maxAttempts,
        p.retry.initialDelayMs,
        p.retry.maxDelayMs,
        p.timeoutMs,
        p.misfire,
        p.overlap,
        n.channel,
      ],
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

  /** See `Store.cronPage`: one statement (paging.ts), driven by the status, else every job. */
  async page(sql: Sql, p: CronPageParams): Promise<{ cronJobs: CronJob[]; nextCursor: string | null }> {
    const limit = Math.max(1, Math.floor(p.limit));
    const start = startOf(p.cursor);
    const values = [
      start.at,
      start.id,
      scanBound(limit, p.scan),
      limit,
      p.status,
      p.name === null ? null : foldNameNeedle(p.name),
    ];
    // An unknown status has no index: the scan over every job then finds nothing, within its bound.
    const text = (p.status === null ? undefined : CRON_PAGE_SQL.status[p.status]) ?? CRON_PAGE_SQL.all;
    const { rows, nextCursor } = pageOf(await sql.rows<PageRow<CronRow>>(text, values), limit);
    return { cronJobs: rows.map(cronFromRow), nextCursor };
  },

  /**
   * Read (FOR UPDATE of the job row), patch, recompute, write, in the caller's transaction: a
   * claim on another node skips the locked row (SKIP LOCKED) or waits for nothing, and cannot
   * advance the job between the read and the write, so `recompute` never works on a stale
   * occurrence. A job left Active is announced (its next occurrence, when soon).
   */
  async update(sql: Sql, n: NotifyContext, p: CronUpdateParams): Promise<CronJob | null> {
    const [row] = await sql.rows<CronRow>(`${CRON_SELECT} WHERE c.id = $1 FOR UPDATE OF c`, [p.id]);
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
    await sql.rows(
      `WITH u AS (
         UPDATE cron_jobs SET expression = $2, name = $3, timezone = $4, status = $5, endpoint = $6, data = $7::json,
           next_invocation = $8, retry_max_attempts = $9, retry_initial_delay_ms = $10, retry_max_delay_ms = $11,
           timeout_ms = $12, misfire = $13, overlap = $14
         WHERE id = $1
         RETURNING status, next_invocation)
       SELECT ${notifySql(`CASE WHEN u.status = 'Active' THEN u.next_invocation END`, '$15', n.clock)} AS notified FROM u`,
      [
        patched.id,
        patched.expression,
        patched.name,
        patched.timezone,
        patched.status,
        patched.endpoint,
        patched.data === null ? null : JSON.stringify(patched.data),
        nextInvocation,
        patched.retry.maxAttempts,
        patched.retry.initialDelayMs,
        patched.retry.maxDelayMs,
        patched.timeoutMs,
        patched.misfire,
        patched.overlap,
        n.channel,
      ],
    );
    const [updated] = await sql.rows<CronRow>(`${CRON_SELECT} WHERE c.id = $1`, [p.id]);
    return cronFromRow(updated!);
  },

  async delete(sql: Sql, id: string): Promise<boolean> {
    return (await sql.count('DELETE FROM cron_jobs WHERE id = $1', [id])) > 0;
  },
};
