/**
 * Cron job use cases (the /cron endpoints of docs/openapi.json) and the occurrence preview
 * (expressions and zones: docs/cron.md).
 *
 * `nextInvocation` is always the next occurrence strictly after "now" when it is (re)computed:
 * at create; at a patch that changes `expression` or `timezone`; at a patch that moves a job from
 * `Paused` to `Active` (so the occurrences missed while paused are not run). A `Paused` job is
 * shown with the occurrence it would run next if resumed now, computed when it is read.
 */
import { auditRecord, type AuditContext } from '../domain/audit.js';
import { cronJobNext, lifeNext, nextOccurrence, nextOccurrences, parseCronExpression } from '../cron/index.js';
import { CRON_JOB_STATUSES, MISFIRE_POLICIES, OVERLAP_POLICIES } from '../domain/enums.js';
import { InvalidInputError, NotFoundError } from '../domain/errors.js';
import { isUuid, newId } from '../domain/ids.js';
import { DEFAULT_SUCCESS_STATUSES } from '../domain/success-statuses.js';
import { parseIsoInstant } from '../domain/time.js';
import type { CronJob, CronJobStatus, JsonObject, MisfirePolicy, OverlapPolicy } from '../domain/types.js';
import type { CronJobPage, CronUpdateParams } from '../store/store.js';
import type { JobServiceContext } from './context.js';
import { checkDelivery, checkRetryDelays, createRetry, createRetryBase, deliveryDefaults, mergeRetry, type RetryInput } from './delivery.js';
import { checkIdentity, type IdentityInput } from './job-identity.js';
import { listParams, type JobListInput } from './job-lists.js';
import { checkCronOutcomeFields, checkPausedReasonStatus, type CronOutcomeInput } from './outcome-fields.js';
import { changesShape, checkRequestFields, checkRequestShape, DEFAULT_METHOD, patchedShape, type RequestInput } from './request.js';
import { Checks, PREVIEW_COUNT_MAX, PREVIEW_COUNT_MIN, ruleContext, wholeNumberMessage } from './rules.js';
import { applySecrets, checkSecretsFields, type SecretsInput } from './secrets-input.js';

/** Zone in which an expression is evaluated when the job has none (docs/cron.md). */
export const DEFAULT_TIME_ZONE = 'UTC';

/** Occurrences answered by a preview when no count is given. */
export const PREVIEW_COUNT_DEFAULT = 5;

/**
 * What a new job does with occurrences missed during downtime, when it does not say: `once`, of
 * the occurrences missed only the first runs (rules: src/store/rules/claim.ts).
 */
export const DEFAULT_MISFIRE: MisfirePolicy = 'once';

/** Whether a new job's occurrences may overlap, when it does not say: they may. */
export const DEFAULT_OVERLAP: OverlapPolicy = 'allow';

const NO_OCCURRENCE = 'has no occurrence after now';

/**
 * Input of {@link createCronJob} (`POST /cron`). Absent nullable fields are stored as null;
 * absent delivery settings take the context's defaults, `misfire` is `once`, `overlap` `allow`,
 * `successStatuses` `["2xx"]`, `pauseAfterFailures` null (outcome-fields.ts),
 * `method` `POST`, `headers` `{}` (rules of the request fields: request.ts).
 */
export interface CronCreateInput extends Omit<RequestInput, 'data'>, SecretsInput, Omit<CronOutcomeInput, 'pausedReason'>, IdentityInput {
  expression: string;
  name?: string | null;
  /** IANA zone; null or absent: the expression is evaluated in UTC (the job shows null). */
  timezone?: string | null;
  endpoint: string;
  data?: JsonObject | null;
  /** Any fields of a retry policy (attempts, first delay, delay cap); the others take the defaults. */
  retry?: RetryInput;
  /** Timeout of one attempt, ms (1,000–900,000). */
  timeoutMs?: number;
  misfire?: MisfirePolicy;
  overlap?: OverlapPolicy;
  /** ISO 8601 instant (`Z` or an offset) before which the job has no occurrence, or null. */
  startAt?: string | null;
  /** ISO 8601 instant at and after which the job has no occurrence, or null; after `startAt`. */
  endAt?: string | null;
  /** 1–1,000,000,000, or null: no limit. */
  maxInvocations?: number | null;
  /** 0–3,600,000 ms; default 0. */
  jitterMs?: number;
  /** Labels (default `[]`), with the rules of a schedule's `tags` (rules.ts). */
  tags?: string[];
}

