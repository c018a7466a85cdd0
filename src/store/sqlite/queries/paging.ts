/**
 * Page scans of the job lists (the shared rules are in store/rules/paging.ts): a statement
 * walks an index in list order and flags each row that matches the filters; it is read row by row
 * and left as soon as the page is full, so a page costs the rows it needs, at most
 * `PAGE_SCAN_MAX`.
 */
import { cutPage, jobPageBounds, pageTags, type JobTable, type ListPosition } from '../../rules/paging.js';
import type { Placeholder } from '../../sql/execution-search.js';
import type { JobPageParams } from '../../store.js';
import type { Db } from '../connection.js';

/** SQLite's placeholders: positional, untyped (the statements of ../execution-search.ts and store/rules/bulk.ts). */
export const SQLITE_PLACEHOLDER: Placeholder = () => '?';

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

/**
 * What a page scan checks row by row, beside the driver's own condition (migration 3), for the
 * job row `j`: the status (`:status`), the name (`:name`, folded as `foldNameNeedle` does;
 * `lower()` is ASCII-only in SQLite builds without ICU, such as better-sqlite3's; a null name
 * never matches), the flow-control key (`:flowControlKey`), and tags other than the driver's (`:tags`, a JSON array; each one a primary-key
 * lookup in the tag table). Null: not checked.
 */
function pageHit(t: JobTable): string {
  return `coalesce((:status IS NULL OR j.status = :status)
   AND (:name IS NULL OR instr(lower(j.name), :name) > 0)
   AND (:flowControlKey IS NULL OR j.flow_control_key = :flowControlKey)
   AND (:tags IS NULL OR NOT EXISTS (
         SELECT 1 FROM json_each(:tags) e
          WHERE NOT EXISTS (SELECT 1 FROM ${t.tagTable} x
                             WHERE x.tag = e.value AND x.created_at = j.created_at AND x.${t.tagJob} = j.id))), 0)`;
}

/**
 * The page scans of a kind of job, in list order after (`:at`, `:id`), at most `:scan` rows, each
 * flagged with its hit, by driver (migration 3): every job (`<table>_by_created`), one status (its
 * partial index `<table>_<status>_by_created`: the status is written into the statement, as a
 * partial index is only used for a condition known when the statement is prepared), one tag (the
 * tag table's primary key, then the job by id), one key (the unique index `<table>_by_key`: at
 * most one row).
 */
export function jobPageSql<S extends string>(
  t: JobTable,
  statuses: readonly S[],
): { all: string; status: Record<S, string>; tag: string; key: string } {
  const hit = pageHit(t);
  const tableScan = (where: string) => `SELECT j.created_at, j.id, ${hit} AS hit FROM ${t.table} j
  WHERE ${where}(j.created_at, j.id) > (:at, :id) ORDER BY j.created_at, j.id LIMIT :scan`;
  return {
    all: tableScan(''),
    key: tableScan('j.key = :key AND '),
    status: Object.fromEntries(statuses.map((st) => [st, tableScan(`j.status = '${st}' AND `)])) as Record<S, string>,
    tag: `SELECT d.created_at, d.${t.tagJob} AS id, ${hit} AS hit
          FROM ${t.tagTable} d JOIN ${t.table} j ON j.id = d.${t.tagJob}
         WHERE d.tag = :tag AND (d.created_at, d.${t.tagJob}) > (:at, :id)
         ORDER BY d.created_at, d.${t.tagJob} LIMIT :scan`,
  };
}

/** A kind of job's page scans ({@link jobPageSql}), prepared once. */
export class JobPages<S extends string> {
  private readonly all;
  private readonly status;
  private readonly tag;
  private readonly key;

  constructor(db: Db, t: JobTable, statuses: readonly S[]) {
    const sql = jobPageSql(t, statuses);
    this.all = db.prepare<[object], ScanRow>(sql.all);
    this.status = new Map(statuses.map((st) => [st, db.prepare<[object], ScanRow>(sql.status[st])]));
    this.tag = db.prepare<[object], ScanRow>(sql.tag);
    this.key = db.prepare<[object], ScanRow>(sql.key);
  }

  /**
   * A page (`Store.schedulePage`, `Store.cronPage`): scans from the cursor by its driver (the key,
   * else the first tag, else the status, else every job) until `limit + 1` hits or `scanBound` rows
   * (../paging.ts), then reads the hits' rows ({@link readJobPage}).
   * @throws InvalidInputError (path `/query/cursor`) for a cursor the store did not make
   */
  page<T>(p: JobPageParams<S>, read: (idsJson: string) => T[]): { items: T[]; nextCursor: string | null } {
    const b = jobPageBounds(p);
    const key = p.key ?? null;
    const tags = pageTags(p.tags, key);
    // An unknown status (not from the API, which checks) has no index: the scan over every job
    // then finds nothing, within its bound.
    const byStatus = p.status === null ? undefined : this.status.get(p.status);
    const stmt = key !== null ? this.key : tags.driver !== null ? this.tag : (byStatus ?? this.all);
    const params = { ...b, status: p.status, tags: tags.others && JSON.stringify(tags.others), tag: tags.driver, key, flowControlKey: p.flowControlKey ?? null };
    return readJobPage(stmt, params, b.limit, b.scan, read);
  }
}

/** What {@link JobReads} reads: a kind of job's table, statuses and row select. */
export interface JobReadsSpec<S extends string, R, T> {
  table: JobTable;
  statuses: readonly S[];
  /** `SELECT … FROM <table> [alias] …`, to which `WHERE <alias>id …` and `ORDER BY` are appended. */
  select: string;
  /** The alias of the job table in {@link select} with its dot (`c.`), or `''`. */
  alias: string;
  fromRow: (r: R) => T;
}

/**
 * The reads of a kind of job (schedules, cron jobs), prepared once: one by id, every one in list
 * order (`created_at`, `id`), and a page ({@link JobPages}) read in one deferred transaction, so
 * the scan and the read of the rows see one snapshot. The queries of each job table extend it.
 */
export class JobReads<S extends string, R, T> {
  private readonly byId;
  private readonly all;
  private readonly byIds;
  private readonly pageTx;
  private readonly fromRow;

  constructor(db: Db, spec: JobReadsSpec<S, R, T>) {
    const a = spec.alias;
    const order = `ORDER BY ${a}created_at, ${a}id`;
    this.fromRow = spec.fromRow;
    this.byId = db.prepare<[string], R>(`${spec.select} WHERE ${a}id = ?`);
    this.all = db.prepare<[], R>(`${spec.select} ${order}`);
    this.byIds = db.prepare<[string], R>(`${spec.select} WHERE ${a}id IN (SELECT value FROM json_each(?)) ${order}`);
    const pages = new JobPages(db, spec.table, spec.statuses);
    this.pageTx = db.transaction((p: JobPageParams<S>) => pages.page(p, (ids) => this.byIds.all(ids).map(this.fromRow)));
  }

  /** The job of this id, or null. */
  get(id: string): T | null {
    const row = this.byId.get(id);
    return row === undefined ? null : this.fromRow(row);
  }

  /** Every job, in list order. */
  list(): T[] {
    return this.all.all().map(this.fromRow);
  }

  /**
   * A page (`Store.schedulePage`, `Store.cronPage`; {@link JobPages.page}).
   * @throws InvalidInputError (path `/query/cursor`) for a cursor the store did not make
   */
  readPage(p: JobPageParams<S>): { items: T[]; nextCursor: string | null } {
    return this.pageTx(p);
  }
}
