import { cronBackfill } from './queries/backfill.js';
import type { CronBackfillParams } from '../contract/executions.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type * as D from '../../domain/types.js';
import type { FinishResult } from '../rules/outcome.js';
import { warnPaused, type ClaimDueResult } from '../rules/claim.js';
import { GROUP_MAX_ROWS, GroupCommit } from '../group-commit.js';
import type * as S from '../store.js';
import type { ExecutionSearchParams, ExecutionsReplayParams } from '../sql/execution-search.js';
import type * as I from '../contract/idempotency.js';
import type { NodeRecord, NodesAtParams, NodesReaped } from '../contract/nodes.js';
import type * as N from '../contract/notifications.js';
import type { NotificationChannel, OutboxNotification } from '../../domain/notifications.js';
import type { JobSecretsEntry, SecretsPageParams, SecretsReplaceParams } from '../contract/secrets.js';
import { AUDITED } from '../rules/audited.js';
import { apiKeys } from './queries/api-keys.js';
import { audit } from './queries/audit.js';
import { ClaimQueries } from './claim/claim.js';
import { connectionConfig, Database, DB_NOW_MS, DEFAULTS, toStoreError, type ConnectionTarget, type PostgresStoreOptions, type Sql } from './connection.js';
import { cronJobs } from './queries/cron-jobs.js';
import { executionSearch } from './queries/execution-search.js';
import { executions } from './queries/executions.js';
import { idempotency } from './queries/idempotency.js';
import { migrate } from './migrations/index.js';
import { nodes } from './queries/nodes.js';
import { notifications } from './queries/notifications.js';
import { channelOf, SchemaScope, WorkListener } from './notify.js';
import { CREATE_FLUSHES, schedules } from './queries/schedules.js';
import { secrets } from './queries/secrets.js';
import { settings } from './queries/settings.js';

export type { PostgresStoreOptions } from './connection.js';

/**
 * The store for several nodes: a `pg` pool on one PostgreSQL database. See
 * connection.ts for the URL, the session limits and the error mapping, store/postgres/migrations/index.ts for the
 * schema, claim.ts for how concurrent claimers share the work, notify.ts for LISTEN/NOTIFY.
 *
 * Opening creates the pool without connecting; `openStore` then pings, so a wrong URL fails at
 * start. Every method runs on the pool (one statement, or one transaction on one connection) and
 * throws `StoreUnavailableError` when the database cannot be reached, as the contract says.
 */
export class PostgresStore implements S.Store {
  /** Which clock decides what is due (see {@link PostgresStoreOptions.clock}). */
  readonly clock: 'database' | 'caller';
  private readonly db: Database;
  private readonly claims: ClaimQueries;
  private readonly listener: WorkListener;
  private readonly logger: PostgresStoreOptions['logger'];
  private readonly schema: SchemaScope;
  private closed = false;
  /**
   * Schedule creates, single and batch, written in groups (../group-commit.ts): each group one
   * multi-row INSERT (one statement, so one transaction and one NOTIFY), at most
   * {@link CREATE_FLUSHES} at once; a group of one row uses the prepared single-row statement.
   */
  private readonly creates = new GroupCommit<S.ScheduleCreateParams, D.Schedule>({
    write: (rows) =>
      this.run(async () => {
        const n = await this.schema.notifyContext();
        return audit.createsAudited(this.db, rows, (sql) =>
          rows.length === 1 ? Promise.all([schedules.create(sql, n, rows[0]!)]) : schedules.createMany(sql, n, rows),
        );
      }),
    maxRows: GROUP_MAX_ROWS,
    maxInFlight: CREATE_FLUSHES,
  });

  private constructor(
    private readonly target: ConnectionTarget,
    opts: PostgresStoreOptions,
  ) {
    this.clock = opts.clock ?? 'database';
    this.logger = opts.logger;
    this.db = new Database(target.config, opts.poolSize ?? DEFAULTS.poolSize, (err) =>
      this.logger?.warn({ err: { message: err.message, code: (err as { code?: unknown }).code } }, 'idle PostgreSQL connection failed'),
    );
    this.schema = new SchemaScope(target.schema, this.db.sql, this.clock);
    this.claims = new ClaimQueries(this.clock);
    this.listener = new WorkListener({
      config: target.config,
      channel: async () => channelOf(await this.schema.scope()),
      nextDueAt: () => this.nextDueAt(),
      ...(this.logger && { logger: this.logger }),
    });
  }