/**
 * Input of {@link updateCronJob}: absent fields keep their values, null sets a nullable field to
 * null; the fields of a partial `retry` replace those of the stored policy.
 */
export type CronPatch = Omit<CronUpdateParams, 'id' | 'retry' | 'recomputeAfter' | 'auth' | 'secrets' | 'startAt' | 'endAt'> & {
  retry?: RetryInput;
} & SecretsInput &
  Pick<CronCreateInput, 'startAt' | 'endAt'>;

/** Input of {@link previewCron} (`GET /cron/preview`). */
export interface CronPreviewInput {
  expression: string;
  timezone?: string | null;
  /** ISO 8601 instant with `Z` or an offset; default: now. */
  from?: string;
  /** 1–100; default 5. */
  count?: number;
  /**
   * ISO 8601 instant an `@every` expression counts from (as a job's start or creation);
   * default: now. Ignored by other expressions.
   */
  startAt?: string;
}

/**
 * Stores a new `Active` job with `invocations` 0 and `nextInvocation` = its next occurrence after
 * now within its window (not before `startAt`, before `endAt`), and wakes the dispatcher for it.
 * @throws InvalidInputError naming every faulty field (also when the expression has no occurrence
 *   after now: `/expression`; when the window leaves it none: `/endAt`; `endAt` not after
 *   `startAt`: `/endAt`)
 */
export async function createCronJob(ctx: JobServiceContext, input: CronCreateInput, audit?: AuditContext): Promise<CronJob> {
  const defaults = deliveryDefaults(ctx);
  const checks = new Checks(ruleContext(ctx)).required('/expression', input.expression).required('/endpoint', input.endpoint);
  checkFields(checks, input);
  checkIdentity(checks, input);
  checkDelivery(checks, input, createRetryBase(defaults.retry, input.retry));
  if (checks.problems.length === 0) {
    checkRequestShape(checks, { method: input.method ?? DEFAULT_METHOD, body: input.body ?? null, data: input.data ?? null }, input);
  }
  checkWindow(checks, instantOrNull(input.startAt), instantOrNull(input.endAt));
  checks.throwIfAny();
  const now = ctx.clock.now();
  const life = { startAt: instantOrNull(input.startAt), endAt: instantOrNull(input.endAt), maxInvocations: input.maxInvocations ?? null, invocations: 0 };
  const parsed = parseCronExpression(input.expression);
  const zone = input.timezone ?? DEFAULT_TIME_ZONE;
  const next = lifeNext(life, now, (ms) => nextOccurrence(parsed, zone, ms, life.startAt ?? now));
  if (next === null) throw InvalidInputError.field('/expression', NO_OCCURRENCE);
  // A window with no occurrence left is refused rather than stored Completed: it is a mistake.
  if (next === 'ended') throw InvalidInputError.field('/endAt', 'leaves the job no occurrence after now (with its expression and startAt)');
  const id = newId();
  const sealed = applySecrets(ctx, id, input, null, input.headers ?? {});
  const job = await ctx.store.cronCreate({
    id,
    expression: input.expression,
    name: input.name ?? null,
    timezone: input.timezone ?? null,
    endpoint: input.endpoint,
    data: input.data ?? null,
    nextInvocation: next,
    retry: createRetry(defaults.retry, input.retry),
    timeoutMs: input.timeoutMs ?? defaults.timeoutMs,
    misfire: input.misfire ?? DEFAULT_MISFIRE,
    overlap: input.overlap ?? DEFAULT_OVERLAP,
    successStatuses: input.successStatuses ?? [...DEFAULT_SUCCESS_STATUSES],
    pauseAfterFailures: input.pauseAfterFailures ?? null,
    tags: input.tags ?? [],
    method: input.method ?? DEFAULT_METHOD,
    headers: input.headers ?? {},
    body: input.body ?? null,
    ...life,
    jitterMs: input.jitterMs ?? 0,
    ...sealed,
    key: input.key ?? null,
    managedBy: input.managedBy ?? null,
    flowControlKey: input.flowControlKey ?? null,
    now,
    audit: auditRecord(audit, 'cron.create', now),
  });
  ctx.wake(job.nextInvocation);
  return job;
}

