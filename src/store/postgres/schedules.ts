import { SCHEDULE_STATUSES } from '../../domain/enums.js';
import type { Schedule } from '../../domain/types.js';
import { jobPageBounds } from '../paging.js';
import * as rowMap from '../rows.js';
import type { ScheduleCreateParams, SchedulePageParams, ScheduleUpdateParams } from '../store.js';
import type { Sql } from './connection.js';
import { notifySql } from './notify.js';
import { foldNameSql, keyPageSql, pageOf, pageSql, tablePageSql, type PageRow } from './paging.js';

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

/**
 * Page statements by driver (migration 2; see paging.ts): every schedule (`schedules_by_created`),
 * one status (`schedules_<status>_by_created`), one tag (`schedule_tags`, `$8`). Checked row by row:
 * the status (`$5`), the name (`$6`, folded), the other tags (`$7`, each a primary-key lookup in
 * `schedule_tags`). Null parameters are not checked.
 */
const PAGE_FILTER = `($5::text IS NULL OR s.status = $5::text)
     AND ($6::text IS NULL OR strpos(${foldNameSql('s.name')}, $6::text) > 0)
     AND ($7::text[] IS NULL OR NOT EXISTS (
           SELECT 1 FROM unnest($7::text[]) AS u (tag)
            WHERE NOT EXISTS (SELECT 1 FROM schedule_tags t
                               WHERE t.tag = u.tag AND t.created_at = s.created_at AND t.schedule_id = s.id)))`;
/** The columns of a schedule, as `s.` (the page statements join). */
const S_COLUMNS = rowMap.columnList(rowMap.SCHEDULE_COLUMNS, 's');
/** The hits of a page driven by `schedules` itself (`where`: the driver's condition). */
const tableHits = (where: string) =>
  `SELECT ${S_COLUMNS}, s.created_at AS k_at, s.id AS k_id
     FROM (SELECT * FROM schedules WHERE ${where} ORDER BY created_at, id LIMIT $3) AS s
    WHERE ${PAGE_FILTER}
    ORDER BY s.created_at, s.id LIMIT $4 + 1`;
const TAG_AFTER = 'tag = $8::text AND (created_at, schedule_id) > ($1::bigint, $2::text)';

/**
 * The page statement of each driver: the table's own (paging.ts `tablePageSql`), a key's (the
 * unique index `schedules_by_key`, migration 17; the key is `$8`), or a tag's entries.
 */
export const SCHEDULE_PAGE_SQL = {
  ...tablePageSql('schedules', SCHEDULE_STATUSES, tableHits),
  key: keyPageSql('schedules', '$8', tableHits),
  tag: pageSql({
    hits: `SELECT ${S_COLUMNS}, k.created_at AS k_at, k.schedule_id AS k_id
             FROM (SELECT created_at, schedule_id FROM schedule_tags WHERE ${TAG_AFTER}
                    ORDER BY created_at, schedule_id LIMIT $3) AS k
             JOIN schedules s ON s.id = k.schedule_id
            WHERE ${PAGE_FILTER}
            ORDER BY k.created_at, k.schedule_id LIMIT $4 + 1`,
    driver: `FROM schedule_tags WHERE ${TAG_AFTER}`,
    order: 'created_at, schedule_id',
  }),
};

/** What the schedule queries need besides SQL: the NOTIFY channel and the clock mode. */
export interface NotifyContext {
  channel: string;
  clock: 'database' | 'caller';
}

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
    const b = jobPageBounds(p);
    const key = p.key ?? null;
    // With a key, the key drives and every tag is checked row by row.
    const [driverTag, ...otherTags] = key === null ? [...new Set(p.tags)] : [undefined, ...new Set(p.tags)];
    const values: unknown[] = [b.at, b.id, b.scan, b.limit, p.status, b.name, otherTags.length > 0 ? otherTags : null];
    // An unknown status (not from the API, which checks) has no index: the scan over every
    // schedule then finds nothing, within its bound.
    let text = (p.status === null ? undefined : SCHEDULE_PAGE_SQL.status[p.status]) ?? SCHEDULE_PAGE_SQL.all;
    if (key !== null) {
      text = SCHEDULE_PAGE_SQL.key;
      values.push(key);
    } else if (driverTag !== undefined) {
      text = SCHEDULE_PAGE_SQL.tag;
      values.push(driverTag);
    }
    const { rows, nextCursor } = pageOf(await sql.rows<PageRow<rowMap.ScheduleRow>>(text, values), b.limit);
    return { schedules: rows.map(fromRow), nextCursor };
  },

  /**
   * NULL stands for "absent" and coalesce keeps the old value, but for the columns a patch may clear,
   * whose `_set` flag says (rows.ts); the status test is in the same statement as the write (atomic).
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
};
