import type {
  ApiKey,
  ApiKeyStatus,
  AttemptOutcome,
  ClaimedExecution,
  CronJob,
  CronJobStatus,
  Execution,
  JobType,
  JsonObject,
  MisfirePolicy,
  OverlapPolicy,
  RetryPolicy,
  Schedule,
} from '../domain/types.js';

/**
 * The store: every persistent operation of the service, as domain operations taking one params
 * object (after River's `riverdriver`). One implementation per database (`sqlite/`, later
 * `postgres/`), each with its own SQL and migrations, all held to one conformance suite
 * (`test/store/conformance.ts`).
 *
 * Every method is asynchronous, whatever the driver, and atomic: it commits entirely or not at
 * all. Instants are epoch milliseconds (UTC). Methods throw `StoreUnavailableError` when the
 * database cannot be reached or written; they never throw for "not found" unless documented.
 */
export interface Store {
  /** Applies pending numbered migrations. Idempotent. */
  migrate(): Promise<void>;
  /**
   * Releases the connection(s). Idempotent. The store is unusable afterwards: its methods throw
   * `StoreUnavailableError`.
   */
  close(): Promise<void>;
  /** Cheap round trip to the database; throws `StoreUnavailableError` when it fails. */
  ping(): Promise<void>;

  // ---- API keys ---------------------------------------------------------------------------
  apiKeyCreate(p: ApiKeyCreateParams): Promise<ApiKey>;
  apiKeyGet(p: { id: string }): Promise<ApiKey | null>;
  /** All keys, oldest first. */
  apiKeyList(): Promise<ApiKey[]>;
  /** Partial update; returns null when no key has that id. */
  apiKeyUpdate(p: { id: string; name?: string; status?: ApiKeyStatus }): Promise<ApiKey | null>;
  /** Returns false when no key had that id. */
  apiKeyDelete(p: { id: string }): Promise<boolean>;
  /** The key whose token has this SHA-256 digest (lowercase hex), or null. */
  apiKeyFindByDigest(p: { digest: string }): Promise<ApiKey | null>;
  /**
   * Records last use of keys in one write. An entry only moves `lastUsed` forward.
   * @param p.lastUsed key id → epoch ms (UTC)
   */
  apiKeyTouch(p: { lastUsed: ReadonlyMap<string, number> }): Promise<void>;
  /**
   * Makes sure an `Enabled` key with this digest exists: creates it (with `p.id`, `p.name`) when
   * no key has the digest, otherwise sets the existing key `Enabled` and renames it `p.name`.
   */
  apiKeyEnsure(p: ApiKeyCreateParams): Promise<ApiKey>;

  // ---- Schedules -----------------------------------------------------------------------------
  scheduleCreate(p: ScheduleCreateParams): Promise<Schedule>;
  scheduleGet(p: { id: string }): Promise<Schedule | null>;
  /** All schedules, oldest first (pagination comes with issue #6). */
  scheduleList(): Promise<Schedule[]>;
  /**
   * Partial update of a `Pending` schedule.
   * @returns the updated schedule; `'not_found'` when none has that id; `'not_pending'` when
   *   it exists but is no longer `Pending` (it ran or is running), and then nothing changes.
   */
  scheduleUpdate(p: ScheduleUpdateParams): Promise<Schedule | 'not_found' | 'not_pending'>;
  /** Returns false when no schedule had that id. */
  scheduleDelete(p: { id: string }): Promise<boolean>;