/** The job with this id, or null (also for ids that are not UUIDs); a `Paused` job as described above. */
export async function getCronJob(ctx: JobServiceContext, id: string): Promise<CronJob | null> {
  if (!isUuid(id)) return null;
  const job = await ctx.store.cronGet({ id });
  return job && present(job, ctx.clock.now());
}

/**
 * A page of cron jobs, oldest first (by `createdAt`, then id), filtered by status, tags and name (see
 * `Store.cronPage`), `Paused` ones as described above.
 * @param pathPrefix prefixed to the field paths of errors (`/query` for a query string)
 * @throws InvalidInputError naming every faulty parameter (`job-lists.ts`), or a cursor the store
 *   did not make (`/query/cursor`)
 */
export async function listCronJobs(
  ctx: JobServiceContext,
  input: JobListInput<CronJobStatus> = {},
  pathPrefix = '',
): Promise<CronJobPage> {
  const page = await ctx.store.cronPage(listParams(input, CRON_JOB_STATUSES, ruleContext(ctx), pathPrefix));
  const now = ctx.clock.now();
  return { cronJobs: page.cronJobs.map((j) => present(j, now)), nextCursor: page.nextCursor };
}

/**
 * Partial update. A `pausedReason` is accepted only when the job is `Paused` after the patch;
 * a job `Active` after it has none, and one resumed starts its `consecutiveFailures` at 0
 * (cron-patch.ts). Recomputes `nextInvocation` (strictly after now, in the store's transaction)
 * when `expression` or `timezone` change or the job goes from `Paused` to `Active`; wakes the
 * dispatcher when the job is `Active` afterwards. A partial `retry` is merged into the policy
 * read before the update (two patches racing on different fields of `retry` may lose one).
 * @throws InvalidInputError naming every faulty field (checked first, whatever the id; the rule
 *   `maxDelayMs ≥ initialDelayMs` against the stored policy after the 404 check);
 *   NotFoundError for an unknown id; ConflictError (on `/key`) when another cron job has the key
 */
