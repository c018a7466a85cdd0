import { SCHEDULE_STATUSES } from '../../../domain/enums.js';
import type { Schedule } from '../../../domain/types.js';
import { bulkWhere, type BulkResult, type ScheduleBulkParams } from '../../rules/bulk.js';
import { SCHEDULE_TABLE } from '../../rules/paging.js';
import * as rowMap from '../../rows/jobs.js';
import type { ScheduleCreateParams, SchedulePageParams, ScheduleUpdateParams } from '../../store.js';
import { PG_PLACEHOLDER, type NotifyContext, type Sql, type PgContext } from '../connection.js';
import { notifySql } from '../notify.js';
import { jobPageQuery, jobPageSql, pageOf, type PageRow } from './paging.js';
import type { Operations } from '../../sql-store.js';

/**
 * Most groups of creates written at once (group-commit.ts `maxInFlight`), each on its own pool
 * connection. Measured with `npm run bench -- --scenario ingest --store postgres` (64 clients, the
 * 2-core machine of docs/benchmarks.md, one run each): 1 → 2,194 req/s, 2 → 2,599 req/s,
 * 4 → 2,157 req/s (one at a time before group commit: 1,220 req/s). Past 2 the groups get
 * smaller and the server, PostgreSQL and the clients already share the two cores.
 */
export const CREATE_FLUSHES = 2;

const COLUMNS = rowMap.columnList(rowMap.SCHEDULE_COLUMNS);
const fromRow = (r: rowMap.ScheduleRow): Schedule => rowMap.scheduleFromRow(rowMap.PASS_THROUGH, r);

/** The page statement of each driver (paging.ts `jobPageSql`). */
export const SCHEDULE_PAGE_SQL = jobPageSql(SCHEDULE_TABLE, SCHEDULE_STATUSES, {
  alias: 's',
  select: rowMap.columnList(rowMap.SCHEDULE_COLUMNS, 's'),
  join: '',
});

/** Casts of the schedule patch's parameters that `pg` cannot infer from their columns. */
const PATCH_CASTS: Partial<Record<rowMap.SchedulePatchParam, string>> = {
  data: 'json',
  tags: 'json',
  headers: 'json',
  auth: 'json',
  secrets: 'json',
  success_statuses: 'json',
  body: 'text',
  key: 'text',
  key_set: 'int',
  body_set: 'int',
  auth_set: 'int',
  secrets_set: 'int',
  retry_delays_ms: 'json',
  retry_delays_ms_set: 'int',
};

/** A patch parameter as `$n` (its place in SCHEDULE_PATCH_PARAMS), with its cast. */
function patchParam(name: rowMap.SchedulePatchParam): string {
  const cast = PATCH_CASTS[name];
  return `$${rowMap.SCHEDULE_PATCH_PARAMS.indexOf(name) + 1}${cast === undefined ? '' : `::${cast}`}`;
}

