import { BackfillQueries } from './queries/backfill.js';
import type { CronBackfillParams } from '../contract/executions.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type * as D from '../../domain/types.js';
import { warnPaused, type ClaimDueResult } from '../rules/claim.js';
import { GROUP_MAX_ROWS, GroupCommit } from '../group-commit.js';
import type { FinishResult } from '../rules/outcome.js';
import type * as S from '../store.js';
import type { ExecutionSearchParams, ExecutionsReplayParams } from '../sql/execution-search.js';
import type * as I from '../contract/idempotency.js';
import type { NodeRecord, NodesAtParams, NodesReaped } from '../contract/nodes.js';
import type * as N from '../contract/notifications.js';
import type { NotificationChannel, OutboxNotification } from '../../domain/notifications.js';
import type { JobSecretsEntry, SecretsPageParams, SecretsReplaceParams } from '../contract/secrets.js';
import { AUDITED } from '../rules/audited.js';
import { ApiKeyQueries } from './queries/api-keys.js';
import { AuditQueries } from './queries/audit.js';
import { ClaimQueries } from './claim/claim.js';
import {
  openConnection,
  readSettings,
  toStoreError,
  type ConnectionOptions,
  type ConnectionSettings,
  type Db,
} from './connection.js';
import { CronJobQueries } from './queries/cron-jobs.js';
import { ExecutionSearchQueries } from './queries/execution-search.js';
import { ExecutionQueries } from './queries/executions.js';
import { IdempotencyQueries } from './queries/idempotency.js';
import { migrate } from './migrations/index.js';
import { NodeQueries } from './queries/nodes.js';
import { NotificationQueries } from './queries/notifications.js';
import { ScheduleQueries } from './queries/schedules.js';
import { SecretsQueries } from './queries/secrets.js';
import { SettingQueries } from './queries/settings.js';

export type { ConnectionSettings } from './connection.js';

/** Options of {@link SqliteStore.open}. */
export type SqliteStoreOptions = ConnectionOptions;

/** Every prepared statement of the store, built once, on first use after the schema exists ({@link prepare}). */
type Queries = ReturnType<typeof prepare>;

/**
 * The embedded store: one better-sqlite3 connection to one database file (see connection.ts for
 * the durability settings and claim.ts for the dispatcher's queries).
 *
 * better-sqlite3 is synchronous; every method still returns a promise, as the `Store` contract
 * demands, so nothing above the store depends on a synchronous API. A statement runs to its end
 * before the event loop continues, so the methods of one instance never interleave.
 */
export class SqliteStore implements S.Store {
  private queries: Queries | undefined;
  private readonly pingStatement;
  /**
   * Schedule creates, single and batch, written in groups (../group-commit.ts): one writer, each
   * group one IMMEDIATE transaction, so one fsync (`synchronous = FULL`, connection.ts) for every
   * create queued in the same turn of the event loop.
   */
  private readonly creates = new GroupCommit<S.ScheduleCreateParams, D.Schedule>({
    write: (rows) => this.run((q) => q.audit.createsAudited(rows, () => q.schedules.createMany(rows))),
    maxRows: GROUP_MAX_ROWS,
    maxInFlight: 1,
  });

  private constructor(
    private readonly db: Db,
    private readonly logger: ConnectionOptions['logger'],
  ) {
    // Reads the schema page: touches the file, not only the connection object.
    this.pingStatement = db.prepare('SELECT count(*) FROM sqlite_schema');
  }

  /**
   * Opens (creating when missing) the database file at `path`. Does not migrate.
   * @throws StoreUnavailableError when the file cannot be opened as a database.
   */
  static open(path: string, opts: SqliteStoreOptions = {}): SqliteStore {
    const db = openConnection(path, opts);
    try {
      return new SqliteStore(db, opts.logger);
    } catch (err) {
      db.close();
      throw toStoreError(err);
    }
  }

  /** The connection's durability and locking settings, as SQLite reports them (for logs and tests). */
  settings(): ConnectionSettings {
    return this.guard(() => readSettings(this.db));
  }

