/** One-time schedule use cases (spec §4 /schedules; issue #2 §2). */
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { isUuid, newId } from '../domain/ids.js';
import { parseIsoInstant } from '../domain/time.js';
import type { JsonObject, Schedule } from '../domain/types.js';
import type { JobServiceContext } from './context.js';
import { Checks } from './rules.js';

/** Input of {@link createSchedule} (spec §4 POST /schedules). `data` defaults to `{}`, `tags` to `[]`. */
export interface ScheduleCreateInput {
  name: string;
  /** ISO 8601 with `Z` or an offset; stored as the same instant. */
  scheduledAt: string;
  endpoint: string;
  data?: JsonObject;
  tags?: string[];
}

/** Input of {@link updateSchedule}: absent fields keep their values (spec §4 PATCH /schedules/{id}). */
export type SchedulePatch = Partial<ScheduleCreateInput>;

/**
 * Stores a new `Pending` schedule and wakes the dispatcher for its `scheduledAt` (a past instant
 * runs at once).
 * @throws InvalidInputError naming every faulty field
 */
export async function createSchedule(ctx: JobServiceContext, input: ScheduleCreateInput): Promise<Schedule> {
  const scheduledAt = check(input, true);
  const schedule = await ctx.store.scheduleCreate({
    id: newId(),
    name: input.name,
    scheduledAt: scheduledAt!,
    endpoint: input.endpoint,
    data: input.data ?? {},
    tags: input.tags ?? [],
    now: ctx.clock.now(),
  });
  ctx.wake(schedule.scheduledAt);
  return schedule;
}

/** The schedule with this id, or null (also for ids that are not UUIDs: spec §4 "the result is null"). */
export async function getSchedule(ctx: JobServiceContext, id: string): Promise<Schedule | null> {
  return isUuid(id) ? ctx.store.scheduleGet({ id }) : null;
}

/** Every schedule, oldest first. */
export async function listSchedules(ctx: JobServiceContext): Promise<Schedule[]> {
  return ctx.store.scheduleList();
}

/**
 * Partial update of a `Pending` schedule; wakes the dispatcher for its (new) `scheduledAt`.
 * @throws InvalidInputError naming every faulty field (checked first, whatever the id);
 *   NotFoundError for an unknown id; ConflictError when the schedule is no longer `Pending`
 */
export async function updateSchedule(ctx: JobServiceContext, id: string, patch: SchedulePatch): Promise<Schedule> {
  const scheduledAt = check(patch, false);
  if (!isUuid(id)) throw new NotFoundError('No schedule has this id.');
  const result = await ctx.store.scheduleUpdate({
    id,
    name: patch.name,
    scheduledAt,
    endpoint: patch.endpoint,
    data: patch.data,
    tags: patch.tags,
  });
  if (result === 'not_found') throw new NotFoundError('No schedule has this id.');
  if (result === 'not_pending') {
    throw new ConflictError('The schedule is no longer Pending (it ran or is running) and cannot be changed.');
  }
  ctx.wake(result.scheduledAt);
  return result;
}

/**
 * Deletes a schedule; it never fires afterwards.
 * @throws NotFoundError for an unknown id
 */
export async function deleteSchedule(ctx: JobServiceContext, id: string): Promise<void> {
  if (!isUuid(id) || !(await ctx.store.scheduleDelete({ id }))) throw new NotFoundError('No schedule has this id.');
}

/** Checks the present fields (all required ones on `create`); returns `scheduledAt` as epoch ms (UTC) when given. */
function check(input: SchedulePatch, create: boolean): number | undefined {
  const checks = new Checks();
  if (create) checks.required('/name', input.name).required('/scheduledAt', input.scheduledAt).required('/endpoint', input.endpoint);
  checks
    .rule('/name', 'name', input.name)
    .rule('/scheduledAt', 'instant', input.scheduledAt)
    .rule('/endpoint', 'endpoint', input.endpoint)
    .object('/data', input.data);
  if (input.tags !== undefined && !(Array.isArray(input.tags) && input.tags.every((t) => typeof t === 'string'))) {
    checks.add('/tags', 'must be an array of strings');
  }
  checks.throwIfAny();
  return input.scheduledAt === undefined ? undefined : (parseIsoInstant(input.scheduledAt) ?? undefined);
}