export async function updateCronJob(ctx: JobServiceContext, id: string, patch: CronPatch, audit?: AuditContext): Promise<CronJob> {
  const checks = new Checks(ruleContext(ctx));
  checkFields(checks, patch);
  checks.rule('/key', 'job-key', patch.key, true);
  checks.rule('/flowControlKey', 'flow-control-key', patch.flowControlKey, true);
  checks.oneOf('/status', patch.status, CRON_JOB_STATUSES);
  if (patch.status === 'Completed') checks.add('/status', 'Completed is set by the service: give Active or Paused');
  checkDelivery(checks, patch, null);
  checks.throwIfAny();
  if (!isUuid(id)) throw new NotFoundError('No cron job has this id.');

  // Whether to recompute depends on the job before the patch, which the store does not see: it
  // is read first. A patch racing another patch of the same job may then recompute once too
  // often or too rarely; either leaves a valid future occurrence. Recomputing when nothing changed
  // is avoided on purpose: it would skip an occurrence that is due but not yet claimed.
  const before = await ctx.store.cronGet({ id });
  if (before === null) throw new NotFoundError('No cron job has this id.');
  const startAt = patch.startAt === undefined ? undefined : instantOrNull(patch.startAt);
  const endAt = patch.endAt === undefined ? undefined : instantOrNull(patch.endAt);
  const changes =
    (patch.expression !== undefined && patch.expression !== before.expression) ||
    (patch.timezone !== undefined && patch.timezone !== before.timezone) ||
    (patch.status === 'Active' && before.status !== 'Active') ||
    (startAt !== undefined && startAt !== before.startAt) ||
    (endAt !== undefined && endAt !== before.endAt) ||
    (patch.maxInvocations !== undefined && patch.maxInvocations !== before.maxInvocations);

  const retry = patch.retry === undefined ? undefined : mergeRetry(before.retry, patch.retry);
  const after = changesShape(patch) ? checkRequestShape(new Checks(), patchedShape(before, patch), patch) : new Checks();
  checkPausedReasonStatus(after, patch, before.status);
  checkWindow(after, startAt === undefined ? before.startAt : startAt, endAt === undefined ? before.endAt : endAt);
  if (before.status === 'Completed' && patch.status === 'Paused') after.add('/status', 'a Completed job can only be made Active');
  if (retry !== undefined) checkRetryDelays(after, retry, patch.retry);
  after.throwIfAny();
  const sealed = applySecrets(ctx, id, patch, before, patch.headers ?? before.headers);

  const now = ctx.clock.now();
  const params: CronUpdateParams = {
    id,
    expression: patch.expression,
    name: patch.name,
    timezone: patch.timezone,
    status: patch.status,
    endpoint: patch.endpoint,
    data: patch.data,
    retry,
    timeoutMs: patch.timeoutMs,
    misfire: patch.misfire,
    overlap: patch.overlap,
    successStatuses: patch.successStatuses,
    pauseAfterFailures: patch.pauseAfterFailures,
    pausedReason: patch.pausedReason,
    tags: patch.tags,
    method: patch.method,
    headers: patch.headers,
    body: patch.body,
    startAt,
    endAt,
    maxInvocations: patch.maxInvocations,
    jitterMs: patch.jitterMs,
    ...sealed,
    key: patch.key,
    flowControlKey: patch.flowControlKey,
    // A change of status is a pause or a resume; any other patch an update.
    audit: auditRecord(audit, patch.status !== undefined && patch.status !== before.status ? (patch.status === 'Paused' ? 'cron.pause' : 'cron.resume') : 'cron.update', now),
  };
  // The store computes the occurrence from the job as patched, in its transaction; a job without
  // one after now fails with InvalidInputError at `/expression`, one whose window or limit leaves
  // none becomes Completed (or fails at `/status` when the patch says Active): cron-patch.ts.
  if (changes) params.recomputeAfter = now;
  const job = await ctx.store.cronUpdate(params);
  if (job === null) throw new NotFoundError('No cron job has this id.');
  if (job.status === 'Active') ctx.wake(job.nextInvocation);
  return present(job, now);
}

/**
 * Deletes a job; it never fires afterwards.
 * @throws NotFoundError for an unknown id
 */
export async function deleteCronJob(ctx: JobServiceContext, id: string, audit?: AuditContext): Promise<void> {
  if (!isUuid(id) || !(await ctx.store.cronDelete({ id, audit: auditRecord(audit, 'cron.delete', ctx.clock.now()) }))) throw new NotFoundError('No cron job has this id.');
}

/**
 * The next `count` occurrences of `expression` in `timezone` (UTC when null) strictly after
 * `from` (now when absent), as epoch ms (UTC), computed by the cron module that advances jobs.
 * An `@every` expression counts from `startAt` (now when absent): its occurrences are
 * `startAt + k·interval`, k ≥ 0.
 * @param pathPrefix prefixed to the field paths of errors (`/query` for a query string)
 * @throws InvalidInputError naming every faulty field
 */