  // ---- Cron jobs -----------------------------------------------------------------------------
  cronCreate(p: CronCreateParams): Promise<CronJob>;
  cronGet(p: { id: string }): Promise<CronJob | null>;
  /** All cron jobs, oldest first. */
  cronList(): Promise<CronJob[]>;
  /**
   * Partial update. `recompute`, when given, is called inside the same transaction with the job
   * as it will be after the patch and returns the new `nextInvocation` (epoch ms); this keeps a
   * concurrent claim from advancing a stale occurrence.
   * @returns the updated job, or null when no job has that id.
   */
  cronUpdate(p: CronUpdateParams): Promise<CronJob | null>;
  /** Returns false when no job had that id. */
  cronDelete(p: { id: string }): Promise<boolean>;

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
   * Cron occurrences (issue #3 §4). Let o₁ = `nextInvocation` ≤ now. It is a *misfire* when
   * `now − o₁ > p.misfireThresholdMs` or the following occurrence o₂ is also ≤ now. Without a
   * misfire, o₁ runs and `nextInvocation = nextOccurrence(o₁)`. On a misfire, by the job's
   * `misfire`: `once` runs o₁ only; `skip` records o₁ as a `Skipped` execution; `all` runs every
   * due occurrence oldest first, at most 1,000 (counted toward `limit` only as returned items);
   * then `nextInvocation = nextOccurrence(now)`. With `overlap: 'skip'`, an occurrence that would
   * run while the job has an execution `Pending`, `Running` or `Retrying` is recorded `Skipped`
   * instead. `invocations` counts executions created (Skipped included); the job's
   * `lastInvocation`/`lastStatus` follow its newest execution.
   *
   * A cron job for which `p.nextOccurrence` returns null, or an instant not after `now`, is set
   * `Paused` (its `nextInvocation` left at the occurrence just claimed, which still runs). An
   * expired lease whose job was deleted is not returned: its execution becomes `Failed` with the
   * error `job deleted`.
   */
  claimDue(p: ClaimDueParams): Promise<ClaimedExecution[]>;
  /**
   * Records outcomes of attempts held by `nodeId`, in one transaction: each appends an attempt
   * to its execution's history; `Succeeded`/`Failed` finish the execution (a schedule takes that
   * status); `Retrying` releases the lease and sets `nextAttemptAt`. An outcome for an execution
   * whose lease was lost (re-leased elsewhere, or not `Running`) is ignored.
   */
  executionsFinish(p: { nodeId: string; outcomes: AttemptOutcome[] }): Promise<void>;
  /**
   * Epoch ms (UTC) of the earliest instant at which `claimDue` could return something (a
   * pending schedule, an active cron occurrence, a pending or retrying execution, a lease
   * expiry), or null when nothing waits.
   */
  nextDueAt(): Promise<number | null>;

  // ---- Executions (issue #3 §1) ------------------------------------------------------------------
  /** The execution with its attempts, or null. */
  executionGet(p: { id: string }): Promise<Execution | null>;
  /**
   * A job's executions, newest first (by `scheduledFor`, then id), `limit` at a time.
   * `cursor` is the `nextCursor` of the previous page (opaque text); `nextCursor` is null on the
   * last page. A job without executions (or unknown) gives an empty page.
   * @throws InvalidInputError (path `/query/cursor`) for a cursor this store did not make
   */
  executionList(p: { jobType: JobType; jobId: string; limit: number; cursor: string | null }): Promise<{
    executions: Execution[];
    nextCursor: string | null;
  }>;
  /**
   * Runs a job now, outside its schedule (issue #3 §4): makes a `Pending` execution due at `now`
   * (`triggered: true`, `scheduledFor = now`). A schedule must be `Pending`, and becomes `Running`
   * (it will not run again at `scheduledAt`); a cron job runs whatever its status, and its
   * `invocations` grows when the execution is made.
   * @returns the new execution; `'not_found'`; `'not_pending'` for a schedule that is not Pending
   */
  jobTrigger(p: { jobType: JobType; jobId: string; id: string; now: number }): Promise<Execution | 'not_found' | 'not_pending'>;
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
}

/** Params of {@link Store.apiKeyCreate}. `digest` is the SHA-256 (lowercase hex) of the token. */
export interface ApiKeyCreateParams {
  id: string;
  name: string;
  status: ApiKeyStatus;
  digest: string;
  /** Epoch ms (UTC). */
  now: number;
}

/** Params of {@link Store.scheduleCreate}. */
export interface ScheduleCreateParams {
  id: string;
  name: string;
  scheduledAt: number;
  endpoint: string;
  data: JsonObject;
  tags: string[];
  retry: RetryPolicy;
  timeoutMs: number;
  now: number;
}

/** Params of {@link Store.scheduleUpdate}: absent fields keep their values. */
export interface ScheduleUpdateParams {
  id: string;
  name?: string;
  scheduledAt?: number;
  endpoint?: string;
  data?: JsonObject;
  tags?: string[];
  retry?: RetryPolicy;
  timeoutMs?: number;
}

/** Params of {@link Store.cronCreate}. */
export interface CronCreateParams {
  id: string;
  expression: string;
  name: string | null;
  timezone: string | null;
  endpoint: string;
  data: JsonObject | null;
  nextInvocation: number;
  retry: RetryPolicy;
  timeoutMs: number;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
  now: number;
}

/** Params of {@link Store.cronUpdate}: absent fields keep their values, null sets null. */
export interface CronUpdateParams {
  id: string;
  expression?: string;
  name?: string | null;
  timezone?: string | null;
  status?: CronJobStatus;
  endpoint?: string;
  data?: JsonObject | null;
  retry?: RetryPolicy;
  timeoutMs?: number;
  misfire?: MisfirePolicy;
  overlap?: OverlapPolicy;
  /** Called in the transaction with the patched job; returns its new `nextInvocation`. */
  recompute?: (job: CronJob) => number;
}

/** Params of {@link Store.claimDue}. */
export interface ClaimDueParams {
  /** Epoch ms (UTC) that decides what is due. */
  now: number;
  /** Most items returned. */
  limit: number;
  nodeId: string;
  /**
   * Lease margin in ms beyond each item's `timeoutMs`: an attempt not finished by
   * `now + timeoutMs + leaseMs` is claimed again (its node is taken for dead).
   */
  leaseMs: number;
  /** Next occurrence of `job` strictly after `afterMs`, or null when it has none. */
  nextOccurrence: (job: CronJob, afterMs: number) => number | null;
  /** A cron occurrence claimed more than this late (ms) is a misfire (default policy: 60,000). */
  misfireThresholdMs: number;
}
