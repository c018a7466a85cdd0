import type { CronJob, CronJobStatus } from '../../domain/types.js';
import type { CronCreateParams, CronUpdateParams } from '../store.js';
import type { Db } from './connection.js';
import { nullableObjectFromColumn } from './json.js';

/** A row of `cron_jobs`, as selected with {@link CRON_COLUMNS}. */
export interface CronRow {
  id: string;
  expression: string;
  name: string | null;
  timezone: string | null;
  status: CronJobStatus;
  endpoint: string;
  data: string | null;
  invocations: number;
  next_invocation: number;
  created_at: number;
}

/** The columns of {@link CronRow}, for SELECT and RETURNING lists. */
export const CRON_COLUMNS =
  'id, expression, name, timezone, status, endpoint, data, invocations, next_invocation, created_at';

/** Row → domain object. */
export function cronFromRow(r: CronRow): CronJob {
  return {
    id: r.id,
    expression: r.expression,
    name: r.name,
    invocations: r.invocations,
    timezone: r.timezone,
    status: r.status,
    endpoint: r.endpoint,
    data: nullableObjectFromColumn(r.data),
    createdAt: r.created_at,
    nextInvocation: r.next_invocation,
  };
}

/** The `cron_jobs` table: statements prepared once, synchronous methods (the store wraps them). */
export class CronJobQueries {
  private readonly insert;
  private readonly byId;
  private readonly all;
  private readonly write;
  private readonly remove;
  private readonly updateTx;

  constructor(db: Db) {
    this.insert = db.prepare<[object], CronRow>(
      `INSERT INTO cron_jobs (id, expression, name, timezone, status, endpoint, data, invocations, next_invocation, created_at)
       VALUES (:id, :expression, :name, :timezone, 'Active', :endpoint, :data, 0, :nextInvocation, :now)
       RETURNING ${CRON_COLUMNS}`,
    );
    this.byId = db.prepare<[string], CronRow>(`SELECT ${CRON_COLUMNS} FROM cron_jobs WHERE id = ?`);
    this.all = db.prepare<[], CronRow>(`SELECT ${CRON_COLUMNS} FROM cron_jobs ORDER BY created_at, rowid`);
    this.write = db.prepare<[object], CronRow>(
      `UPDATE cron_jobs SET expression = :expression, name = :name, timezone = :timezone, status = :status,
         endpoint = :endpoint, data = :data, next_invocation = :nextInvocation
       WHERE id = :id RETURNING ${CRON_COLUMNS}`,
    );
    this.remove = db.prepare<[string]>('DELETE FROM cron_jobs WHERE id = ?');
    // Read, patch, recompute, write in one IMMEDIATE transaction: no claim can advance the job
    // between the read and the write, so `recompute` never works on a stale occurrence.
    this.updateTx = db.transaction((p: CronUpdateParams): CronJob | null => {
      const row = this.byId.get(p.id);
      if (!row) return null;
      const current = cronFromRow(row);
      const patched: CronJob = {
        ...current,
        ...(p.expression !== undefined && { expression: p.expression }),
        ...(p.name !== undefined && { name: p.name }),
        ...(p.timezone !== undefined && { timezone: p.timezone }),
        ...(p.status !== undefined && { status: p.status }),
        ...(p.endpoint !== undefined && { endpoint: p.endpoint }),
        ...(p.data !== undefined && { data: p.data }),
      };
      // Whole ms, rounded up: never early. (The object handed to recompute is not mutated.)
      const nextInvocation = p.recompute ? Math.ceil(p.recompute({ ...patched })) : patched.nextInvocation;
      return cronFromRow(
        this.write.get({
          ...patched,
          nextInvocation,
          data: patched.data === null ? null : JSON.stringify(patched.data),
        })!,
      );
    });
  }

  create(p: CronCreateParams): CronJob {
    const r = this.insert.get({
      id: p.id,
      expression: p.expression,
      name: p.name ?? null,
      timezone: p.timezone ?? null,
      endpoint: p.endpoint,
      data: p.data == null ? null : JSON.stringify(p.data),
      nextInvocation: p.nextInvocation,
      now: p.now,
    });
    return cronFromRow(r!);
  }

  get(id: string): CronJob | null {
    const r = this.byId.get(id);
    return r ? cronFromRow(r) : null;
  }

  list(): CronJob[] {
    return this.all.all().map(cronFromRow);
  }

  update(p: CronUpdateParams): CronJob | null {
    return this.updateTx.immediate(p);
  }

  delete(id: string): boolean {
    return this.remove.run(id).changes > 0;
  }
}
