import type { AuditRecord } from '../../../domain/audit.js';
import * as rules from '../../rules/audit.js';
import type { AuditPage, AuditPageParams } from '../../contract/audit.js';
import type { Db } from '../connection.js';
import type { Schedule } from '../../../domain/types.js';
import type { ScheduleCreateParams } from '../../contract/jobs.js';
import { AUDITED } from '../../rules/audited.js';
import type { Operations } from '../../sql-store.js';

/** Reads a resource's current row by id (the store's own `get`), for the state before a change. */
export type AuditReaders = Record<rules.AuditTarget<unknown>['resourceType'], (id: string) => object | null>;

/**
 * The `audit_events` table: events written inside the transaction of the change they record
 * ({@link AuditQueries.audited}), the list, the count of failed sign-ins and pruning.
 */
export class AuditQueries {
  private readonly insert;
  private readonly authFailure;
  private readonly prune;
  private readonly tx;
  private readonly pages = new Map<string, ReturnType<Db['prepare']>>();

  constructor(
    private readonly db: Db,
    private readonly readers: AuditReaders,
  ) {
    this.insert = db.prepare<[rules.AuditRow]>(rules.AUDIT_INSERT_SQL);
    this.authFailure = db.prepare<[rules.AuditRow]>(rules.AUTH_FAILURE_SQL);
    this.prune = db.prepare<[{ before: number; limit: number }]>(rules.AUDIT_PRUNE_SQL);
    this.tx = db.transaction(<T>(fn: () => T): T => fn());
  }

  /**
   * Runs `apply` (the change, which may open a transaction of its own: it becomes a savepoint)
   * and, when `record` is given, reads the row before it and writes the event after it, all in
   * one IMMEDIATE transaction: the event commits with the change or not at all. Without `record`,
   * `apply` alone (no cost).
   */
  audited<T>(record: AuditRecord | undefined, target: rules.AuditTarget<T>, apply: () => T): T {
    if (!record) return apply();
    return this.tx.immediate(() => {
      const before = target.readBefore ? this.readers[target.resourceType](target.resourceId) : null;
      const result = apply();
      const row = rules.auditRow(record, target, before, result);
      if (row) this.insert.run(row);
      return result;
    }) as T;
  }

  /**
   * Writes schedules (`write`, the group commit's transaction) with the events of the audited
   * ones (those whose params carry `audit`), in one IMMEDIATE transaction; without any, `write` alone.
   */
  createsAudited(rows: readonly ScheduleCreateParams[], write: () => Schedule[]): Schedule[] {
    if (!rows.some((r) => r.audit)) return write();
    return this.tx.immediate(() => {
      const out = write();
      for (const [i, r] of rows.entries()) if (r.audit) this.insert.run(rules.auditRow(r.audit, AUDITED.scheduleCreate(r), null, out[i]!)!);
      return out;
    }) as Schedule[];
  }

  page(p: AuditPageParams): AuditPage {
    const sql = rules.auditPageSql(p);
    let stmt = this.pages.get(sql);
    if (!stmt) this.pages.set(sql, (stmt = this.db.prepare(sql)));
    const rows = stmt.all(rules.auditPageParams(p)) as rules.AuditRow[];
    return rules.auditPageOf(rows, p.limit);
  }

  countAuthFailure(address: string, now: number): void {
    this.authFailure.run(rules.authFailureRow(address, now));
  }

  pruneOld(before: number, limit: number): number {
    return this.prune.run({ before: Math.floor(before), limit: Math.max(0, Math.floor(limit)) }).changes;
  }
}

/** The store operations of the audit log (../../sql-store.ts), on the statements of AuditQueries. */
export const auditOperations = {
  auditPage: (q, p) => q.audit.page(p),
  auditAuthFailure: (q, p) => { q.audit.countAuthFailure(p.address, p.now); },
  auditPrune: (q, p) => q.audit.pruneOld(p.before, p.limit),
} satisfies Partial<Operations<{ audit: AuditQueries }>>;
