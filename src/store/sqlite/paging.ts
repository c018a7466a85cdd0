/**
 * Page scans of the job lists (the shared rules are in store/paging.ts): a statement
 * walks an index in list order and flags each row that matches the filters; it is read row by row
 * and left as soon as the page is full, so a page costs the rows it needs, at most
 * `PAGE_SCAN_MAX`.
 */
import { cutPage, type ListPosition } from '../paging.js';

/** A row of a page scan: the list position of a job and whether it matches the filters (1 or 0). */
export interface ScanRow {
  created_at: number;
  id: string;
  hit: number;
}

/**
 * Runs a page scan (`PAGE_SCAN_SQL` of schedules.ts or cron-jobs.ts), stopping at the `limit + 1`th hit.
 * @returns the hits in order, and where the scan ended when it looked at `scan` rows without
 *   finding `limit + 1` hits (else null)
 */
export function scanPage(
  stmt: { iterate(params: object): IterableIterator<ScanRow> },
  params: object,
  limit: number,
  scan: number,
): { hits: ScanRow[]; scanEnd: ListPosition | null } {
  const hits: ScanRow[] = [];
  let seen = 0;
  let last: ScanRow | undefined;
  for (const row of stmt.iterate(params)) {
    seen++;
    last = row;
    if (row.hit === 1) {
      hits.push(row);
      // Leaving the loop resets the statement (better-sqlite3 closes the iterator).
      if (hits.length > limit) break;
    }
  }
  const scanEnd = hits.length <= limit && seen >= scan && last !== undefined ? { at: last.created_at, id: last.id } : null;
  return { hits, scanEnd };
}

/**
 * A page of jobs: runs the page scan ({@link scanPage}), cuts the page (`cutPage`), then reads the
 * hits' rows.
 * @param read reads the rows of the ids given as a JSON array (text), in list order
 * @returns the page's jobs and its `nextCursor` (null when the list ends here)
 */
export function readJobPage<T>(
  stmt: { iterate(params: object): IterableIterator<ScanRow> },
  params: object,
  limit: number,
  scan: number,
  read: (idsJson: string) => T[],
): { items: T[]; nextCursor: string | null } {
  const { hits, scanEnd } = scanPage(stmt, params, limit, scan);
  const { rows, nextCursor } = cutPage(hits, limit, (r) => ({ at: r.created_at, id: r.id }), scanEnd);
  return { items: rows.length === 0 ? [] : read(JSON.stringify(rows.map((r) => r.id))), nextCursor };
}