  /**
   * A store on the database at `url` (`postgres://` or `postgresql://`; see `connectionConfig` for
   * the `schema` parameter). Connects lazily; does not migrate.
   * @throws Error for an unparseable URL or an invalid `schema`
   */
  static open(url: string, opts: PostgresStoreOptions = {}): PostgresStore {
    return new PostgresStore(connectionConfig(url, opts), opts);
  }

  async migrate(): Promise<void> {
    await this.run(async () => {
      const scope = this.target.schema ?? (await this.schema.scope());
      await this.db.withClient((client) => migrate(client, scope, this.target.schema));
    });
  }

  /** Ends the pool and the LISTEN connection. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.listener.close();
    await this.db.pool.end().catch(() => undefined);
  }

  async ping(): Promise<void> {
    await this.run(() => this.db.sql.rows('SELECT 1'));
  }

  /** The database's clock (epoch ms, rounded down) with clock 'database'; null with clock 'caller'. */
  async now(): Promise<number | null> {
    if (this.clock === 'caller') return null;
    return this.run(async () => (await this.db.sql.rows<{ now: number }>(`SELECT ${DB_NOW_MS} AS now`, [], 'punctual_now'))[0]!.now);
  }

  /**
   * LISTEN/NOTIFY hints from every node on this database and schema (notify.ts): the listener
   * gets the due instant (epoch ms) of work created or moved earlier, when due within a minute.
   * The dedicated connection opens on the first subscription and reconnects by itself; errors go
   * to the logger, never to the caller.
   */
  onWork(listener: (dueAtMs: number) => void): () => void {
    if (this.closed) return () => undefined;
    return this.listener.subscribe(listener);
  }

  /** Resolves once the LISTEN of {@link onWork} is active (tests, start-up ordering). */
  listening(): Promise<void> {
    return this.listener.ready();
  }

