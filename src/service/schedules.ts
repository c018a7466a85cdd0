/** One-time schedule use cases. */
import { auditRecord, type AuditContext } from '../domain/audit.js';
import { SCHEDULE_STATUSES } from '../domain/enums.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { isUuid, newId } from '../domain/ids.js';
import { DEFAULT_SUCCESS_STATUSES } from '../domain/success-statuses.js';
import { parseIsoInstant } from '../domain/time.js';
import type { JsonObject, RetryPolicy, Schedule, ScheduleStatus } from '../domain/types.js';
import type { ScheduleCreateParams, SchedulePage } from '../store/store.js';
import type { JobServiceContext } from './context.js';
import { checkDelivery, checkRetryDelays, createRetry, createRetryBase, deliveryDefaults, mergeRetry, type RetryInput } from './delivery.js';
import { checkIdentity, type IdentityInput } from './job-identity.js';
import { listParams, type ScheduleListInput } from './job-lists.js';
import { checkSuccessStatuses, type SuccessInput } from './outcome-fields.js';
import { changesShape, checkRequestFields, checkRequestShape, DEFAULT_METHOD, patchedShape, type RequestInput } from './request.js';
import { Checks, ruleContext, type RuleContext } from './rules.js';
import { applySecrets, checkSecretsFields, touchesSecrets, type SecretsInput } from './secrets-input.js';

/**
 * Input of {@link createSchedule}. `data` defaults to `{}`, `tags` to
 * `[]`; `retry` fields and `timeoutMs` to the context's defaults; `successStatuses` to
 * `["2xx"]` (outcome-fields.ts); `method` to `POST`, `headers`
 * to `{}`, `body` to null (rules: request.ts).
 */
export interface ScheduleCreateInput extends Omit<RequestInput, 'data'>, SecretsInput, SuccessInput, IdentityInput {
  name: string;
  /** ISO 8601 with `Z` or an offset; stored as the same instant. */
  scheduledAt: string;
  endpoint: string;
  data?: JsonObject;
  tags?: string[];
  /** Any fields of a retry policy; the others take the defaults. */
  retry?: RetryInput;
  /** Timeout of one attempt, ms (1,000–900,000). */
  timeoutMs?: number;
}

/**
 * Input of {@link updateSchedule}: absent fields keep their values (a null `key` removes it);
 * the fields of a partial `retry` replace those of the stored policy. `managedBy` is set at create only.
 */
export type SchedulePatch = Partial<Omit<ScheduleCreateInput, 'managedBy'>>;

const NOT_FOUND = 'No schedule has this id.';
const NOT_PENDING = 'The schedule is no longer Pending (it ran, is running or was triggered) and cannot be changed.';

/**
 * Stores a new `Pending` schedule and wakes the dispatcher for its `scheduledAt` (a past instant
 * runs at once).
 * @throws InvalidInputError naming every faulty field
 */
export async function createSchedule(ctx: JobServiceContext, input: ScheduleCreateInput, audit?: AuditContext): Promise<Schedule> {
  const schedule = await ctx.store.scheduleCreate(scheduleCreateParams(ctx, input, audit));
  ctx.wake(schedule.scheduledAt);
  return schedule;
}

/**
 * What the store is asked to create for `input`: checked, defaults filled in, a new id, its
 * secrets sealed (secrets-input.ts). Stores nothing.
 * @throws InvalidInputError naming every faulty field
 */
export function scheduleCreateParams(ctx: JobServiceContext, input: ScheduleCreateInput, audit?: AuditContext): ScheduleCreateParams {
  const defaults = deliveryDefaults(ctx);
  const now = ctx.clock.now();
  const scheduledAt = check(input, true, createRetryBase(defaults.retry, input.retry), ruleContext(ctx), now);
  const id = newId();
  return {
    id,
    name: input.name,
    scheduledAt: scheduledAt!,
    endpoint: input.endpoint,
    data: input.data ?? {},
    tags: input.tags ?? [],
    retry: createRetry(defaults.retry, input.retry),
    timeoutMs: input.timeoutMs ?? defaults.timeoutMs,
    successStatuses: input.successStatuses ?? [...DEFAULT_SUCCESS_STATUSES],
    method: input.method ?? DEFAULT_METHOD,
    headers: input.headers ?? {},
    body: input.body ?? null,
    ...applySecrets(ctx, id, input, null, input.headers ?? {}),
    key: input.key ?? null,
    managedBy: input.managedBy ?? null,
    flowControlKey: input.flowControlKey ?? null,
    now,
    audit: auditRecord(audit, 'schedule.create', now),
  };
}

/** The schedule with this id, or null (also for ids that are not UUIDs: an unknown id reads as null, not as an error). */
export async function getSchedule(ctx: JobServiceContext, id: string): Promise<Schedule | null> {
  return isUuid(id) ? ctx.store.scheduleGet({ id }) : null;
}

/**
 * A page of schedules, oldest first (by `createdAt`, then id), filtered (see
 * `Store.schedulePage` for the order, the cost and when a page may be short).
 * @param pathPrefix prefixed to the field paths of errors (`/query` for a query string)
 * @throws InvalidInputError naming every faulty parameter (`job-lists.ts`), or a cursor the store
 *   did not make (`/query/cursor`)
 */
export async function listSchedules(
  ctx: JobServiceContext,
  input: ScheduleListInput<ScheduleStatus> = {},
  pathPrefix = '',
): Promise<SchedulePage> {
  return ctx.store.schedulePage(listParams(input, SCHEDULE_STATUSES, ruleContext(ctx), pathPrefix));
}

