import type {
  AttemptOutcome,
  CronJob,
  Execution,
  Schedule,
} from '../domain/types.js';
import type { ClaimDueResult } from './rules/claim.js';
import type { ApiKeysStore, AuditedId } from './contract/api-keys.js';
import type { ClaimDueParams } from './contract/claim.js';
import type { AuditStore } from './contract/audit.js';
export type { AuditPage, AuditPageParams } from './contract/audit.js';
import type { FinishResult } from './rules/outcome.js';
import type { BatchStore } from './contract/batch.js';
import type { BulkStore } from './contract/bulk.js';
import type { ExecutionSearchStore } from './contract/executions.js';
import type { IdempotencyStore } from './contract/idempotency.js';
import type { NodesStore } from './contract/nodes.js';
import type { FlowControlStore } from './contract/flow-control.js';
import type { NotificationsStore } from './contract/notifications.js';
import type { CronJobPage, ExecutionListParams, ExecutionPage, JobTriggerParams, SchedulePage } from './contract/pages.js';
import type { JobSecretsStore } from './contract/secrets.js';
import type { BacklogStore } from './contract/backlog.js';
export type { BacklogStore, DueCounts, RetryingCounts } from './contract/backlog.js';
export type { CronJobPage, ExecutionListParams, ExecutionPage, JobTriggerParams, SchedulePage } from './contract/pages.js';
export type { BulkResult, CronBulkAction, CronBulkParams, JobBulkFilter, ScheduleBulkParams } from './contract/bulk.js';
export type { ApiKeyMatch } from './rows/api-keys.js';
export type { ClaimDueParams } from './contract/claim.js';
export type { JobRequestParams, SuccessParams, IdentityParams, ScheduleCreateParams, JobPageParams, SchedulePageParams, CronPageParams, ScheduleUpdateParams, CronCreateParams, CronUpdateParams, CronLifeParams } from './contract/jobs.js';
import type { ScheduleCreateParams, SchedulePageParams, CronPageParams, ScheduleUpdateParams, CronCreateParams, CronUpdateParams } from './contract/jobs.js';
export type { ApiKeyCreateParams, ApiKeysStore, ApiKeyUpdateParams, AuditedId } from './contract/api-keys.js';

/**
 * The store: every persistent operation of the service, as domain operations taking one params
 * object (after River's `riverdriver`). One implementation per database (`sqlite/`, `postgres/`),
 * each with its own SQL and migrations, all held to one conformance suite (`test/store/conformance/`).
 *
 * Every method is asynchronous, whatever the driver, and atomic: it commits entirely or not at
 * all. Instants are epoch milliseconds (UTC). Methods throw `StoreUnavailableError` when the
 * database cannot be reached or written; they never throw for "not found" unless documented.
 */
export interface Store extends ApiKeysStore, AuditStore, JobSecretsStore, BatchStore, BulkStore, IdempotencyStore, NodesStore, ExecutionSearchStore, NotificationsStore, BacklogStore, FlowControlStore {
  /** Applies pending numbered migrations. Idempotent. */
  migrate(): Promise<void>;
  /**
   * Releases the connection(s). Idempotent. The store is unusable afterwards: its methods throw
   * `StoreUnavailableError`.
   */
  close(): Promise<void>;
  /** Cheap round trip to the database; throws `StoreUnavailableError` when it fails. */
  ping(): Promise<void>;
  /**
   * The authoritative current time (epoch ms, UTC) of a store shared by several nodes
   * (PostgreSQL: the database's clock, so clock skew between nodes never fires a call early), or
   * null when the caller's own clock decides (SQLite: one node). The dispatcher arms its timer
   * and claims with this time when it is not null (docs/multinode.md).
   */
  now(): Promise<number | null>;
  /**
   * Subscribes to hints, from any node, that work was created or moved earlier, with its due
   * instant (PostgreSQL: LISTEN/NOTIFY). Only a hint: claiming stays correct without it. Stores
   * without cross-node signalling never call the listener.
   * @returns a function that unsubscribes
   */
  onWork(listener: (dueAtMs: number) => void): () => void;

