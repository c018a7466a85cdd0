import type { Schedule, ScheduleStatus } from '../../domain/types.js';
import type { ScheduleCreateParams, ScheduleUpdateParams } from '../store.js';
import type { Db } from './connection.js';
import { objectFromColumn, stringsFromColumn } from './json.js';

interface ScheduleRow {
  id: string;
  name: string;
  scheduled_at: number;
  status: ScheduleStatus;
  endpoint: string;
  data: string | null;
  tags: string | null;
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
    data: objectFromColumn(r.data),
    tags: stringsFromColumn(r.tags),
    createdAt: r.created_at,
    retry: {
      maxAttempts: r.retry_max_attempts,
      initialDelayMs: r.retry_initial_delay_ms,
      maxDelayMs: r.retry_max_delay_ms,
    },
    timeoutMs: r.timeout_ms,
  };
}

interface PatchBinding {
  id: string;
  name: string | null;
  scheduledAt: number | null;
  endpoint: string | null;
  data: string | null;
  tags: string | null;
  maxAttempts: number | null;
  initialDelayMs: number | null;
  maxDelayMs: number | null;
  timeoutMs: number | null;
}

/** The `schedules` table: statements prepared once, synchronous methods (the store wraps them). */
export class ScheduleQueries {
  private readonly insert;
  private readonly byId;
  private readonly all;
  private readonly patchPending;
  private readonly exists;
  private readonly remove;
  private readonly updateTx;

  constructor(db: Db) {
    this.insert = db.prepare<[object], ScheduleRow>(
      `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at,
         retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, timeout_ms)
       VALUES (:id, :name, :scheduledAt, 'Pending', :endpoint, :data, :tags, :now,
         :maxAttempts, :initialDelayMs, :maxDelayMs, :timeoutMs)
       RETURNING ${COLUMNS}`,
    );
    this.byId = db.prepare<[string], ScheduleRow>(`SELECT ${COLUMNS} FROM schedules WHERE id = ?`);
    this.all = db.prepare<[], ScheduleRow>(`SELECT ${COLUMNS} FROM schedules ORDER BY created_at, rowid`);
    // Every column of a schedule is NOT NULL, so NULL can stand for "absent" and coalesce keeps
    // the old value. The status test is in the same statement as the write: atomic.
    this.patchPending = db.prepare<[PatchBinding], ScheduleRow>(
      `UPDATE schedules SET
         name = coalesce(:name, name),
         scheduled_at = coalesce(:scheduledAt, scheduled_at),
         endpoint = coalesce(:endpoint, endpoint),
         data = coalesce(:data, data),
         tags = coalesce(:tags, tags),
         retry_max_attempts = coalesce(:maxAttempts, retry_max_attempts),
         retry_initial_delay_ms = coalesce(:initialDelayMs, retry_initial_delay_ms),
         retry_max_delay_ms = coalesce(:maxDelayMs, retry_max_delay_ms),
         timeout_ms = coalesce(:timeoutMs, timeout_ms)
       WHERE id = :id AND status = 'Pending'
       RETURNING ${COLUMNS}`,
    );
    this.exists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM schedules WHERE id = ?');
    this.remove = db.prepare<[string]>('DELETE FROM schedules WHERE id = ?');
    this.updateTx = db.transaction((b: PatchBinding): Schedule | 'not_found' | 'not_pending' => {
      const r = this.patchPending.get(b);
      if (r) return fromRow(r);
      return this.exists.get(b.id) ? 'not_pending' : 'not_found';
    });
  }

  create(p: ScheduleCreateParams): Schedule {
    const r = this.insert.get({
      id: p.id,
      name: p.name,
      scheduledAt: p.scheduledAt,
      endpoint: p.endpoint,
      data: JSON.stringify(p.data ?? {}),
      tags: JSON.stringify(p.tags ?? []),
      maxAttempts: p.retry.maxAttempts,
      initialDelayMs: p.retry.initialDelayMs,
      maxDelayMs: p.retry.maxDelayMs,
      timeoutMs: p.timeoutMs,
      now: p.now,
    });
    return fromRow(r!);
  }

  get(id: string): Schedule | null {
    const r = this.byId.get(id);
    return r ? fromRow(r) : null;
  }

  list(): Schedule[] {
    return this.all.all().map(fromRow);
  }

  update(p: ScheduleUpdateParams): Schedule | 'not_found' | 'not_pending' {
    return this.updateTx.immediate({
      id: p.id,
      name: p.name ?? null,
      scheduledAt: p.scheduledAt ?? null,
      endpoint: p.endpoint ?? null,
      data: p.data == null ? null : JSON.stringify(p.data),
      tags: p.tags == null ? null : JSON.stringify(p.tags),
      maxAttempts: p.retry?.maxAttempts ?? null,
      initialDelayMs: p.retry?.initialDelayMs ?? null,
      maxDelayMs: p.retry?.maxDelayMs ?? null,
      timeoutMs: p.timeoutMs ?? null,
    });
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }
}