  // ---- API keys ----------------------------------------------------------------------------
  async apiKeyCreate(p: S.ApiKeyCreateParams): Promise<D.ApiKey> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.apiKeyCreate(p), (sql) => apiKeys.create(sql, p)));
  }
  async apiKeyGet(p: { id: string }): Promise<D.ApiKey | null> {
    return this.run(() => apiKeys.get(this.db.sql, p.id));
  }
  async apiKeyList(): Promise<D.ApiKey[]> {
    return this.run(() => apiKeys.list(this.db.sql));
  }
  async apiKeyUpdate(p: S.ApiKeyUpdateParams): Promise<D.ApiKey | null> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.apiKeyUpdate(p), (sql) => apiKeys.update(sql, p)));
  }
  async apiKeyDelete(p: S.AuditedId): Promise<boolean> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.apiKeyDelete(p), (sql) => apiKeys.delete(sql, p.id)));
  }
  async apiKeyFindByDigest(p: { digest: string }): Promise<S.ApiKeyMatch | null> {
    return this.run(() => apiKeys.findByDigest(this.db.sql, p.digest));
  }
  async apiKeyRotate(p: Parameters<S.Store['apiKeyRotate']>[0]): Promise<D.ApiKey | null> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.apiKeyRotate(p), (sql) => apiKeys.rotate(sql, p)));
  }
  async apiKeyTouch(p: { lastUsed: ReadonlyMap<string, number> }): Promise<void> {
    await this.run(() => apiKeys.touch(this.db.sql, p.lastUsed));
  }
  async apiKeyEnsure(p: S.ApiKeyCreateParams): Promise<D.ApiKey> {
    return this.run(() => apiKeys.ensure(this.db.sql, p));
  }

  // ---- Schedules ---------------------------------------------------------------------------
  async scheduleCreate(p: S.ScheduleCreateParams): Promise<D.Schedule> {
    return (await this.creates.add([p]))[0]!;
  }
  async scheduleCreateMany(p: S.ScheduleCreateParams[]): Promise<D.Schedule[]> {
    return this.creates.add(p);
  }
  async scheduleGet(p: { id: string }): Promise<D.Schedule | null> {
    return this.run(() => schedules.get(this.db.sql, p.id));
  }
  async scheduleList(): Promise<D.Schedule[]> {
    return this.run(() => schedules.list(this.db.sql));
  }
  async schedulePage(p: S.SchedulePageParams): Promise<S.SchedulePage> {
    return this.run(() => schedules.page(this.db.sql, p));
  }
  async scheduleUpdate(p: S.ScheduleUpdateParams): Promise<D.Schedule | 'not_found' | 'not_pending'> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.scheduleUpdate(p), async (sql) => schedules.update(sql, await this.schema.notifyContext(), p)));
  }
  async scheduleDelete(p: S.AuditedId): Promise<boolean> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.scheduleDelete(p), (sql) => schedules.delete(sql, p.id)));
  }

  // ---- Cron jobs ---------------------------------------------------------------------------
  async cronCreate(p: S.CronCreateParams): Promise<D.CronJob> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.cronCreate(p), async (sql) => cronJobs.create(sql, await this.schema.notifyContext(), p)));
  }
  async cronGet(p: { id: string }): Promise<D.CronJob | null> {
    return this.run(() => cronJobs.get(this.db.sql, p.id));
  }
  async cronList(): Promise<D.CronJob[]> {
    return this.run(() => cronJobs.list(this.db.sql));
  }
  async cronPage(p: S.CronPageParams): Promise<S.CronJobPage> {
    return this.run(() => cronJobs.page(this.db.sql, p));
  }
  async cronUpdate(p: S.CronUpdateParams): Promise<D.CronJob | null> {
    return this.run(async () => {
      const n = await this.schema.notifyContext();
      return audit.audited(this.db, p.audit, AUDITED.cronUpdate(p), (sql) => cronJobs.update(sql, n, p), true);
    });
  }
  async cronDelete(p: S.AuditedId): Promise<boolean> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.cronDelete(p), (sql) => cronJobs.delete(sql, p.id)));
  }
  async scheduleBulk(p: S.ScheduleBulkParams): Promise<S.BulkResult> {
    const target = AUDITED.scheduleBulk(p);
    return this.run(() => audit.audited(this.db, p.audit, target, (sql) => schedules.bulk(sql, p)));
  }
  async cronBulk(p: S.CronBulkParams): Promise<S.BulkResult> {
    return this.run(async () => {
      const n = await this.schema.notifyContext();
      const target = AUDITED.cronBulk(p);
      return audit.audited(this.db, p.audit, target, (sql) => cronJobs.bulk(sql, n, p), true);
    });
  }

  // ---- Dispatch ----------------------------------------------------------------------------
  /** See claim.ts. With clock 'database', `p.now` is ignored: the database's clock decides. */
  async claimDue(p: S.ClaimDueParams): Promise<ClaimDueResult> {
    const { paused, ...result } = await this.run(async () => {
      const scope = await this.schema.scope();
      return this.db.tx((sql) => this.claims.claim(sql, scope, p));
    });
    warnPaused(this.logger, paused);
    return result;
  }
  async executionsFinish(p: { nodeId: string; outcomes: D.AttemptOutcome[] }): Promise<FinishResult> {
    if (p.outcomes.length === 0) return this.run(async () => ({ paused: [] }));
    return this.run(async () => executions.finish(this.db.sql, await this.schema.notifyContext(), p.nodeId, p.outcomes));
  }
  /** With clock 'database', `p.now` is ignored: the database's clock decides (as for claims). */
  async leasesRelease(p: { nodeId: string; executionIds: string[]; now: number }): Promise<void> {
    await this.run(() => executions.release(this.db.sql, this.clock, p));
  }
  async nextDueAt(): Promise<number | null> {
    return this.run(() => this.claims.nextDueAt(this.db.sql));
  }
  /** With clock 'database', `p.now` is ignored: the database's clock decides (as for claims). */
  async dueCount(p: { now: number; limit: number }): Promise<S.DueCounts> {
    return this.run(() => this.claims.dueCount(this.db.sql, p.now, p.limit));
  }

  // ---- Executions --------------------------------------------------------------------------
  async executionGet(p: { id: string }): Promise<D.Execution | null> {
    return this.run(() => executions.get(this.db.sql, p.id));
  }
  async executionRetryingCount(p: { limit: number }): Promise<S.RetryingCounts> {
    return this.run(() => executions.retryingCount(this.db.sql, p.limit));
  }
  async executionList(p: S.ExecutionListParams): Promise<S.ExecutionPage> {
    return this.run(() => executions.list(this.db.sql, p));
  }
  async executionSearch(p: ExecutionSearchParams): Promise<S.ExecutionPage> {
    return this.run(() => executionSearch.search(this.db.sql, p));
  }
  async executionReplay(p: Parameters<S.Store['executionReplay']>[0]): ReturnType<S.Store['executionReplay']> {
    return this.run(async () => {
      const n = await this.schema.notifyContext();
      return audit.audited(this.db, p.audit, AUDITED.executionReplay(p), (sql) => executionSearch.replay(sql, n, p.id, p.now), true);
    });
  }
  async executionsReplay(p: ExecutionsReplayParams): Promise<number> {
    return this.run(async () => {
      const n = await this.schema.notifyContext();
      return audit.audited(this.db, p.audit, AUDITED.executionsReplay(p), (sql) => executionSearch.replayMany(sql, n, p), true);
    });
  }
  async cronBackfill(p: CronBackfillParams): Promise<D.Execution[] | 'not_found'> {
    return this.run(async () => {
      const n = await this.schema.notifyContext();
      return audit.audited(this.db, p.audit, AUDITED.cronBackfill(p), (sql) => cronBackfill(sql, n, p), true);
    });
  }
  async jobTrigger(p: S.JobTriggerParams): Promise<D.Execution | 'not_found' | 'not_pending'> {
    return this.run(async () => {
      const n = await this.schema.notifyContext();
      return audit.audited(this.db, p.audit, AUDITED.jobTrigger(p), (sql) => executions.trigger(sql, n, p), true);
    });
  }
  /** Once per cluster: returns 0 at once while another node prunes (see executions.ts). */
  async executionsPrune(p: { before: number; limit: number }): Promise<number> {
    return this.run(async () => {
      const scope = await this.schema.scope();
      return this.db.tx((sql) => executions.prune(sql, scope, p.before, p.limit));
    });
  }

  // ---- Node liveness (store/contract/nodes.ts; with clock 'database', `p.now` is ignored) ------------
  async nodeRegister(p: { nodeId: string; role: string; now: number }): Promise<void> {
    await this.run(() => nodes.register(this.db.sql, this.clock, p));
  }
  async nodeHeartbeat(p: { nodeId: string; now: number }): Promise<boolean> {
    return this.run(() => nodes.heartbeat(this.db.sql, this.clock, p));
  }
  /** Once per cluster: returns nothing at once while another node reaps (see nodes.ts). */
  async nodesReap(p: NodesAtParams): Promise<NodesReaped> {
    return this.run(async () => {
      const [scope, n] = [await this.schema.scope(), await this.schema.notifyContext()];
      return this.db.tx((sql) => nodes.reap(sql, scope, n, p));
    });
  }
  async nodesLive(p: NodesAtParams): Promise<NodeRecord[]> {
    return this.run(() => nodes.live(this.db.sql, this.clock, p));
  }
  async nodeLeave(p: { nodeId: string }): Promise<void> {
    await this.run(() => nodes.leave(this.db.sql, p.nodeId));
  }

  // ---- Notifications (store/contract/notifications.ts) ----------------------------------------------
  async channelCreate(p: N.ChannelCreateParams): Promise<NotificationChannel> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.channelCreate(p), (sql) => notifications.create(sql, p)));
  }
  async channelGet(p: { id: string }): Promise<NotificationChannel | null> {
    return this.run(() => notifications.get(this.db.sql, p.id));
  }
  async channelList(): Promise<NotificationChannel[]> {
    return this.run(() => notifications.list(this.db.sql));
  }
  async channelUpdate(p: N.ChannelUpdateParams): Promise<NotificationChannel | null> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.channelUpdate(p), (sql) => notifications.update(sql, p)));
  }
  async channelDelete(p: S.AuditedId): Promise<boolean> {
    return this.run(() => audit.audited(this.db, p.audit, AUDITED.channelDelete(p), (sql) => notifications.delete(sql, p.id)));
  }
  async notificationsRecordPaused(p: { paused: N.PausedJob[]; now: number }): Promise<number> {
    return this.run(() => notifications.recordPaused(this.db.sql, p.paused, p.now));
  }
  /** `p.now` is the caller's (the notifier passes its dispatcher's time, which follows the database's clock). */
  async notificationsClaim(p: { nodeId: string; now: number; limit: number; leaseMs: number }): Promise<OutboxNotification[]> {
    return this.run(() => notifications.claim(this.db.sql, p));
  }
  async notificationsSettle(p: { nodeId: string; done: number[]; later: N.OutboxLater[] }): Promise<void> {
    await this.run(() => notifications.settle(this.db.sql, p.nodeId, p.done, p.later));
  }

  // ---- Job secrets (store/contract/secrets.ts) -------------------------------------------------------
  async secretsPage(p: SecretsPageParams): Promise<JobSecretsEntry[]> {
    return this.run(() => secrets.page(this.db.sql, p));
  }
  async secretsReplace(p: SecretsReplaceParams): Promise<boolean> {
    return this.run(() => this.db.tx((sql) => secrets.replace(sql, p)));
  }
  async secretsNewest(): Promise<JobSecretsEntry[]> {
    return this.run(() => secrets.newest(this.db.sql));
  }

  // ---- Idempotency records (store/contract/idempotency.ts) ------------------------------------------
  async idempotencyBegin(p: I.IdempotencyBeginParams): Promise<I.IdempotencyBegin> {
    return this.run(() => this.db.tx((sql) => idempotency.begin(sql, p)));
  }
  async idempotencyFinish(p: I.IdempotencyFinishParams): Promise<boolean> {
    return this.run(() => idempotency.finish(this.db.sql, p));
  }
  async idempotencyAbandon(p: I.IdempotencyAbandonParams): Promise<boolean> {
    return this.run(() => idempotency.abandon(this.db.sql, p));
  }
  async idempotencyPrune(p: { before: number; limit: number }): Promise<number> {
    return this.run(() => idempotency.prune(this.db.sql, p.before, p.limit));
  }

  async auditPage(p: S.AuditPageParams): Promise<S.AuditPage> {
    return this.run(() => audit.page(this.db.sql, p));
  }
  async auditAuthFailure(p: { address: string; now: number }): Promise<void> {
    await this.run(() => audit.countAuthFailure(this.db.sql, p.address, p.now));
  }
  async auditPrune(p: { before: number; limit: number }): Promise<number> {
    return this.run(() => audit.prune(this.db.sql, p.before, p.limit));
  }

  // ---- Settings ----------------------------------------------------------------------------
  async settingGetOrCreate(p: { key: string; create: () => string }): Promise<string> {
    return this.run(() => settings.getOrCreate(this.db.sql, p.key, p.create));
  }
  async settingGet(p: { key: string }): Promise<string | null> {
    return this.run(() => settings.get(this.db.sql, p.key));
  }

  /** Runs `fn` unless closed, translating `pg`'s errors (connection.ts `toStoreError`). */
  private async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError('The store is closed.');
    try {
      return await fn();
    } catch (err) {
      throw toStoreError(err);
    }
  }

  /** The pool's SQL runner, for tests and tools of this folder. */
  get sql(): Sql {
    return this.db.sql;
  }
}
