import { SCHEDULE_STATUSES } from '../../../domain/enums.js';
import type { Schedule, ScheduleStatus } from '../../../domain/types.js';
import { bulkWhere, type BulkResult, type ScheduleBulkParams } from '../../rules/bulk.js';
import { SCHEDULE_TABLE } from '../../rules/paging.js';
import * as rowMap from '../../rows/jobs.js';
import type { ScheduleCreateParams, SchedulePageParams, ScheduleUpdateParams } from '../../store.js';
import type { Db } from '../connection.js';
import { SQLITE_CODEC } from '../connection.js';
import { jobPageSql, JobReads, SQLITE_PLACEHOLDER } from './paging.js';
import type { Operations } from '../../sql-store.js';

const COLUMNS = rowMap.columnList(rowMap.SCHEDULE_COLUMNS);
const fromRow = (r: rowMap.ScheduleRow): Schedule => rowMap.scheduleFromRow(SQLITE_CODEC, r);

/** Named parameters of a schedule patch: `:<column>`, NULL for a field it leaves. */
type PatchBinding = ReturnType<typeof rowMap.schedulePatchToRow>;

/** The page scans of schedules (paging.ts `jobPageSql`). */
export const SCHEDULE_PAGE_SQL = jobPageSql(SCHEDULE_TABLE, SCHEDULE_STATUSES);

/** The `schedules` table: statements prepared once, synchronous methods (the store wraps them). */
export class ScheduleQueries extends JobReads<ScheduleStatus, rowMap.ScheduleRow, Schedule> {
  private readonly insert;
  private readonly patchPending;
  private readonly exists;
  private readonly remove;
  private readonly updateTx;
  private readonly createManyTx;

  constructor(private readonly db: Db) {
    super(db, { table: SCHEDULE_TABLE, statuses: SCHEDULE_STATUSES, select: `SELECT ${COLUMNS} FROM schedules`, alias: '', fromRow });
    this.insert = db.prepare<[object], rowMap.ScheduleRow>(
      `INSERT INTO schedules (${COLUMNS}) VALUES (${rowMap.columnList(rowMap.SCHEDULE_COLUMNS.map((c) => `:${c}`))}) RETURNING ${COLUMNS}`,
    );
    // NULL stands for "absent" and coalesce keeps the old value, but for the columns a patch may
    // clear, whose `_set` flag says (store/rows/jobs.ts). The status test is in the same statement as the
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

  /** See `Store.schedulePage`. */
  page(p: SchedulePageParams): { schedules: Schedule[]; nextCursor: string | null } {
    const { items, nextCursor } = this.readPage(p);
    return { schedules: items, nextCursor };
  }

  update(p: ScheduleUpdateParams): Schedule | 'not_found' | 'not_pending' {
    return this.updateTx.immediate(rowMap.schedulePatchToRow(p));
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }

  /** See `Store.scheduleBulk` (store/rules/bulk.ts): one IMMEDIATE transaction. */
  bulk(p: ScheduleBulkParams): BulkResult {
    const w = bulkWhere(SCHEDULE_TABLE, 's', p.filter, null, SQLITE_PLACEHOLDER);
    return this.db
      .transaction((): BulkResult => {
        const count = p.dryRun
          ? (this.db.prepare<unknown[], number>(`SELECT count(*) FROM schedules AS s WHERE ${w.sql}`).pluck().get(...w.params) ?? 0)
          : this.db.prepare(`DELETE FROM schedules AS s WHERE ${w.sql}`).run(...w.params).changes;
        return { count, wakeAt: null };
      })
      .immediate();
  }
}

/** The store operations of schedules (../../sql-store.ts), on the statements of ScheduleQueries. */
export const scheduleOperations = {
  scheduleCreateMany: (q, p) => q.schedules.createMany(p),
  scheduleGet: (q, p) => q.schedules.get(p.id),
  scheduleList: (q) => q.schedules.list(),
  schedulePage: (q, p) => q.schedules.page(p),
  scheduleUpdate: (q, p) => q.schedules.update(p),
  scheduleDelete: (q, p) => q.schedules.delete(p.id),
  scheduleBulk: (q, p) => q.schedules.bulk(p),
} satisfies Partial<Operations<{ schedules: ScheduleQueries }>>;
