import type { AuditRecord } from '../../../domain/audit.js';
import * as rules from '../../rules/audit.js';
import type { Schedule } from '../../../domain/types.js';
import type { AuditPage, AuditPageParams } from '../../contract/audit.js';
import type { ScheduleCreateParams } from '../../store.js';
import { apiKeys } from './api-keys.js';
import { positional, type Database, type Sql, type PgContext } from '../connection.js';
import { cronJobs } from './cron-jobs.js';
import { executions } from './executions.js';
import { notifications } from './notifications.js';
import { schedules } from './schedules.js';
import { AUDITED } from '../../rules/audited.js';
import type { Operations } from '../../sql-store.js';

/** Reads a resource's current row by id (each table's own `get`), for the state before a change. */
const READERS: Record<rules.AuditTarget<unknown>['resourceType'], (sql: Sql, id: string) => Promise<object | null>> = {
  apiKey: (sql, id) => apiKeys.get(sql, id),
  schedule: (sql, id) => schedules.get(sql, id),
  cronJob: (sql, id) => cronJobs.get(sql, id),
  execution: (sql, id) => executions.get(sql, id),
  channel: (sql, id) => notifications.get(sql, id),
};


/** Runs one statement of store/rules/audit.ts with named parameters. */
async function run(sql: Sql, text: string, params: object): Promise<number> {
  const q = positional(text, params as Record<string, unknown>);
  return sql.count(q.text, q.values);
}

/** The `audit_events` table (store/rules/audit.ts decides; only the dialect's plumbing here). */
export const audit = {
  /**
   * Runs `apply` and, when `record` is given, first locks and reads the resource's row
   * (`FOR UPDATE`: the state the change starts from) and then writes the event, all in one
   * transaction: the event commits with the change or not at all. Without `record`, `apply` as
   * before (no cost), on the pool.
   */
  async audited<T>(db: Database, record: AuditRecord | undefined, target: rules.AuditTarget<T>, apply: (sql: Sql) => Promise<T>): Promise<T> {
    if (!record) return apply(db.sql);
    return db.tx(async (sql) => {
      let before: object | null = null;
      if (target.readBefore) {
        await sql.rows(`SELECT 1 FROM ${rules.AUDIT_TABLES[target.resourceType]} WHERE id = $1 FOR UPDATE`, [target.resourceId]);
        before = await READERS[target.resourceType](sql, target.resourceId);
      }
      const result = await apply(sql);
      const row = rules.auditRow(record, target, before, result);
      if (row) await run(sql, rules.AUDIT_INSERT_SQL, row);
      return result;
    });
  },

  /**
   * Writes a group of schedule creates (`write`, one statement) and, when any carries `audit`, in
   * the same transaction the events of those (`schedule.create`).
   */
  async createsAudited(db: Database, rows: readonly ScheduleCreateParams[], write: (sql: Sql) => Promise<Schedule[]>): Promise<Schedule[]> {
    if (!rows.some((r) => r.audit)) return write(db.sql);
    return db.tx(async (sql) => {
      const out = await write(sql);
      for (const [i, r] of rows.entries()) {
        if (r.audit) await run(sql, rules.AUDIT_INSERT_SQL, rules.auditRow(r.audit, AUDITED.scheduleCreate(r), null, out[i]!)!);
      }
      return out;
    });
  },

  async page(sql: Sql, p: AuditPageParams): Promise<AuditPage> {
    const q = positional(rules.auditPageSql(p), rules.auditPageParams(p));
    return rules.auditPageOf(await sql.rows<rules.AuditRow>(q.text, q.values), p.limit);
  },

  async countAuthFailure(sql: Sql, address: string, now: number): Promise<void> {
    await run(sql, rules.AUTH_FAILURE_SQL, rules.authFailureRow(address, now));
  },

  async prune(sql: Sql, before: number, limit: number): Promise<number> {
    return run(sql, rules.AUDIT_PRUNE_SQL, { before: Math.floor(before), limit: Math.max(0, Math.floor(limit)) });
  },
};

/** The store operations of the audit log (store/sql-store.ts). */
export const auditOperations = {
  auditPage: (c, p) => audit.page(c.sql, p),
  auditAuthFailure: async (c, p) => {
    await audit.countAuthFailure(c.sql, p.address, p.now);
  },
  auditPrune: (c, p) => audit.prune(c.sql, p.before, p.limit),
} satisfies Partial<Operations<PgContext>>;
