import type { JsonObject, Schedule, ScheduleStatus } from '../../domain/types.js';
import type { ScheduleCreateParams, ScheduleUpdateParams } from '../store.js';
import type { Sql } from './connection.js';
import { notifySql } from './notify.js';

interface ScheduleRow {
  id: string;
  name: string;
  scheduled_at: number;
  status: ScheduleStatus;
  endpoint: string;
  data: JsonObject | null;
  tags: string[] | null;
  created_at: number;
  retry_max_attempts: number;
  retry_initial_delay_ms: number;
  retry_max_delay_ms: number;
  timeout_ms: number;
}

const COLUMNS =
  'id, name, scheduled_at, status, endpoint, data, tags, created_at, ' +
  'retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, timeout_ms';

function fromRow(r: ScheduleRow): Schedule {
  return {
    id: r.id,
    name: r.name,
    scheduledAt: r.scheduled_at,
    status: r.status,
    endpoint: r.endpoint,
    data: r.data ?? {},
    tags: r.tags ?? [],
    createdAt: r.created_at,
    retry: {
      maxAttempts: r.retry_max_attempts,
      initialDelayMs: r.retry_initial_delay_ms,
      maxDelayMs: r.retry_max_delay_ms,
    },
    timeoutMs: r.timeout_ms,
  };
}

/** What the schedule queries need besides SQL: the NOTIFY channel and the clock mode. */
export interface NotifyContext {
  channel: string;
  clock: 'database' | 'caller';
}

/** The `schedules` table. Each method is one statement (atomic on its own). */
export const schedules = {
  /** Inserts a Pending schedule and, in the same statement, announces it when due soon (notify.ts). */
  async create(sql: Sql, n: NotifyContext, p: ScheduleCreateParams): Promise<Schedule> {
    const [r] = await sql.rows<ScheduleRow>(
      `WITH ins AS (
         INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at,
           retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, timeout_ms)
         VALUES ($1, $2, $3, 'Pending', $4, $5::json, $6::json, $7, $8, $9, $10, $11)
         RETURNING ${COLUMNS})
       SELECT ins.*, ${notifySql('ins.scheduled_at', '$12', n.clock)} AS notified FROM ins`,
      [
        p.id,
        p.name,
        p.scheduledAt,
        p.endpoint,
        JSON.stringify(p.data ?? {}),
        JSON.stringify(p.tags ?? []),
        p.now,
        p.retry.maxAttempts,
        p.retry.initialDelayMs,
        p.retry.maxDelayMs,
        p.timeoutMs,
        n.channel,
      ],
      `punctual_schedule_create_${n.clock}`,
    );
    return fromRow(r!);
  },

  async get(sql: Sql, id: string): Promise<Schedule | null> {
    const [r] = await sql.rows<ScheduleRow>(`SELECT ${COLUMNS} FROM schedules WHERE id = $1`, [id], 'punctual_schedule_get');
    return r ? fromRow(r) : null;
  },

  /** Oldest first; `seq` orders schedules created in the same ms by insertion (SQLite: rowid). */
  async list(sql: Sql): Promise<Schedule[]> {
    return (await sql.rows<ScheduleRow>(`SELECT ${COLUMNS} FROM schedules ORDER BY created_at, seq`)).map(fromRow);
  },

  /**
   * Every column is NOT NULL, so NULL stands for "absent" and coalesce keeps the old value; the
   * status test is in the same statement as the write (atomic). A new `scheduledAt` is announced.
   */
  async update(sql: Sql, n: NotifyContext, p: ScheduleUpdateParams): Promise<Schedule | 'not_found' | 'not_pending'> {
    const [r] = await sql.rows<ScheduleRow>(
      `WITH u AS (
         UPDATE schedules SET
           name = coalesce($2, name),
           scheduled_at = coalesce($3, scheduled_at),
           endpoint = coalesce($4, endpoint),
           data = coalesce($5::json, data),
           tags = coalesce($6::json, tags),
           retry_max_attempts = coalesce($7, retry_max_attempts),
           retry_initial_delay_ms = coalesce($8, retry_initial_delay_ms),
           retry_max_delay_ms = coalesce($9, retry_max_delay_ms),
           timeout_ms = coalesce($10, timeout_ms)
         WHERE id = $1 AND status = 'Pending'
         RETURNING ${COLUMNS})
       SELECT u.*, ${notifySql('CASE WHEN $3::bigint IS NULL THEN NULL ELSE u.scheduled_at END', '$11', n.clock)} AS notified FROM u`,
      [
        p.id,
        p.name ?? null,
        p.scheduledAt ?? null,
        p.endpoint ?? null,
        p.data == null ? null : JSON.stringify(p.data),
        p.tags == null ? null : JSON.stringify(p.tags),
        p.retry?.maxAttempts ?? null,
        p.retry?.initialDelayMs ?? null,
        p.retry?.maxDelayMs ?? null,
        p.timeoutMs ?? null,
        n.channel,
      ],
    );
    if (r) return fromRow(r);
    const exists = await sql.rows('SELECT 1 FROM schedules WHERE id = $1', [p.id]);
    return exists.length > 0 ? 'not_pending' : 'not_found';
  },

  async delete(sql: Sql, id: string): Promise<boolean> {
    return (await sql.count('DELETE FROM schedules WHERE id = $1', [id])) > 0;
  },
};
