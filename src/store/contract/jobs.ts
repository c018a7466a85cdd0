/**
 * The params of the job operations of the {@link Store} (schedules and cron jobs: create, update,
 * page), shared by the contract's subject files. Instants are epoch ms (UTC).
 */
import type { CronJobStatus, JobManager, JobRequest, JsonObject, MisfirePolicy, OverlapPolicy, RetryPolicy, ScheduleStatus, SuccessStatus } from '../../domain/types.js';
import type { AuditRecord } from '../../domain/audit.js';

/**
 * The request of a job's calls (docs/calls.md), in create and update params. On a create, an
 * absent field takes `POST`, `{}` or null; on an update, an absent field is kept and null clears
 * `body`, `auth` or `secrets`.
 */
export type JobRequestParams = Partial<JobRequest>;

/** `successStatuses` of create and update params: absent, `["2xx"]` at create and kept at update. */
export interface SuccessParams {
  successStatuses?: SuccessStatus[];
}

/**
 * The key and manager of a new job (docs/apply.md): absent or null, none. A key another job of the
 * same kind holds makes the create throw `ConflictError` (path `/key`, job-keys.ts).
 */
export interface IdentityParams {
  key?: string | null;
  managedBy?: JobManager | null;
  /** The flow-control key its calls count against (domain/flow-control.ts); absent or null: none. */
  flowControlKey?: string | null;
}

/** Params of {@link Store.scheduleCreate}. */
export interface ScheduleCreateParams extends JobRequestParams, SuccessParams, IdentityParams {
  /** When given, the change writes this audit event in its transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
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

/** Filters and position of a page of jobs ({@link Store.schedulePage}, {@link Store.cronPage}). */
export interface JobPageParams<S extends string> {
  /** Jobs per page (the API allows 1–1,000). */
  limit: number;
  /** The `nextCursor` of the previous page (opaque text), or null for the first page. */
  cursor: string | null;
  /** Only jobs with this status; null: any. */
  status: S | null;
  /**
   * Only jobs whose name contains this text, the letters A–Z matching in either case and every
   * other character only itself (`foldNameNeedle` in ../paging.ts); a null name never matches.
   * Null: any name.
   */
  name: string | null;
  /** Only jobs carrying every one of these tags (exact, case-sensitive); empty: any. */
  tags: string[];
  /**
   * Only the job with this key (exact; through the unique index `<table>_by_key`, which then
   * drives the scan); absent or null: any.
   */
  key?: string | null;
  /** Only jobs naming this flow-control key (exact; checked row by row); absent or null: any. */
  flowControlKey?: string | null;
  /**
   * Most rows this page looks at (`scanBound` in ../paging.ts): default and at most
   * `PAGE_SCAN_MAX`, at least `limit + 1`. Lower only to test the bound on few rows.
   */
  scan?: number;
}

/** Params of {@link Store.schedulePage}. */
export type SchedulePageParams = JobPageParams<ScheduleStatus>;

/** Params of {@link Store.cronPage}. */
export type CronPageParams = JobPageParams<CronJobStatus>;

/** Params of {@link Store.scheduleUpdate}: absent fields keep their values. */
export interface ScheduleUpdateParams extends JobRequestParams, SuccessParams {
  /** When given, the change writes this audit event in its transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
  id: string;
  name?: string;
  scheduledAt?: number;
  endpoint?: string;
  data?: JsonObject;
  tags?: string[];
  retry?: RetryPolicy;
  timeoutMs?: number;
  /** The new key (null removes it); a key another schedule holds: `ConflictError` (path `/key`). */
  key?: string | null;
  /** The new flow-control key (null: none); executions made before keep theirs. */
  flowControlKey?: string | null;
  /** Epoch ms (UTC) of the patch: a new `scheduledAt` is due from the later of it and this. */
  now: number;
}

/** Params of {@link Store.cronCreate}. */
export interface CronCreateParams extends JobRequestParams, SuccessParams, IdentityParams, CronLifeParams {
  /** When given, the change writes this audit event in its transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
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
  /** Consecutive failed executions that pause the job (1–1,000); null or absent: never. */
  pauseAfterFailures?: number | null;
  /** Labels to find the job by (the rules of a schedule's `tags`); absent: none. */
  tags?: string[];
  now: number;
}

/** Params of {@link Store.cronUpdate}: absent fields keep their values, null sets null. */
export interface CronUpdateParams extends JobRequestParams, SuccessParams, CronLifeParams {
  /** When given, the change writes this audit event in its transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
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
  pauseAfterFailures?: number | null;
  /** The new key (null removes it); a key another cron job holds: `ConflictError` (path `/key`). */
  key?: string | null;
  /** The new flow-control key (null: none); executions made before keep theirs. */
  flowControlKey?: string | null;
  /** Kept when absent; cleared when the job is Active after the update (cron-patch.ts). */
  pausedReason?: string | null;
  /** Replaces the job's tags. */
  tags?: string[];
  /**
   * Epoch ms (UTC): when given, `nextInvocation` becomes the patched job's next occurrence strictly
   * after this instant (in its time zone, UTC when null) within its window and limit; when
   * absent, `nextInvocation` is kept. A patched job left with no occurrence becomes Completed
   * (an Active one) or stays Paused, unless the patch gives `status` Active (cron-patch.ts).
   */
  recomputeAfter?: number;
}

/**
 * The window, limit and jitter of a cron job in its create and update params (docs/cron.md, "Start,
 * end and limits", "Jitter"). On a create an absent field is null (`jitterMs` 0); on an update it
 * is kept, and null clears it.
 */
export interface CronLifeParams {
  /** Epoch ms (UTC) before which the job has no occurrence. */
  startAt?: number | null;
  /** Epoch ms (UTC) at and after which the job has no occurrence. */
  endAt?: number | null;
  /** The job is Completed once `invocations` reaches this (1–1,000,000,000). */
  maxInvocations?: number | null;
  /** Largest jitter of an occurrence, ms (0–3,600,000; src/store/rules/cron-life.ts). */
  jitterMs?: number;
}