  async migrate(): Promise<void> {
    this.guard(() => migrate(this.db));
    this.queries = undefined; // prepare again against the migrated schema
  }

  /** Idempotent. */
  async close(): Promise<void> {
    if (this.db.open) this.db.close();
    this.queries = undefined;
  }

  async ping(): Promise<void> {
    this.guard(() => this.pingStatement.get());
  }

  /** One node per SQLite file: the caller's clock decides (see Store.now). */
  async now(): Promise<number | null> {
    return null;
  }

  /** No other node can create work in this file, so there is nothing to hear: the listener is never called. */
  onWork(_listener: (dueAtMs: number) => void): () => void {
    return () => undefined;
  }

  // ---- API keys ----------------------------------------------------------------------------
  async apiKeyCreate(p: S.ApiKeyCreateParams): Promise<D.ApiKey> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.apiKeyCreate(p), () => q.apiKeys.create(p)));
  }
  async apiKeyGet(p: { id: string }): Promise<D.ApiKey | null> {
    return this.run((q) => q.apiKeys.get(p.id));
  }
  async apiKeyList(): Promise<D.ApiKey[]> {
    return this.run((q) => q.apiKeys.list());
  }
  async apiKeyUpdate(p: S.ApiKeyUpdateParams): Promise<D.ApiKey | null> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.apiKeyUpdate(p), () => q.apiKeys.update(p)));
  }
  async apiKeyDelete(p: S.AuditedId): Promise<boolean> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.apiKeyDelete(p), () => q.apiKeys.delete(p.id)));
  }
  async apiKeyFindByDigest(p: { digest: string }): Promise<S.ApiKeyMatch | null> {
    return this.run((q) => q.apiKeys.findByDigest(p.digest));
  }
  async apiKeyRotate(p: Parameters<S.Store['apiKeyRotate']>[0]): Promise<D.ApiKey | null> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.apiKeyRotate(p), () => q.apiKeys.rotate(p)));
  }
  async apiKeyTouch(p: { lastUsed: ReadonlyMap<string, number> }): Promise<void> {
    this.run((q) => q.apiKeys.touch(p.lastUsed));
  }
  async apiKeyEnsure(p: S.ApiKeyCreateParams): Promise<D.ApiKey> {
    return this.run((q) => q.apiKeys.ensure(p));
  }

  // ---- Schedules ---------------------------------------------------------------------------
  async scheduleCreate(p: S.ScheduleCreateParams): Promise<D.Schedule> {
    return (await this.creates.add([p]))[0]!;
  }
  async scheduleCreateMany(p: S.ScheduleCreateParams[]): Promise<D.Schedule[]> {
    return this.creates.add(p);
  }
  async scheduleGet(p: { id: string }): Promise<D.Schedule | null> {
    return this.run((q) => q.schedules.get(p.id));
  }
  async scheduleList(): Promise<D.Schedule[]> {
    return this.run((q) => q.schedules.list());
  }
  async schedulePage(p: S.SchedulePageParams): Promise<S.SchedulePage> {
    return this.run((q) => q.schedules.page(p));
  }
  async scheduleUpdate(p: S.ScheduleUpdateParams): Promise<D.Schedule | 'not_found' | 'not_pending'> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.scheduleUpdate(p), () => q.schedules.update(p)));
  }
  async scheduleDelete(p: S.AuditedId): Promise<boolean> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.scheduleDelete(p), () => q.schedules.delete(p.id)));
  }

  // ---- Cron jobs ---------------------------------------------------------------------------
  async cronCreate(p: S.CronCreateParams): Promise<D.CronJob> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.cronCreate(p), () => q.cron.create(p)));
  }
  async cronGet(p: { id: string }): Promise<D.CronJob | null> {
    return this.run((q) => q.cron.get(p.id));
  }
  async cronList(): Promise<D.CronJob[]> {
    return this.run((q) => q.cron.list());
  }
  async cronPage(p: S.CronPageParams): Promise<S.CronJobPage> {
    return this.run((q) => q.cron.page(p));
  }
  async cronUpdate(p: S.CronUpdateParams): Promise<D.CronJob | null> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.cronUpdate(p), () => q.cron.update(p)));
  }
  async cronDelete(p: S.AuditedId): Promise<boolean> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.cronDelete(p), () => q.cron.delete(p.id)));
  }
  async scheduleBulk(p: S.ScheduleBulkParams): Promise<S.BulkResult> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.scheduleBulk(p), () => q.schedules.bulk(p)));
  }
  async cronBulk(p: S.CronBulkParams): Promise<S.BulkResult> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.cronBulk(p), () => q.cron.bulk(p)));
  }

  // ---- Dispatch ----------------------------------------------------------------------------
  async claimDue(p: S.ClaimDueParams): Promise<ClaimDueResult> {
    const { paused, ...result } = this.run((q) => q.claim.claim(p));
    warnPaused(this.logger, paused);
    return result;
  }
  async executionsFinish(p: { nodeId: string; outcomes: D.AttemptOutcome[] }): Promise<FinishResult> {
    return this.run((q) => q.executions.finish(p.nodeId, p.outcomes));
  }
  async leasesRelease(p: { nodeId: string; executionIds: string[]; now: number }): Promise<void> {
    this.run((q) => q.executions.release(p.nodeId, p.executionIds, Math.floor(p.now)));
  }
  async nextDueAt(): Promise<number | null> {
    return this.run((q) => q.claim.nextDueAt());
  }
  async dueCount(p: { now: number; limit: number }): Promise<S.DueCounts> {
    return this.run((q) => q.claim.dueCount(p.now, p.limit));
  }

  // ---- Executions --------------------------------------------------------------------------
  async executionGet(p: { id: string }): Promise<D.Execution | null> {
    return this.run((q) => q.executions.get(p.id));
  }
  async executionRetryingCount(p: { limit: number }): Promise<S.RetryingCounts> {
    return this.run((q) => q.executions.retryingCount(p.limit));
  }
  async executionList(p: S.ExecutionListParams): Promise<S.ExecutionPage> {
    return this.run((q) => q.executions.list(p));
  }
  async executionSearch(p: ExecutionSearchParams): Promise<S.ExecutionPage> {
    return this.run((q) => q.search.search(p));
  }
  async executionReplay(p: Parameters<S.Store['executionReplay']>[0]): ReturnType<S.Store['executionReplay']> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.executionReplay(p), () => q.search.replay(p.id, p.now)));
  }
  async executionsReplay(p: ExecutionsReplayParams): Promise<number> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.executionsReplay(p), () => q.search.replayMany(p)));
  }
  async cronBackfill(p: CronBackfillParams): Promise<D.Execution[] | 'not_found'> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.cronBackfill(p), () => q.backfill.backfill(p)));
  }
  async jobTrigger(p: S.JobTriggerParams): Promise<D.Execution | 'not_found' | 'not_pending'> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.jobTrigger(p), () => q.executions.trigger(p)));
  }
  async executionsPrune(p: { before: number; limit: number }): Promise<number> {
    return this.run((q) => q.executions.prune(p.before, p.limit));
  }

  // ---- Node liveness (store/contract/nodes.ts) --------------------------------------------------------
  async nodeRegister(p: { nodeId: string; role: string; now: number }): Promise<void> {
    this.run((q) => q.nodes.register(p));
  }
  async nodeHeartbeat(p: { nodeId: string; now: number }): Promise<boolean> {
    return this.run((q) => q.nodes.heartbeat(p));
  }
  async nodesReap(p: NodesAtParams): Promise<NodesReaped> {
    return this.run((q) => q.nodes.reap(p));
  }
  async nodesLive(p: NodesAtParams): Promise<NodeRecord[]> {
    return this.run((q) => q.nodes.live(p));
  }
  async nodeLeave(p: { nodeId: string }): Promise<void> {
    this.run((q) => q.nodes.leave(p.nodeId));
  }

  // ---- Notifications (store/contract/notifications.ts) ----------------------------------------------
  async channelCreate(p: N.ChannelCreateParams): Promise<NotificationChannel> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.channelCreate(p), () => q.notifications.create(p)));
  }
  async channelGet(p: { id: string }): Promise<NotificationChannel | null> {
    return this.run((q) => q.notifications.get(p.id));
  }
  async channelList(): Promise<NotificationChannel[]> {
    return this.run((q) => q.notifications.list());
  }
  async channelUpdate(p: N.ChannelUpdateParams): Promise<NotificationChannel | null> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.channelUpdate(p), () => q.notifications.update(p)));
  }
  async channelDelete(p: S.AuditedId): Promise<boolean> {
    return this.run((q) => q.audit.audited(p.audit, AUDITED.channelDelete(p), () => q.notifications.delete(p.id)));
  }
  async notificationsRecordPaused(p: { paused: N.PausedJob[]; now: number }): Promise<number> {
    return this.run((q) => q.notifications.recordPaused(p.paused, p.now));
  }
  async notificationsClaim(p: { nodeId: string; now: number; limit: number; leaseMs: number }): Promise<OutboxNotification[]> {
    return this.run((q) => q.notifications.claim(p));
  }
  async notificationsSettle(p: { nodeId: string; done: number[]; later: N.OutboxLater[] }): Promise<void> {
    this.run((q) => q.notifications.settle(p.nodeId, p.done, p.later));
  }

  // ---- Job secrets (store/contract/secrets.ts) -------------------------------------------------------
  async secretsPage(p: SecretsPageParams): Promise<JobSecretsEntry[]> {
    return this.run((q) => q.secrets.secretsPage(p));
  }
  async secretsReplace(p: SecretsReplaceParams): Promise<boolean> {
    return this.run((q) => q.secrets.secretsReplace(p));
  }
  async secretsNewest(): Promise<JobSecretsEntry[]> {
    return this.run((q) => q.secrets.secretsNewest());
  }

  // ---- Idempotency records (store/contract/idempotency.ts) ------------------------------------------
  async idempotencyBegin(p: I.IdempotencyBeginParams): Promise<I.IdempotencyBegin> {
    return this.run((q) => q.idempotency.begin(p));
  }
  async idempotencyFinish(p: I.IdempotencyFinishParams): Promise<boolean> {
    return this.run((q) => q.idempotency.finish(p));
  }
  async idempotencyAbandon(p: I.IdempotencyAbandonParams): Promise<boolean> {
    return this.run((q) => q.idempotency.abandon(p));
  }
  async idempotencyPrune(p: { before: number; limit: number }): Promise<number> {
    return this.run((q) => q.idempotency.prune(p.before, p.limit));
  }

  // ---- Settings ----------------------------------------------------------------------------
  async auditPage(p: S.AuditPageParams): Promise<S.AuditPage> {
    return this.run((q) => q.audit.page(p));
  }
  async auditAuthFailure(p: { address: string; now: number }): Promise<void> {
    this.run((q) => q.audit.countAuthFailure(p.address, p.now));
  }
  async auditPrune(p: { before: number; limit: number }): Promise<number> {
    return this.run((q) => q.audit.pruneOld(p.before, p.limit));
  }

  async settingGetOrCreate(p: { key: string; create: () => string }): Promise<string> {
    return this.run((q) => q.settings.getOrCreate(p.key, p.create));
  }
  async settingGet(p: { key: string }): Promise<string | null> {
    return this.run((q) => q.settings.get(p.key));
  }

  /**
   * Runs `fn` against the prepared statements, translating SQLite's availability errors into
   * `StoreUnavailableError` (connection.ts). Statements are prepared on first use, since they
   * need the tables that `migrate` creates.
   */
  private run<T>(fn: (q: Queries) => T): T {
    return this.guard(() => fn((this.queries ??= prepare(this.db))));
  }

  /** Like {@link run}, without the prepared statements (for what runs before `migrate`). */
  private guard<T>(fn: () => T): T {
    if (!this.db.open) throw new StoreUnavailableError('The store is closed.');
    try {
      return fn();
    } catch (err) {
      throw toStoreError(err);
    }
  }
}

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
