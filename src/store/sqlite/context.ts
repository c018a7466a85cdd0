/**
 * The context of SQLite's store operations (../sql-store.ts): every prepared statement of the
 * store, as the query classes of queries/ and claim/ hold them, prepared once after the schema
 * exists; and the executor that runs the operations on the connection.
 */
import type { AuditRecord } from '../../domain/audit.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { Schedule } from '../../domain/types.js';
import type { AuditTarget } from '../rules/audit.js';
import type { SqlExecutor } from '../sql-store.js';
import type { ScheduleCreateParams } from '../store.js';
import { ClaimQueries } from './claim/claim.js';
import { toStoreError, type ConnectionOptions, type Db } from './connection.js';
import { ApiKeyQueries } from './queries/api-keys.js';
import { AuditQueries } from './queries/audit.js';
import { BackfillQueries } from './queries/backfill.js';
import { CronJobQueries } from './queries/cron-jobs.js';
import { ExecutionSearchQueries } from './queries/execution-search.js';
import { ExecutionQueries } from './queries/executions.js';
import { IdempotencyQueries } from './queries/idempotency.js';
import { NodeQueries } from './queries/nodes.js';
import { FlowControlQueries } from './queries/flow-control.js';
import { NotificationQueries } from './queries/notifications.js';
import { ScheduleQueries } from './queries/schedules.js';
import { SecretsQueries } from './queries/secrets.js';
import { SettingQueries } from './queries/settings.js';

/** Every prepared statement of the store, by table ({@link prepare}). */
export type Queries = ReturnType<typeof prepare>;

/**
 * Prepares every statement of the store on `db`.
 * @throws Error saying to migrate first when the schema is missing
 */
function prepare(db: Db) {
  try {
    const executions = new ExecutionQueries(db);
    const [apiKeys, schedules, cron, notifications] = [new ApiKeyQueries(db), new ScheduleQueries(db), new CronJobQueries(db), new NotificationQueries(db)];
    const readers = {
      apiKey: (id: string) => apiKeys.get(id),
      schedule: (id: string) => schedules.get(id),
      cronJob: (id: string) => cron.get(id),
      execution: (id: string) => executions.get(id),
      channel: (id: string) => notifications.get(id),
    };
    return {
      apiKeys,
      backfill: new BackfillQueries(db),
      schedules,
      cron,
      audit: new AuditQueries(db, readers),
      claim: new ClaimQueries(db),
      executions,
      search: new ExecutionSearchQueries(db, executions),
      settings: new SettingQueries(db),
      secrets: new SecretsQueries(db),
      idempotency: new IdempotencyQueries(db),
      nodes: new NodeQueries(db),
      flowControl: new FlowControlQueries(db),
      notifications,
    };
  } catch (err) {
    if (err instanceof Error && /no such table/.test(err.message)) {
      throw new Error('The SQLite database has no Punctual schema yet: migrate it first (`punctual migrate`).', {
        cause: err,
      });
    }
    throw err;
  }
}

/**
 * Runs the store's operations on one better-sqlite3 connection, synchronously: statements are
 * prepared on first use (they need the tables `migrate` creates), SQLite's availability errors
 * become `StoreUnavailableError` (connection.ts). Audited operations and groups of creates run in
 * one IMMEDIATE transaction with their events (queries/audit.ts).
 */
export class SqliteExecutor implements SqlExecutor<Queries> {
  private queries: Queries | undefined;
  /** One writer: the groups of creates are written one after the other. */
  readonly createsInFlight = 1;

  constructor(
    private readonly db: Db,
    readonly logger: ConnectionOptions['logger'],
  ) {}

  run<T>(fn: (q: Queries) => T): T {
    return this.guard(() => fn((this.queries ??= prepare(this.db))));
  }

  /**
   * Like {@link run}, without the prepared statements (for what runs before `migrate`).
   * @throws StoreUnavailableError when the connection is closed or SQLite reports the file unavailable
   */
  guard<T>(fn: () => T): T {
    if (!this.db.open) throw new StoreUnavailableError('The store is closed.');
    try {
      return fn();
    } catch (err) {
      throw toStoreError(err);
    }
  }

  /** Forgets the prepared statements: prepared again on next use (after `migrate`, or `close`). */
  reset(): void {
    this.queries = undefined;
  }

  audited<T>(q: Queries, record: AuditRecord | undefined, target: AuditTarget<T>, apply: (q: Queries) => T): T {
    return q.audit.audited(record, target, () => apply(q));
  }

  createsAudited(q: Queries, rows: readonly ScheduleCreateParams[], write: (q: Queries) => Schedule[]): Schedule[] {
    return q.audit.createsAudited(rows, () => write(q));
  }
}