/** The `schedules` table. Each method is one statement (atomic on its own). */
export const schedules = {
  /** Inserts a Pending schedule and, in the same statement, announces it when due soon (notify.ts). */
  async create(sql: Sql, n: NotifyContext, p: ScheduleCreateParams): Promise<Schedule> {
    const [r] = await sql.rows<rowMap.ScheduleRow>(
      `WITH ins AS (
         INSERT INTO schedules (${COLUMNS}) VALUES (${rowMap.columnList(rowMap.SCHEDULE_COLUMNS.map((_, i) => `$${i + 1}`))})
         RETURNING ${COLUMNS})
       SELECT ins.*, ${notifySql('ins.scheduled_at', `$${rowMap.SCHEDULE_COLUMNS.length + 1}`, n.clock)} AS notified FROM ins`,
      [...rowMap.valuesOf(rowMap.scheduleToRow(rowMap.newSchedule(p)), rowMap.SCHEDULE_COLUMNS), n.channel],
      `punctual_schedule_create_${n.clock}`,
    );
    return fromRow(r!);
  },

  /**
   * Inserts Pending schedules in one statement (atomic), and announces the earliest when it is
   * due soon. At most 65,535 parameters per statement: ~3,000 schedules of 20 columns.
   * @returns them in the order of `ps`
   */
  async createMany(sql: Sql, n: NotifyContext, ps: ScheduleCreateParams[]): Promise<Schedule[]> {
    const width = rowMap.SCHEDULE_COLUMNS.length;
    const rows = ps.map((p, r) => `(${rowMap.columnList(rowMap.SCHEDULE_COLUMNS.map((_, c) => `$${r * width + c + 1}`))})`);
    const values = ps.flatMap((p) => rowMap.valuesOf(rowMap.scheduleToRow(rowMap.newSchedule(p)), rowMap.SCHEDULE_COLUMNS));
    const answer = await sql.rows<rowMap.ScheduleRow>(
      `WITH ins AS (INSERT INTO schedules (${COLUMNS}) VALUES ${rows.join(', ')} RETURNING ${COLUMNS}),
       announced AS (SELECT ${notifySql('(SELECT min(scheduled_at) FROM ins)', `$${values.length + 1}`, n.clock)} AS notified)
       SELECT ins.* FROM ins, announced`,
      [...values, n.channel],
    );
    const byId = new Map(answer.map((r) => [r.id, fromRow(r)]));
    return ps.map((p) => byId.get(p.id)!);
  },

  async get(sql: Sql, id: string): Promise<Schedule | null> {
    const [r] = await sql.rows<rowMap.ScheduleRow>(`SELECT ${COLUMNS} FROM schedules WHERE id = $1`, [id], 'punctual_schedule_get');
    return r ? fromRow(r) : null;
  },

  /** Oldest first: by created_at, then id (UUID v7: the order of creation within one ms). */
  async list(sql: Sql): Promise<Schedule[]> {
    return (await sql.rows<rowMap.ScheduleRow>(`SELECT ${COLUMNS} FROM schedules ORDER BY created_at, id`)).map(fromRow);
  },

  /**
   * See `Store.schedulePage`: one statement (paging.ts), driven by the key, else the first tag,
   * else the status, else every schedule.
   */
  async page(sql: Sql, p: SchedulePageParams): Promise<{ schedules: Schedule[]; nextCursor: string | null }> {
    const q = jobPageQuery(SCHEDULE_PAGE_SQL, p);
    const { rows, nextCursor } = pageOf(await sql.rows<PageRow<rowMap.ScheduleRow>>(q.text, q.values), q.limit);
    return { schedules: rows.map(fromRow), nextCursor };
  },

  /**
   * NULL stands for "absent" and coalesce keeps the old value, but for the columns a patch may clear,
   * whose `_set` flag says (store/rows/jobs.ts); the status test is in the same statement as the write (atomic).
   * A new `scheduledAt` is announced.
   */
  async update(sql: Sql, n: NotifyContext, p: ScheduleUpdateParams): Promise<Schedule | 'not_found' | 'not_pending'> {
    const [r] = await sql.rows<rowMap.ScheduleRow>(
      `WITH u AS (
         UPDATE schedules SET
         ${rowMap.schedulePatchSet(patchParam)}
         WHERE id = $1 AND status = 'Pending'
         RETURNING ${COLUMNS})
       SELECT u.*, ${notifySql('CASE WHEN $3::bigint IS NULL THEN NULL ELSE u.scheduled_at END', `$${rowMap.SCHEDULE_PATCH_PARAMS.length + 1}`, n.clock)} AS notified FROM u`,
      // $1…$N: the patch parameters (SCHEDULE_PATCH_PARAMS) in order; then the channel.
      [...rowMap.valuesOf(rowMap.schedulePatchToRow(p), rowMap.SCHEDULE_PATCH_PARAMS), n.channel],
    );
    if (r) return fromRow(r);
    const exists = await sql.rows('SELECT 1 FROM schedules WHERE id = $1', [p.id]);
    return exists.length > 0 ? 'not_pending' : 'not_found';
  },

  async delete(sql: Sql, id: string): Promise<boolean> {
    return (await sql.count('DELETE FROM schedules WHERE id = $1', [id])) > 0;
  },

  /** See `Store.scheduleBulk` (store/rules/bulk.ts): one statement, atomic on its own. */
  async bulk(sql: Sql, p: ScheduleBulkParams): Promise<BulkResult> {
    const w = bulkWhere(SCHEDULE_TABLE, 's', p.filter, null, PG_PLACEHOLDER);
    if (p.dryRun) {
      const [r] = await sql.rows<{ n: number }>(`SELECT count(*)::int AS n FROM schedules AS s WHERE ${w.sql}`, w.params);
      return { count: r?.n ?? 0, wakeAt: null };
    }
    return { count: await sql.count(`DELETE FROM schedules AS s WHERE ${w.sql}`, w.params), wakeAt: null };
  },
};

/** The store operations of schedules (store/sql-store.ts). */
export const scheduleOperations = {
  scheduleCreateMany: async (c, rows) => {
    const n = await c.notifyContext();
    // A group of one row uses the prepared single-row statement.
    return rows.length === 1 ? Promise.all([schedules.create(c.sql, n, rows[0]!)]) : schedules.createMany(c.sql, n, rows);
  },
  scheduleGet: (c, p) => schedules.get(c.sql, p.id),
  scheduleList: (c) => schedules.list(c.sql),
  schedulePage: (c, p) => schedules.page(c.sql, p),
  scheduleUpdate: async (c, p) => schedules.update(c.sql, await c.notifyContext(), p),
  scheduleDelete: (c, p) => schedules.delete(c.sql, p.id),
  scheduleBulk: (c, p) => schedules.bulk(c.sql, p),
} satisfies Partial<Operations<PgContext>>;