/**
 * Partial update of a `Pending` schedule; wakes the dispatcher for its (new) `scheduledAt`.
 * A partial `retry` is merged into the stored policy, read first: two patches racing on different
 * fields of `retry` may lose one of them (each writes a whole policy); neither can store an
 * invalid one.
 * @throws InvalidInputError naming every faulty field (checked first, whatever the id; the rule
 *   `maxDelayMs ≥ initialDelayMs` against the stored policy after the 404 and 409 checks);
 *   NotFoundError for an unknown id; ConflictError when the schedule is no longer `Pending`, or
 *   (on `/key`) when another schedule has the key
 */
export async function updateSchedule(ctx: JobServiceContext, id: string, patch: SchedulePatch, audit?: AuditContext): Promise<Schedule> {
  const scheduledAt = check(patch, false, null, ruleContext(ctx), ctx.clock.now());
  if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
  let retry: RetryPolicy | undefined;
  let sealed: ReturnType<typeof applySecrets> = {};
  // Rules between fields of the stored job and of the patch: the stored job is read first (a
  // racing patch may slip between; neither can store a job that breaks a rule on its own fields).
  if (patch.retry !== undefined || changesShape(patch) || touchesSecrets(patch)) {
    const stored = await ctx.store.scheduleGet({ id });
    if (stored === null) throw new NotFoundError(NOT_FOUND);
    if (stored.status !== 'Pending') throw new ConflictError(NOT_PENDING);
    const checks = checkRequestShape(new Checks(), patchedShape(stored, patch), patch);
    if (patch.retry !== undefined) checkRetryDelays(checks, (retry = mergeRetry(stored.retry, patch.retry)), patch.retry);
    checks.throwIfAny();
    sealed = applySecrets(ctx, id, patch, stored, patch.headers ?? stored.headers);
  }
  const result = await ctx.store.scheduleUpdate({
    id,
    name: patch.name,
    scheduledAt,
    endpoint: patch.endpoint,
    data: patch.data,
    tags: patch.tags,
    retry,
    timeoutMs: patch.timeoutMs,
    successStatuses: patch.successStatuses,
    method: patch.method,
    headers: patch.headers,
    body: patch.body,
    ...sealed,
    key: patch.key,
    flowControlKey: patch.flowControlKey,
    now: ctx.clock.now(),
    audit: auditRecord(audit, 'schedule.update', ctx.clock.now()),
  });
  if (result === 'not_found') throw new NotFoundError(NOT_FOUND);
  if (result === 'not_pending') throw new ConflictError(NOT_PENDING);
  ctx.wake(result.scheduledAt);
  return result;
}

/**
 * Deletes a schedule; it never fires afterwards.
 * @throws NotFoundError for an unknown id
 */
export async function deleteSchedule(ctx: JobServiceContext, id: string, audit?: AuditContext): Promise<void> {
  if (!isUuid(id) || !(await ctx.store.scheduleDelete({ id, audit: auditRecord(audit, 'schedule.delete', ctx.clock.now()) }))) throw new NotFoundError(NOT_FOUND);
}

/**
 * Checks the present fields (all required ones on `create`); returns `scheduledAt` as epoch ms
 * (UTC) when given. A `scheduledAt` more than `maxPastMs` before `now` is refused (a typo, not an
 * intent); a nearer past one runs at once (docs/interface.md, "Past instants").
 * @param retryBase the policy a partial `retry` completes (null: not known yet, see {@link checkDelivery})
 * @param rules the limits and endpoint policy of the service
 * @param now epoch ms (UTC)
 */
function check(
  input: SchedulePatch & IdentityInput,
  create: boolean,
  retryBase: RetryPolicy | null,
  rules: RuleContext,
  now: number,
): number | undefined {
  const checks = new Checks(rules);
  if (create) checks.required('/name', input.name).required('/scheduledAt', input.scheduledAt).required('/endpoint', input.endpoint);
  checks
    .rule('/name', 'name', input.name)
    .rule('/scheduledAt', 'instant', input.scheduledAt)
    .rule('/endpoint', 'endpoint', input.endpoint)
    .object('/data', input.data)
    .tags('/tags', input.tags);
  const scheduledAt = typeof input.scheduledAt === 'string' ? (parseIsoInstant(input.scheduledAt) ?? undefined) : undefined;
  if (scheduledAt !== undefined && scheduledAt < now - rules.limits.maxPastMs) {
    checks.add('/scheduledAt', `must not be more than ${durationText(rules.limits.maxPastMs)} in the past (PUNCTUAL_MAX_PAST)`);
  }
  checkDelivery(checks, input, retryBase);
  checkSuccessStatuses(checks, input);
  checkRequestFields(checks, input);
  checkSecretsFields(checks, input);
  checkIdentity(checks, input);
  if (create && checks.problems.length === 0) {
    checkRequestShape(checks, { method: input.method ?? DEFAULT_METHOD, body: input.body ?? null, data: input.data ?? null }, input);
  }
  checks.throwIfAny();
  return scheduledAt;
}

/** `ms` in the largest unit of `PUNCTUAL_MAX_PAST` that divides it: `365 days`, `12 hours`, `90 seconds`. */
function durationText(ms: number): string {
  for (const [unitMs, unit] of [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ] as const) {
    if (ms % unitMs === 0) return `${ms / unitMs} ${unit}${ms === unitMs ? '' : 's'}`;
  }
  return `${ms / 1_000} seconds`;
}
