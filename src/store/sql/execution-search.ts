/**
 * The list of executions across jobs (`Store.executionSearch`) and the bulk replay
 * (`Store.executionsReplay`), written once for both stores: which index each filter walks, and the
 * statement, valid in both dialects, that reads a page's keys. Each database only says how a
 * parameter is written (`?` or `$n::type`) and runs the statement.
 *
 * The page is index-backed whatever the filter (docs/interface.md, "Executions across jobs"): the
 * statement is a UNION ALL of branches, each a backward range search of one index, each stopped
 * at `limit + 1` keys, merged and cut to `limit + 1`. A branch reads `(scheduled_for, id)` only,
 * from the index, so a page reads at most (branches × (limit + 1)) index entries, then its rows by
 * primary key:
 * - a job (`jobId`): `executions_by_job` (job_type, job_id, scheduled_for, id), one branch per kind
 *   (both kinds when `jobType` is not given); statuses, if any, are checked on the rows of that
 *   job (so such a page costs at most that job's executions between the bounds);
 * - otherwise: one branch per kind and status (every status when the filter gives none):
 *   `executions_by_type_status_time` (job_type, status, scheduled_for, id), partial on every
 *   status but Running, so that an execution costs the hot path one index entry (written when it
 *   leaves Running) instead of an entry per status change; the Running branch reads
 *   `executions_running_lease` (Running executions only: as many as the calls in flight and the
 *   leases held, whatever the history) and sorts them. Statuses are written as literals, so that
 *   the partial indexes' predicates are seen to hold (SQLite proves a partial index usable only
 *   from the same terms), and the Running branch compares `job_type || ''`, no index term, so
 *   that no planner walks every execution of a kind instead.
 * `from` and `to` (on `scheduled_for`) and the cursor bound the range of every branch.
 */
import { EXECUTION_STATUSES, JOB_TYPES } from '../../domain/enums.js';
import type { AuditRecord } from '../../domain/audit.js';
import type { ExecutionStatus, JobType } from '../../domain/types.js';
import { encodeCursor, startOf } from '../rules/paging.js';

/** Filters of the executions list; null or empty: not filtered. Instants in epoch ms (UTC). */
export interface ExecutionFilter {
  /** Only these statuses (any of them); empty: every status. */
  statuses: readonly ExecutionStatus[];
  jobType: JobType | null;
  jobId: string | null;
  /** `scheduledFor >= from`. */
  from: number | null;
  /** `scheduledFor < to`. */
  to: number | null;
}

/** Params of `Store.executionSearch`: the filter, executions per page (1–1,000) and the cursor. */
export interface ExecutionSearchParams extends ExecutionFilter {
  limit: number;
  /** The `nextCursor` of the previous page (the form of paging.ts), or null. */
  cursor: string | null;
}

/** Params of `Store.executionsReplay`: Failed executions within the filter, at most `limit` of them, newest first. */
export interface ExecutionsReplayParams {
  /** When given (and something is replayed), the event `execution.bulkReplay` in the same transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
  jobType: JobType | null;
  jobId: string | null;
  from: number | null;
  to: number | null;
  /** Epoch ms (UTC): the replayed executions are due then. */
  now: number;
  /** At most this many (the service passes {@link REPLAY_MAX}). */
  limit: number;
}

/** Most executions one bulk replay reopens (`POST /executions/replay`). */
export const REPLAY_MAX = 10_000;

/** Writes the placeholder of the next parameter (1-based `n`), of SQL type `type`, in a dialect. */
export type Placeholder = (n: number, type: 'text' | 'bigint') => string;

/** A statement and its positional parameters, in the order of their placeholders. */
export interface BoundSql {
  sql: string;
  params: unknown[];
}

/**
 * The statement that reads the keys `(scheduled_for, id)` of a page of executions, newest first,
 * at most `limit` of them (the caller asks for one more than its page). Also the selection of a
 * bulk replay (`statuses: ['Failed']`, no cursor) with `jobExists`: only executions whose job
 * still exists.
 * @param cursor the position to continue strictly after, or null
 */
