/**
 * The row mapping of `cron_jobs` for both stores (see store/rows/jobs.ts for the other tables and for
 * {@link RowCodec}).
 */
import type { CronJob, CronJobStatus, ExecutionStatus, JsonObject, MisfirePolicy, OverlapPolicy } from '../../domain/types.js';
import { DEFAULT_SUCCESS_STATUSES } from '../../domain/success-statuses.js';
import {
  IDENTITY_COLUMNS,
  identityFromRow,
  identityToRow,
  jsonText,
  newIdentity,
  newRequest,
  newSuccessStatuses,
  REQUEST_COLUMNS,
  requestFromRow,
  requestToRow,
  retryFromRow,
  retryToRow,
  successStatusesFromRow,
  type IdentityRow,
  type RequestRow,
  type RetryRow,
  type RowCodec,
} from './jobs.js';
import type { CronCreateParams } from '../contract/jobs.js';
import type { CronJobRecord } from '../transfer/records.js';

/** Every column of `cron_jobs` but `last_execution_id` (derived), in the order of the table. */
export const CRON_JOB_COLUMNS = [
  'id',
  'expression',
  'name',
  'timezone',
  'status',
  'endpoint',
  'data',
  'invocations',
  'next_invocation',
  'created_at',
  'retry_max_attempts',
  'retry_initial_delay_ms',
  'retry_max_delay_ms',
  'timeout_ms',
  'misfire',
  'overlap',
  'skipped_occurrences',
  ...REQUEST_COLUMNS,
  'retry_delays_ms',
  'success_statuses',
  'pause_after_failures',
  'paused_reason',
  'consecutive_failures',
  'start_at',
  'end_at',
  'max_invocations',
  'jitter_ms',
  'tags',
  ...IDENTITY_COLUMNS,
] as const;
type CronJobColumn = (typeof CRON_JOB_COLUMNS)[number];

/**
 * The columns a cron update writes (besides `id`, which finds the row): all but `invocations`,
 * `skipped_occurrences`, `created_at` and `managed_by`, which only the claim and the insert write.
 * (`consecutive_failures` is written too: a resume starts it at 0, cron-patch.ts.)
 */
export const CRON_JOB_UPDATE_COLUMNS = CRON_JOB_COLUMNS.filter(
  (c) => c !== 'id' && c !== 'invocations' && c !== 'skipped_occurrences' && c !== 'created_at' && c !== 'managed_by',
);

/** A row of `cron_jobs` ({@link CRON_JOB_COLUMNS}); `data` as the driver gives JSON. */
export interface CronJobRow extends RequestRow, RetryRow, IdentityRow {
  id: string;
  expression: string;
  name: string | null;
  timezone: string | null;
  status: CronJobStatus;
  endpoint: string;
  data: unknown;
  invocations: number;
  next_invocation: number;
  created_at: number;
  timeout_ms: number;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
  skipped_occurrences: number;
  /** JSON as the driver gives it. */
  success_statuses: unknown;
  pause_after_failures: number | null;
  paused_reason: string | null;
  consecutive_failures: number;
  start_at: number | null;
  end_at: number | null;
  max_invocations: number | null;
  jitter_ms: number;
  /** JSON array as the driver gives it. */
  tags: unknown;
}

/** A row of `cron_jobs` joined with its newest execution (`last_execution_id`, LEFT JOIN). */
export interface CronRow extends CronJobRow {
  last_execution_id: string | null;
  /** `scheduled_for` of the newest execution, or null. */
  last_invocation: number | null;
  /** `status` of the newest execution, or null. */
  last_status: ExecutionStatus | null;
}

/** Row → cron job as stored (without the newest execution's fields). */
export function cronRecordFromRow(codec: RowCodec, r: CronJobRow): CronJobRecord {
  return {
    id: r.id,
    expression: r.expression,
    name: r.name,
    invocations: r.invocations,
    timezone: r.timezone,
    status: r.status,
    endpoint: r.endpoint,
    data: (codec.json(r.data) as JsonObject | null) ?? null,
    createdAt: r.created_at,
    nextInvocation: r.next_invocation,
    retry: retryFromRow(codec, r),
    timeoutMs: r.timeout_ms,
    misfire: r.misfire,
    overlap: r.overlap,
    skippedOccurrences: r.skipped_occurrences,
    ...requestFromRow(codec, r),
    successStatuses: successStatusesFromRow(codec, r.success_statuses),
    pauseAfterFailures: r.pause_after_failures ?? null,
    pausedReason: r.paused_reason ?? null,
    consecutiveFailures: r.consecutive_failures ?? 0,
    startAt: r.start_at ?? null,
    endAt: r.end_at ?? null,
    maxInvocations: r.max_invocations ?? null,
    jitterMs: r.jitter_ms ?? 0,
    tags: (codec.json(r.tags) as string[] | null) ?? [],
    ...identityFromRow(r),
  };
}

/** Joined row → cron job, with `lastInvocation`/`lastStatus` of its newest execution (null without one). */
export function cronJobFromRow(codec: RowCodec, r: CronRow): CronJob {
  return { ...cronRecordFromRow(codec, r), lastInvocation: r.last_invocation ?? null, lastStatus: r.last_status ?? null };
}

/** The cron job that {@link CronCreateParams} make: `Active`, no invocation yet, created at `p.now`. */
export function newCronJob(p: CronCreateParams): CronJobRecord {
  return {
    id: p.id,
    expression: p.expression,
    name: p.name ?? null,
    invocations: 0,
    timezone: p.timezone ?? null,
    status: 'Active',
    endpoint: p.endpoint,
    data: p.data ?? null,
    createdAt: p.now,
    nextInvocation: p.nextInvocation,
    retry: p.retry,
    timeoutMs: p.timeoutMs,
    misfire: p.misfire,
    overlap: p.overlap,
    skippedOccurrences: 0,
    ...newRequest(p),
    successStatuses: newSuccessStatuses(p),
    pauseAfterFailures: p.pauseAfterFailures ?? null,
    pausedReason: null,
    consecutiveFailures: 0,
    startAt: p.startAt ?? null,
    endAt: p.endAt ?? null,
    maxInvocations: p.maxInvocations ?? null,
    jitterMs: p.jitterMs ?? 0,
    tags: p.tags ?? [],
    ...newIdentity(p),
  };
}

/** Cron job → the values of its row (`data` as JSON text, NULL for null). */
export function cronJobToRow(j: CronJobRecord): Record<CronJobColumn, unknown> {
  return {
    id: j.id,
    expression: j.expression,
    name: j.name,
    timezone: j.timezone,
    status: j.status,
    endpoint: j.endpoint,
    data: jsonText(j.data),
    invocations: j.invocations,
    next_invocation: j.nextInvocation,
    created_at: j.createdAt,
    ...retryToRow(j.retry),
    timeout_ms: j.timeoutMs,
    misfire: j.misfire,
    overlap: j.overlap,
    skipped_occurrences: j.skippedOccurrences,
    ...requestToRow(j),
    success_statuses: JSON.stringify(j.successStatuses ?? DEFAULT_SUCCESS_STATUSES),
    pause_after_failures: j.pauseAfterFailures ?? null,
    paused_reason: j.pausedReason ?? null,
    consecutive_failures: j.consecutiveFailures ?? 0,
    start_at: j.startAt ?? null,
    end_at: j.endAt ?? null,
    max_invocations: j.maxInvocations ?? null,
    jitter_ms: j.jitterMs ?? 0,
    tags: JSON.stringify(j.tags ?? []),
    ...identityToRow(j),
  };
}
