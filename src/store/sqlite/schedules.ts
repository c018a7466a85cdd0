import type { Schedule, ScheduleStatus } from '../../domain/types.js';
import { jobPageBounds } from '../paging.js';
import * as rowMap from '../rows.js';
import type { ScheduleCreateParams, SchedulePageParams, ScheduleUpdateParams } from '../store.js';
import type { Db } from './connection.js';
import { SQLITE_CODEC } from './json.js';
import { readJobPage, type ScanRow } from './paging.js';

const COLUMNS = rowMap.columnList(rowMap.SCHEDULE_COLUMNS);
const fromRow = (r: rowMap.ScheduleRow): Schedule => rowMap.scheduleFromRow(SQLITE_CODEC, r);

/** Named parameters of a schedule patch: `:<column>`, NULL for a field it leaves. */
type PatchBinding = ReturnType<typeof rowMap.schedulePatchToRow>;

/**
 * What a page scan checks row by row, beside the driver's own condition (migration 3): the
 * status (`:status`), the name (`:name`, folded as `foldNameNeedle` does; `lower()` is ASCII-only
 * in SQLite builds without ICU, such as better-sqlite3's), and tags other than the driver's
 * (`:tags`, a JSON array; each one a primary-key lookup in `schedule_tags`). Null: not checked.
 */
const PAGE_HIT = `((:status IS NULL OR s.status = :status)
   AND (:name IS NULL OR instr(lower(s.name), :name) > 0)
   AND (:tags IS NULL OR NOT EXISTS (
         SELECT 1 FROM json_each(:tags) j
          WHERE NOT EXISTS (SELECT 1 FROM schedule_tags t
                             WHERE t.tag = j.value AND t.created_at = s.created_at AND t.schedule_id = s.id))))`;

// Every status as a key: the compiler refuses one left out (each has its partial index).
const STATUS_KEYS: Record<ScheduleStatus, true> = { Pending: true, Running: true, Succeeded: true, Failed: true };
const STATUSES = Object.keys(STATUS_KEYS) as ScheduleStatus[];

/** A page scan of the schedules in list order after (`:at`, `:id`) `where` holds, at most `:scan`. */
const tableScan = (where: string) => `SELECT s.created_at, s.id, ${PAGE_HIT} AS hit FROM schedules s
  WHERE ${where}(s.created_at, s.id) > (:at, :id) ORDER BY s.created_at, s.id LIMIT :scan`;

/**
 * Page scans in list order after (`:at`, `:id`), at most `:scan` rows, each flagged with
 * {@link PAGE_HIT}, by driver (migration 3): every schedule (`schedules_by_created`), one status
 * (its partial index `schedules_<status>_by_created`: the status is written into the statement,
 * as a partial index is only used for a condition known when the statement is prepared), one tag
 * (`schedule_tags`' primary key, then the schedule by id), one key (the unique index
 * `schedules_by_key`, migration 18: at most one row).
 */
export const SCHEDULE_PAGE_SQL = {
  all: tableScan(''),
  key: tableScan('s.key = :key AND '),
  status: Object.fromEntries(STATUSES.map((st) => [st, tableScan(`s.status = '${st}' AND `)])) as Record<ScheduleStatus, string>,
  tag: `SELECT d.created_at, d.schedule_id AS id, ${PAGE_HIT} AS hit
          FROM schedule_tags d JOIN schedules s ON s.id = d.schedule_id
         WHERE d.tag = :tag AND (d.created_at, d.schedule_id) > (:at, :id)
         ORDER BY d.created_at, d.schedule_id LIMIT :scan`,
};

/** The `schedules` table: statements prepared once, synchronous methods (the store wraps them). */
export class ScheduleQueries {
  private readonly insert;
  private readonly byId;
  private readonly all;
  private readonly pageScan;
  private readonly byIds;
  private readonly pageTx;
  private readonly patchPending;
  private readonly exists;
  private readonly remove;
  private readonly updateTx;
  private readonly createManyTx;