export function searchKeysSql(
  f: ExecutionFilter,
  cursor: { at: number; id: string } | null,
  limit: number,
  ph: Placeholder,
  jobExists = false,
): BoundSql {
  const params: unknown[] = [];
  const p = (value: unknown, type: 'text' | 'bigint') => {
    params.push(value);
    return ph(params.length, type);
  };
  const kinds: readonly JobType[] = f.jobType === null ? JOB_TYPES : [f.jobType];
  const statuses = [...new Set(f.statuses)].filter((s) => EXECUTION_STATUSES.includes(s));
  const branches: string[] = [];
  const branch = (where: string[], kind: JobType) => {
    if (f.from !== null) where.push(`scheduled_for >= ${p(f.from, 'bigint')}`);
    if (f.to !== null) where.push(`scheduled_for < ${p(f.to, 'bigint')}`);
    if (cursor !== null) where.push(`(scheduled_for, id) < (${p(cursor.at, 'bigint')}, ${p(cursor.id, 'text')})`);
    if (jobExists) {
      const table = kind === 'schedule' ? 'schedules' : 'cron_jobs';
      where.push(`EXISTS (SELECT 1 FROM ${table} j WHERE j.id = executions.job_id)`);
    }
    branches.push(
      `SELECT * FROM (SELECT scheduled_for, id FROM executions WHERE ${where.join(' AND ')}
   ORDER BY scheduled_for DESC, id DESC LIMIT ${p(limit, 'bigint')}) b${branches.length}`,
    );
  };
  for (const kind of kinds) {
    if (f.jobId !== null) {
      const where = [`job_type = ${p(kind, 'text')}`, `job_id = ${p(f.jobId, 'text')}`];
      // Checked on the job's rows: `status || ''` is no index term, so the planner keeps
      // executions_by_job instead of walking every execution of a status of this kind.
      if (statuses.length > 0) where.push(`(status || '') IN (${statuses.map((s) => p(s, 'text')).join(', ')})`);
      branch(where, kind);
    } else {
      for (const s of statuses.length > 0 ? statuses : EXECUTION_STATUSES) {
        if (s === 'Running') branch([`status = 'Running'`, `(job_type || '') = ${p(kind, 'text')}`], kind);
        else branch([`job_type = ${p(kind, 'text')}`, `status = '${s}'`, `status <> 'Running'`], kind);
      }
    }
  }
  const sql = `SELECT scheduled_for, id FROM (
  ${branches.join('\n  UNION ALL\n  ')}) u
 ORDER BY scheduled_for DESC, id DESC LIMIT ${p(limit, 'bigint')}`;
  return { sql, params };
}

/**
 * The statement of a page of `Store.executionSearch`: the keys of the page's executions, newest
 * first, `limit + 1` of them at most (one more than the page tells whether another follows; see
 * `store/rows/executions.ts` `executionPage`). The rows are then read by primary key (a second
 * statement of a handful of ids, so that no planner ever prefers a scan of the table to join them)
 * and put back in the keys' order with {@link inKeyOrder}.
 * @throws InvalidInputError (path `/query/cursor`) for a cursor not made by this service
 */
export function searchPageSql(p: ExecutionSearchParams, ph: Placeholder): { keys: BoundSql; limit: number } {
  const limit = Math.max(1, Math.floor(p.limit));
  const cursor = p.cursor === null ? null : startOf(p.cursor);
  return { limit, keys: searchKeysSql(p, cursor, limit + 1, ph) };
}

/** A key the statement of {@link searchPageSql} answers: `scheduled_for` (epoch ms) and `id`. */
export interface SearchKey {
  scheduled_for: number | string;
  id: string;
}

/**
 * The ids of a page from its keys (at most `limit + 1` of them), and its `nextCursor`: after the
 * page's last key when a key follows, else null. Taken from the keys, not from the rows read
 * after them, so that a row pruned between the two statements never ends the list early.
 */
export function pageOfKeys(keys: readonly SearchKey[], limit: number): { ids: string[]; nextCursor: string | null } {
  const page = keys.slice(0, limit);
  const last = page[page.length - 1];
  return {
    ids: page.map((k) => k.id),
    nextCursor: keys.length > limit && last ? encodeCursor({ at: Number(last.scheduled_for), id: last.id }) : null,
  };
}

/** `rows` (read by id, in any order) in the order of `ids`; an id without a row (pruned meanwhile) is left out. */
export function inKeyOrder<R extends { id: string }>(ids: readonly string[], rows: readonly R[]): R[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The statement selecting the ids a bulk replay reopens (Failed, within the filter, job still there, newest first). */
export function replaySelectionSql(p: ExecutionsReplayParams, ph: Placeholder): BoundSql {
  const f: ExecutionFilter = { statuses: ['Failed'], jobType: p.jobType, jobId: p.jobId, from: p.from, to: p.to };
  return searchKeysSql(f, null, Math.max(0, Math.floor(p.limit)), ph, true);
}

/**
 * What a replay writes on an execution (the same for one and for many, both stores): `Retrying`,
 * due at once (`next_attempt_at` = now), not finished, no error, no lease, and a fresh attempt
 * budget: `retry_base` = the attempts made so far, so the job's current `retry.maxAttempts` counts
 * from the next attempt (number `attempt + 1`, the same execution, hence the same `webhook-id`).
 * `now` is the placeholder of the replay's instant.
 */
export function replaySetSql(now: string): string {
  return `status = 'Retrying', next_attempt_at = ${now}, finished_at = NULL, error = NULL,
       lease_owner = NULL, lease_expires_at = NULL, retry_base = attempt`;
}
