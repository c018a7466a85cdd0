/**
 * Many schedules at once (docs/interface.md, "Batch create"): every item checked by the rules of
 * a single create, then all stored in one transaction, or none.
 */
import type { AuditContext } from '../domain/audit.js';
import { ConflictError, InvalidInputError, type FieldProblem } from '../domain/errors.js';
import type { Schedule } from '../domain/types.js';
import type { ScheduleCreateParams } from '../store/store.js';
import type { JobServiceContext } from './context.js';
import { DEFAULT_LIMITS } from './limits.js';
import { scheduleCreateParams, type ScheduleCreateInput } from './schedules.js';

/**
 * Stores every schedule of `inputs` (1 to `limits.batch`) in one transaction and wakes the
 * dispatcher for the earliest.
 * @returns the schedules, in the order of `inputs`
 * @throws InvalidInputError naming every faulty field of every item (`/schedules/<index>/<field>`),
 *   or `/schedules` for an empty or too long list; ConflictError naming the item's `key` when two
 *   items share a key (`/schedules/<index>/key`, the later one) or a schedule has it already
 *   (`/key`); then nothing is stored
 */
export async function createSchedules(ctx: JobServiceContext, inputs: ScheduleCreateInput[], audit?: AuditContext): Promise<Schedule[]> {
  const max = ctx.limits?.batch ?? DEFAULT_LIMITS.batch;
  if (inputs.length === 0) throw InvalidInputError.field('/schedules', 'must have at least 1 schedule');
  if (inputs.length > max) throw InvalidInputError.field('/schedules', `must have at most ${max} schedules (PUNCTUAL_MAX_BATCH)`);
  const problems: FieldProblem[] = [];
  const params: ScheduleCreateParams[] = [];
  inputs.forEach((input, i) => {
    try {
      params.push(scheduleCreateParams(ctx, input, audit));
    } catch (err) {
      if (!(err instanceof InvalidInputError)) throw err;
      for (const p of err.errors) problems.push({ path: `/schedules/${i}${p.path}`, message: p.message });
    }
  });
  if (problems.length > 0) throw new InvalidInputError(problems);
  const seen = new Set<string>();
  params.forEach((p, i) => {
    if (p.key == null) return;
    if (seen.has(p.key)) {
      throw new ConflictError('Two schedules of the batch have the same key: keys are unique among schedules.', [
        { path: `/schedules/${i}/key`, message: 'is the key of an earlier schedule of the batch' },
      ]);
    }
    seen.add(p.key);
  });
  const created = await ctx.store.scheduleCreateMany(params);
  ctx.wake(Math.min(...created.map((s) => s.scheduledAt)));
  return created;
}