  constructor(db: Db) {
    this.insert = db.prepare<[object], rowMap.ScheduleRow>(
      `INSERT INTO schedules (${COLUMNS}) VALUES (${rowMap.columnList(rowMap.SCHEDULE_COLUMNS.map((c) => `:${c}`))}) RETURNING ${COLUMNS}`,
    );
    this.byId = db.prepare<[string], rowMap.ScheduleRow>(`SELECT ${COLUMNS} FROM schedules WHERE id = ?`);
    this.all = db.prepare<[], rowMap.ScheduleRow>(`SELECT ${COLUMNS} FROM schedules ORDER BY created_at, id`);
    this.pageScan = {
      all: db.prepare<[object], ScanRow>(SCHEDULE_PAGE_SQL.all),
      status: new Map(STATUSES.map((st) => [st, db.prepare<[object], ScanRow>(SCHEDULE_PAGE_SQL.status[st])])),
      tag: db.prepare<[object], ScanRow>(SCHEDULE_PAGE_SQL.tag),
      key: db.prepare<[object], ScanRow>(SCHEDULE_PAGE_SQL.key),
    };
    this.byIds = db.prepare<[string], rowMap.ScheduleRow>(
      `SELECT ${COLUMNS} FROM schedules WHERE id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id`,
    );
    // A deferred transaction: the scan and the read of the rows see one snapshot.
    this.pageTx = db.transaction((p: SchedulePageParams) => this.pageIn(p));
    // NULL stands for "absent" and coalesce keeps the old value, but for the columns a patch may
    // clear, whose `_set` flag says (rows.ts). The status test is in the same statement as the
    // write: atomic.
    this.patchPending = db.prepare<[PatchBinding], rowMap.ScheduleRow>(
      `UPDATE schedules SET
         ${rowMap.schedulePatchSet((name) => `:${name}`)}
       WHERE id = :id AND status = 'Pending'
       RETURNING ${COLUMNS}`,
    );
    this.exists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM schedules WHERE id = ?');
    this.remove = db.prepare<[string]>('DELETE FROM schedules WHERE id = ?');
    // One IMMEDIATE transaction for a batch: all rows commit together, or none.
    this.createManyTx = db.transaction((ps: ScheduleCreateParams[]) => ps.map((p) => this.create(p)));
    this.updateTx = db.transaction((b: PatchBinding): Schedule | 'not_found' | 'not_pending' => {
      const r = this.patchPending.get(b);
      if (r) return fromRow(r);
      return this.exists.get(b.id) ? 'not_pending' : 'not_found';
    });
  }

  /** One INSERT, inside the transaction of {@link createMany}. */
  private create(p: ScheduleCreateParams): Schedule {
    return fromRow(this.insert.get(rowMap.scheduleToRow(rowMap.newSchedule(p)))!);
  }

  /**
   * See `Store.scheduleCreateMany`: one IMMEDIATE transaction, committed (and fsynced) when this
   * returns. The store writes every create through it, single ones grouped (../group-commit.ts).
   */
  createMany(ps: ScheduleCreateParams[]): Schedule[] {
    return this.createManyTx.immediate(ps);
  }

  get(id: string): Schedule | null {
    return rowMap.mappedOrNull(this.byId.get(id), fromRow);
  }

  list(): Schedule[] {
    return this.all.all().map(fromRow);
  }

  /** See `Store.schedulePage`. */
  page(p: SchedulePageParams): { schedules: Schedule[]; nextCursor: string | null } {
    return this.pageTx(p);
  }

  /**
   * Scans in list order from the cursor, by its driver (the key, else the first tag, else
   * the status, else every schedule), until `limit + 1` hits or `scanBound` rows (../paging.ts), then
   * reads the hits' rows (primary-key lookups).
   */
  private pageIn(p: SchedulePageParams): { schedules: Schedule[]; nextCursor: string | null } {
    const b = jobPageBounds(p);
    const key = p.key ?? null;
    // With a key, the key drives and every tag is checked row by row.
    const [driverTag, ...otherTags] = key === null ? [...new Set(p.tags)] : [undefined, ...new Set(p.tags)];
    // An unknown status (not from the API, which checks) has no index: the scan over every
    // schedule then finds nothing, within its bound.
    const byStatus = p.status === null ? undefined : this.pageScan.status.get(p.status);
    const stmt = key !== null ? this.pageScan.key : driverTag !== undefined ? this.pageScan.tag : (byStatus ?? this.pageScan.all);
    const params = {
      ...b,
      status: p.status,
      tags: otherTags.length > 0 ? JSON.stringify(otherTags) : null,
      tag: driverTag ?? null,
      key,
    };
    const { items, nextCursor } = readJobPage(stmt, params, b.limit, b.scan, (ids) => this.byIds.all(ids).map(fromRow));
    return { schedules: items, nextCursor };
  }

  update(p: ScheduleUpdateParams): Schedule | 'not_found' | 'not_pending' {
    return this.updateTx.immediate(rowMap.schedulePatchToRow(p));
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }
}
