/**
 * The backfill of a cron job (`POST /cron/{id}/backfill`, docs/cron.md "Backfill"): checks the
 * range, finds the occurrences in it by the claim's engine (`cronJobNext`) and the shared rule
 * (store/rules/backfill.ts), and has the store create the missing ones in one transaction.
 */
import { cronJobNext } from '../cron/index.js';
import { InvalidInputError, NotFoundError } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { parseIsoInstant } from '../domain/time.js';
import type { Execution } from '../domain/types.js';
import { BACKFILL_MAX, backfillOccurrences } from '../store/rules/backfill.js';
import type { JobServiceContext } from './context.js';
import { Checks } from './rules.js';
import { auditRecord, type AuditContext } from '../domain/audit.js';

export { BACKFILL_MAX };

/** Default `PUNCTUAL_EXECUTION_RETENTION` (7 days, ms), when the context gives none. */
export const DEFAULT_EXECUTION_RETENTION_MS = 7 * 86_400_000;

/** Input of {@link backfillCron}: ISO 8601 instants as given (unchecked). */
export interface CronBackfillInput {
  /** Inclusive. */
  from?: unknown;
  /** Exclusive. */
  to?: unknown;
}

/**
 * Creates an execution (`backfill: true`, `Pending`) for each occurrence of the cron job in
 * [from, to) that has none yet, oldest first, paced by the job's `overlap` (store/rules/backfill.ts),
 * and wakes the dispatcher. Allowed whatever the job's status (a Paused job's backfill runs: it was
 * asked for explicitly). An occurrence that has an execution (Succeeded, Failed, Skipped, …) is left
 * alone: a Failed one is replayed with `POST /executions/replay`.
 * @param pathPrefix prefixed to the field paths of errors (none for a JSON body)
 * @returns the executions created, oldest first (none when every occurrence has one)
 * @throws InvalidInputError naming the field: `from` or `to` not an ISO 8601 instant; `from` not
 *   before `to`; `to` after now (future occurrences run by themselves); `from` older than the
 *   execution retention (they would be pruned at once); more than {@link BACKFILL_MAX} occurrences
 *   in the range (`to`: narrow it). NotFoundError for an unknown id (or one that is not a UUID).
 */
export async function backfillCron(
  ctx: JobServiceContext,
  id: string,
  input: CronBackfillInput,
  pathPrefix = '',
  audit?: AuditContext,
): Promise<Execution[]> {
  const checks = new Checks();
  checks.required(`${pathPrefix}/from`, input.from).required(`${pathPrefix}/to`, input.to);
  checks.rule(`${pathPrefix}/from`, 'instant', input.from);
  checks.rule(`${pathPrefix}/to`, 'instant', input.to);
  checks.throwIfAny();
  const from = parseIsoInstant(input.from as string)!;
  const to = parseIsoInstant(input.to as string)!;
  const now = ctx.clock.now();
  const retentionMs = ctx.executionRetentionMs ?? DEFAULT_EXECUTION_RETENTION_MS;
  if (!(from < to)) checks.add(`${pathPrefix}/from`, 'must be before to');
  if (to > now) checks.add(`${pathPrefix}/to`, 'must not be after now: a backfill is for past occurrences (future ones run by themselves)');
  if (from < now - retentionMs) {
    checks.add(
      `${pathPrefix}/from`,
      `must be within the execution retention (${spoken(retentionMs)} before now): older executions would be pruned at once`,
    );
  }
  checks.throwIfAny();
  const notFound = 'No cron job has this id.';
  if (!isUuid(id)) throw new NotFoundError(notFound);
  const job = await ctx.store.cronGet({ id });
  if (!job) throw new NotFoundError(notFound);
  const occurrences = backfillOccurrences(job, from, to, cronJobNext);
  if (occurrences === 'too_many') {
    throw new InvalidInputError([
      { path: `${pathPrefix}/to`, message: `the range holds more than ${BACKFILL_MAX.toLocaleString('en')} occurrences: narrow it (call again for the rest)` },
    ]);
  }
  const created = await ctx.store.cronBackfill({ jobId: id, occurrences, now, audit: auditRecord(audit, 'cron.backfill', now) });
  if (created === 'not_found') throw new NotFoundError(notFound);
  if (created.length > 0) ctx.wake(now);
  return created;
}

/** A duration in ms as the configuration writes it: `7d`, `36h`, `90m`, else whole seconds. */
function spoken(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}