  // ---- Schedules -----------------------------------------------------------------------------
  /**
   * Stores a `Pending` schedule. Creates made concurrently (this and `scheduleCreateMany`) may
   * share one transaction (group-commit.ts); each still commits or fails on its own, and resolves
   * only once its commit is durable.
   */
  scheduleCreate(p: ScheduleCreateParams): Promise<Schedule>;
  scheduleGet(p: { id: string }): Promise<Schedule | null>;
  /**
   * All schedules, oldest first (by `createdAt`, then id), unpaged: for tools and tests. The API
   * lists with {@link Store.schedulePage}.
   */
  scheduleList(): Promise<Schedule[]>;
  /**
   * One page of schedules, oldest first (by `createdAt`, then id: ids are UUID v7, so within one
   * millisecond that is the order of creation), keyset-paged (paging.ts). Filters combine with
   * AND. Backed by indexes: the whole list by `(created_at, id)`, a status by a partial index
   * `(created_at, id) WHERE status = …`, a tag by the `schedule_tags` table `(tag, created_at,
   * schedule_id)`, which the database keeps in step with `tags` (triggers; see the migrations).
   * The first tag drives the scan when tags are given, else the status; the other filters are
   * checked row by row, at most `PAGE_SCAN_MAX` rows per page (../paging.ts): such a page may hold
   * fewer than `limit` schedules, even none, with a `nextCursor` that continues the scan.
   * @returns the page, and the cursor of the next one (null on the last page)
   * @throws InvalidInputError (path `/query/cursor`) for a cursor this store did not make
   */
  schedulePage(p: SchedulePageParams): Promise<SchedulePage>;
  /**
   * Partial update of a `Pending` schedule.
   * @returns the updated schedule; `'not_found'` when none has that id; `'not_pending'` when
   *   it exists but is no longer `Pending` (it ran or is running), and then nothing changes.
   */
  scheduleUpdate(p: ScheduleUpdateParams): Promise<Schedule | 'not_found' | 'not_pending'>;
  /** Returns false when no schedule had that id. */
  scheduleDelete(p: AuditedId): Promise<boolean>;

  // ---- Cron jobs -----------------------------------------------------------------------------
  cronCreate(p: CronCreateParams): Promise<CronJob>;
  cronGet(p: { id: string }): Promise<CronJob | null>;
  /** All cron jobs, oldest first (by `createdAt`, then id), unpaged: for tools and tests. */
  cronList(): Promise<CronJob[]>;
  /**
   * One page of cron jobs, oldest first (by `createdAt`, then id), keyset-paged as
   * {@link Store.schedulePage}: by `(created_at, id)`, or for a status by a partial
   * index of that status; a `name` filter is checked row by row within `PAGE_SCAN_MAX` rows a page.
   * @throws InvalidInputError (path `/query/cursor`) for a cursor this store did not make
   */
  cronPage(p: CronPageParams): Promise<CronJobPage>;
  /**
   * Partial update. With `recomputeAfter`, the new `nextInvocation` is the patched job's first
   * occurrence after that instant, computed inside the same transaction (cron-patch.ts),
   * so a concurrent claim cannot advance a stale occurrence.
   * @returns the updated job, or null when no job has that id.
   * @throws InvalidInputError (path `/expression`) when `recomputeAfter` is given and the patched
   *   job's expression has no occurrence after it; (path `/status`) when the patch gives `status`
   *   Active and the job's window or limit leaves it none; nothing changes then
   */
  cronUpdate(p: CronUpdateParams): Promise<CronJob | null>;
  /** Returns false when no job had that id. */
  cronDelete(p: AuditedId): Promise<boolean>;