export function previewCron(
  ctx: Pick<JobServiceContext, 'clock' | 'limits'>,
  input: CronPreviewInput,
  pathPrefix = '',
): number[] {
  const count = input.count ?? PREVIEW_COUNT_DEFAULT;
  const checks = new Checks(ruleContext(ctx))
    .required(`${pathPrefix}/expression`, input.expression)
    .rule(`${pathPrefix}/expression`, 'cron-expression', input.expression)
    .rule(`${pathPrefix}/timezone`, 'time-zone', input.timezone, true)
    .rule(`${pathPrefix}/from`, 'instant', input.from)
    .rule(`${pathPrefix}/startAt`, 'instant', input.startAt);
  if (!Number.isInteger(count) || count < PREVIEW_COUNT_MIN || count > PREVIEW_COUNT_MAX) {
    checks.add(`${pathPrefix}/count`, wholeNumberMessage(PREVIEW_COUNT_MIN, PREVIEW_COUNT_MAX));
  }
  checks.throwIfAny();
  const now = ctx.clock.now();
  const from = input.from === undefined ? now : parseIsoInstant(input.from)!;
  const anchor = input.startAt === undefined ? now : parseIsoInstant(input.startAt)!;
  return nextOccurrences(parseCronExpression(input.expression), input.timezone ?? DEFAULT_TIME_ZONE, from, count, anchor);
}

/** Largest `maxInvocations` of a cron job. */
export const MAX_INVOCATIONS_MAX = 1_000_000_000;

/** Largest `jitterMs` of a cron job: one hour. */
export const JITTER_MS_MAX = 3_600_000;

/** A whole number in [min, max] at `path`, when given (null and absent pass). */
function wholeIn(checks: Checks, path: string, v: number | null | undefined, min: number, max: number): void {
  if (v !== undefined && v !== null && (!Number.isInteger(v) || v < min || v > max)) checks.add(path, wholeNumberMessage(min, max));
}

function checkFields(checks: Checks, input: CronPatch): void {
  checks
    .rule('/expression', 'cron-expression', input.expression)
    .rule('/name', 'name', input.name, true)
    .rule('/timezone', 'time-zone', input.timezone, true)
    .rule('/endpoint', 'endpoint', input.endpoint)
    .object('/data', input.data, true)
    .oneOf('/misfire', input.misfire, MISFIRE_POLICIES)
    .oneOf('/overlap', input.overlap, OVERLAP_POLICIES)
    .tags('/tags', input.tags)
    .rule('/startAt', 'instant', input.startAt, true)
    .rule('/endAt', 'instant', input.endAt, true);
  wholeIn(checks, '/maxInvocations', input.maxInvocations, 1, MAX_INVOCATIONS_MAX);
  wholeIn(checks, '/jitterMs', input.jitterMs, 0, JITTER_MS_MAX);
  checkRequestFields(checks, input);
  checkSecretsFields(checks, input);
  checkCronOutcomeFields(checks, input);
}

/**
 * `endAt` after `startAt` when both are set (epoch ms, UTC; null: unset), else a problem at `/endAt`.
 */
function checkWindow(checks: Checks, startAt: number | null, endAt: number | null): void {
  if (startAt !== null && endAt !== null && endAt <= startAt) checks.add('/endAt', 'must be after startAt');
}

/** An ISO 8601 instant already checked by the `instant` rule as epoch ms, null for null or absent. */
function instantOrNull(iso: string | null | undefined): number | null {
  return iso === undefined || iso === null ? null : parseIsoInstant(iso);
}

/**
 * A `Paused` job shows the occurrence it would run next if resumed at `now`, within its window
 * and limit (the stored one when none is left).
 */
function present(job: CronJob, now: number): CronJob {
  if (job.status !== 'Paused') return job;
  const next = lifeNext(job, now, (ms) => cronJobNext(job, ms));
  return typeof next === 'number' ? { ...job, nextInvocation: next } : job;
}
