/**
 * Keyset paging shared by both stores (the execution history and the job lists, see
 * docs/interface.md#lists): the opaque cursor, its validation, and how a page of jobs is cut from
 * an ordered scan. The SQL that scans lives with each database; what a cursor means and when a
 * page ends is decided here once, so the two stores cannot drift apart.
 */
import { InvalidInputError } from '../../domain/errors.js';
import type { JobPageParams } from '../contract/jobs.js';

/** A position in a list: the sort key of a row (an instant in epoch ms, then the row's id). */
export interface ListPosition {
  /** Epoch ms (UTC): `createdAt` of a job, `scheduledFor` of an execution. */
  at: number;
  id: string;
}

/** Before every row: `at` below any instant, `id` below any id. Lets "first page" and "after a cursor" share one statement. */
export const FIRST_POSITION: ListPosition = Object.freeze({ at: Number.MIN_SAFE_INTEGER, id: '' });

/**
 * Most rows a page of jobs looks at. A filter the scanned index does not answer by
 * itself (a `name` substring, a second tag, a status while a tag drives the scan) is checked row
 * by row; a page stops after this many rows even when it holds fewer than `limit` jobs, and then
 * its `nextCursor` continues the scan. So a page costs at most this many index entries and row
 * lookups, whatever the number of jobs and however rare the matches.
 */
export const PAGE_SCAN_MAX = 5_000;

/**
 * Rows a page scan may look at: `requested` (default and at most {@link PAGE_SCAN_MAX}), and
 * always more than `limit`, so that a page can fill.
 */
export function scanBound(limit: number, requested?: number): number {
  return Math.max(Math.min(requested ?? PAGE_SCAN_MAX, PAGE_SCAN_MAX), limit + 1);
}

/**
 * The opaque `nextCursor` of a position: base64url of the JSON `[at, id]`. The same form in both
 * stores, so a cursor survives `migrate-store`.
 */
export function encodeCursor(p: ListPosition): string {
  return Buffer.from(JSON.stringify([p.at, p.id])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeCursor}.
 * @throws InvalidInputError (path `/query/cursor`) for anything else: not base64url, not JSON,
 *   not `[safe integer, non-empty string without U+0000]`, or longer than 400 characters
 */
export function decodeCursor(cursor: string): ListPosition {
  const bad = () => InvalidInputError.field('/query/cursor', 'must be a nextCursor returned by this list');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value.length !== 2) throw bad();
  const [at, id] = value as unknown[];
  // No NUL: PostgreSQL's text cannot hold it (a query with one would fail rather than find nothing).
  if (!Number.isSafeInteger(at) || typeof id !== 'string' || id.length === 0 || id.includes('\u0000')) throw bad();
  return { at: at as number, id };
}

/** The position to scan after: the cursor's, or {@link FIRST_POSITION} for the first page. */
export function startOf(cursor: string | null): ListPosition {
  return cursor === null ? FIRST_POSITION : decodeCursor(cursor);
}

/**
 * How a `name` filter compares (docs/interface.md#lists): a substring match in which the
 * letters A–Z match regardless of case and every other character only itself. Both stores fold
 * the stored name with an ASCII-only lower-casing in SQL (SQLite's built-in `lower()`,
 * PostgreSQL's `translate()`), which depends neither on the database's locale nor on an ICU
 * build; this folds the needle the same way.
 */
export function foldNameNeedle(name: string): string {
  return name.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * Cuts a page from a scan in list order (see {@link PAGE_SCAN_MAX}).
 * @param hits the matching rows the scan found, in order, at most `limit + 1`
 * @param limit jobs per page
 * @param scanEnd the position of the last row scanned when the scan stopped at its bound
 *   (`PAGE_SCAN_MAX` rows looked at, fewer than `limit + 1` matches), else null (the scan found
 *   `limit + 1` matches, or ran out of rows)
 * @returns the page's rows and its `nextCursor`: after the last row returned when more matches
 *   follow; after the last row scanned when the bound stopped the scan (the next page continues
 *   there; this page may then be short, even empty); null when the list ends here
 */
export function cutPage<R>(
  hits: R[],
  limit: number,
  positionOf: (row: R) => ListPosition,
  scanEnd: ListPosition | null,
): { rows: R[]; nextCursor: string | null } {
  if (hits.length > limit) {
    const rows = hits.slice(0, limit);
    return { rows, nextCursor: encodeCursor(positionOf(rows[rows.length - 1]!)) };
  }
  return { rows: hits, nextCursor: scanEnd === null ? null : encodeCursor(scanEnd) };
}

/**
 * Where a kind of job is stored, for its lists and bulk actions: its table, and the table of its
 * tags (a row per tag and job, `(tag, created_at, <tagJob>)`, kept in step with the job's `tags`
 * by triggers; see the migrations). Schedules and cron jobs are organised and filtered the same
 * way through these.
 */
export interface JobTable {
  table: 'schedules' | 'cron_jobs';
  tagTable: 'schedule_tags' | 'cron_job_tags';
  /** The column of `tagTable` holding the job's id. */
  tagJob: 'schedule_id' | 'cron_job_id';
}

/** Schedules' tables. */
export const SCHEDULE_TABLE: JobTable = Object.freeze({ table: 'schedules', tagTable: 'schedule_tags', tagJob: 'schedule_id' });

/** Cron jobs' tables. */
export const CRON_TABLE: JobTable = Object.freeze({ table: 'cron_jobs', tagTable: 'cron_job_tags', tagJob: 'cron_job_id' });

/**
 * The tags of a page filter, without repeats: the first drives the scan (its entries of the tag
 * table, in list order), the others are checked row by row (primary-key lookups), null when none.
 * With a `key` (the unique index of the job table drives: at most one row) every tag is checked
 * row by row.
 */
export function pageTags(tags: readonly string[], key: string | null = null): { driver: string | null; others: string[] | null } {
  const distinct = [...new Set(tags)];
  // A key drives (its unique index: at most one row); every tag is then checked row by row.
  if (key !== null) return { driver: null, others: distinct.length > 0 ? distinct : null };
  const [driver, ...others] = distinct;
  return { driver: driver ?? null, others: others.length > 0 ? others : null };
}

/**
 * Where a page of jobs scans, the same in both stores: `limit` (jobs per page) floored, at least
 * 1; the position after the cursor (`at`: epoch ms, `id`; see {@link startOf}); `scan`, the rows
 * the scan may look at ({@link scanBound}); `name`, the name filter folded by
 * {@link foldNameNeedle}, or null.
 * @throws InvalidInputError (path `/query/cursor`) for a cursor not made by {@link encodeCursor}
 */
export function jobPageBounds(p: JobPageParams<string>): { limit: number; at: number; id: string; scan: number; name: string | null } {
  const limit = Math.max(1, Math.floor(p.limit));
  const start = startOf(p.cursor);
  return { limit, at: start.at, id: start.id, scan: scanBound(limit, p.scan), name: p.name === null ? null : foldNameNeedle(p.name) };
}