  // ---- Dispatch ------------------------------------------------------------------------------
  /**
   * Claims due work, in one transaction, and leases each item to `p.nodeId` until
   * `now + item.timeoutMs + p.leaseMs` (the lease outlasts the job's own call timeout):
   *  1. `Pending` schedules with `scheduledAt <= now` become `Running` with a new execution;
   *  2. `Active` cron jobs with `nextInvocation <= now`: see "Cron occurrences" below;
   *  3. executions `Pending` (triggered) or `Retrying` whose `nextAttemptAt <= now` become
   *     `Running` with `attempt + 1` (a triggered one starts at attempt 1);
   *  4. `Running` executions whose lease has expired (their node died) are leased again, with
   *     `attempt + 1`: the same execution, so the same `webhook-id`.
   * An execution is unique per (job, scheduledFor) among those not triggered: a second claim of one
   * occurrence is a no-op. At most `p.limit` items in all, the earliest due first (an expired
   * lease is due at its expiry).
   *
   * Cron occurrences, by the rules of src/store/rules/claim.ts (the one place they are decided),
   * with the store's own cron engine (`cronJobNext`, docs/cron.md): o₁ = `nextInvocation` runs,
   * unless it is a *misfire* (more than `p.misfireThresholdMs` late, or the next occurrence also
   * due), which the job's `misfire` policy settles (`once`, `skip`, or `all`: every missed one,
   * at most 1,000); `overlap: 'skip'` records `Skipped` an occurrence that would run beside one in
   * progress. `invocations` counts executions created (Skipped included); the job's
   * `lastInvocation`/`lastStatus` follow its newest execution. A job the engine cannot continue
   * (no occurrence after `now`) is set `Paused` and its occurrence still runs. Under misfire
   * `once` the execution that runs for several missed occurrences records them
   * (`missedOccurrences`, also on its claimed items); under misfire `skip` the job's
   * `skippedOccurrences` grows by the occurrences dropped, and so does the result's
   * `skippedOccurrences` (counts bounded by `MISSED_COUNT_MAX`, store/rules/claim.ts).
   *
   * An expired lease or a waiting execution whose job was deleted is not returned: its execution
   * becomes `Failed` with the error `job deleted`.
   * @returns the items leased (`claimed`, due time first) and the occurrences dropped by misfire
   *   `skip` (`skippedOccurrences`)
   */
  claimDue(p: ClaimDueParams): Promise<ClaimDueResult>;
  /**
   * Records outcomes of attempts held by `nodeId`, in one transaction: each appends an attempt
   * to its execution's history; `Succeeded`/`Failed` finish the execution (a schedule takes that
   * status); `Retrying` releases the lease and sets `nextAttemptAt`. An outcome for an execution
   * whose lease was lost (re-leased elsewhere, or not `Running`) is ignored. In the same
   * transaction each cron job with finished executions updates its `consecutiveFailures` and may
   * pause itself (`Paused` with a `pausedReason`), by the rule of src/store/rules/outcome.ts.
   * @returns the cron jobs this write paused (`paused`, each once)
   */
  executionsFinish(p: { nodeId: string; outcomes: AttemptOutcome[] }): Promise<FinishResult>;
  /**
   * Hands back leases (a graceful stop): each of `p.executionIds` that is still
   * `Running` and leased to `p.nodeId` becomes due at once — its lease expires at `p.now` (or
   * stays earlier), so the next `claimDue` of any node takes it as an expired lease, with
   * `attempt + 1` and the same execution (the same `webhook-id`), instead of after the full lease.
   * `attempt` and the owner are left as they are, so a late outcome of this node for the same
   * attempt is still accepted until the execution is claimed again. Other executions are left
   * alone. `p.now` is epoch ms (UTC) of the caller's clock; a store with a clock of its own
   * (`now()` not null) uses that clock instead.
   */
  leasesRelease(p: { nodeId: string; executionIds: string[]; now: number }): Promise<void>;
  /**
   * Epoch ms (UTC) of the earliest instant at which `claimDue` could return something (a
   * pending schedule, an active cron occurrence, a pending or retrying execution, a lease
   * expiry), or null when nothing waits.
   */
  nextDueAt(): Promise<number | null>;

  // ---- Executions (every firing of a job, with its attempts) -------------------------------------
  /** The execution with its attempts, or null. */
  executionGet(p: { id: string }): Promise<Execution | null>;
  /**
   * A job's executions, newest first (by `scheduledFor`, then id), `limit` at a time.
   * `cursor` is the `nextCursor` of the previous page (opaque text); `nextCursor` is null on the
   * last page. A job without executions (or unknown) gives an empty page.
   * @throws InvalidInputError (path `/query/cursor`) for a cursor this store did not make
   */
  executionList(p: ExecutionListParams): Promise<ExecutionPage>;
  /**
   * Runs a job now, outside its schedule: makes a `Pending` execution due at `now`
   * (`triggered: true`, `scheduledFor = now`). A schedule must be `Pending`, and becomes `Running`
   * (it will not run again at `scheduledAt`); a cron job runs whatever its status, and its
   * `invocations` grows when the execution is made.
   * @returns the new execution; `'not_found'`; `'not_pending'` for a schedule that is not Pending
   */
  jobTrigger(p: JobTriggerParams): Promise<Execution | 'not_found' | 'not_pending'>;
  /**
   * Deletes finished executions (`Succeeded`, `Failed`, `Skipped`) whose `finishedAt` is before
   * `before` (epoch ms), with their attempts, at most `limit` per call, oldest first. The newest
   * execution of an existing cron job is kept: its `lastInvocation`/`lastStatus` show it.
   * @returns how many were deleted
   */
  executionsPrune(p: { before: number; limit: number }): Promise<number>;

  // ---- Settings ------------------------------------------------------------------------------
  /**
   * The value of setting `key`; when absent, stores `create()` first. Atomic, so two nodes
   * starting at once agree on one value (used for the generated signing secret).
   */
  settingGetOrCreate(p: { key: string; create: () => string }): Promise<string>;
  /** The value of setting `key`, or null when it is absent. Reads only. */
  settingGet(p: { key: string }): Promise<string | null>;
}
