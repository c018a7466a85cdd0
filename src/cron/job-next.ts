import { nextOccurrence } from './next.js';
import { parseCronExpression, type ParsedCron } from './parse.js';
import type { CronJob } from '../domain/types.js';

const MAX_CACHED = 10_000;
const parsedByExpression = new Map<string, ParsedCron>();

/** The fields of a cron job its occurrences depend on. */
export type JobTiming = Pick<CronJob, 'expression' | 'timezone' | 'createdAt' | 'startAt'>;

/** The fields of a cron job that bound its life (docs/cron.md, "Start, end and limits"). */
export type JobLife = Pick<CronJob, 'startAt' | 'endAt' | 'maxInvocations' | 'invocations'>;

/**
 * Next occurrence of a stored cron job's expression strictly after `afterMs` (epoch ms, UTC), in
 * its time zone (UTC when `timezone` is null), by the rules of docs/cron.md, with the anchor of
 * `@every` expressions `startAt ?? createdAt`. Its window (`startAt`, `endAt`) and limit are not
 * applied here: {@link windowNext} and {@link lifeNext} do. Parsed expressions are cached (at most
 * 10,000), since every store's claim calls this for every firing (src/store/rules/claim.ts).
 *
 * Runs inside the claim transaction, so it never throws: an expression or zone that no longer
 * parses (e.g. a zone dropped from tzdata after an upgrade) yields null, and the store pauses the
 * job instead of blocking every other claim.
 * @returns epoch ms (UTC), or null when the job has no further occurrence
 */
export function cronJobNext(job: JobTiming, afterMs: number): number | null {
  try {
    let parsed = parsedByExpression.get(job.expression);
    if (parsed === undefined) {
      parsed = parseCronExpression(job.expression);
      if (parsedByExpression.size >= MAX_CACHED) parsedByExpression.clear();
      parsedByExpression.set(job.expression, parsed);
    }
    return nextOccurrence(parsed, job.timezone ?? 'UTC', afterMs, job.startAt ?? job.createdAt);
  } catch {
    return null;
  }
}

/** The answer of {@link windowNext}: an occurrence, `'ended'` (none left in the window), or null (the engine has none). */
export type WindowNext = number | 'ended' | null;

/**
 * The first occurrence of a job strictly after `afterMs` and within its window: not before
 * `startAt` (the engine is asked from `startAt − 1` when that is later), and `'ended'` when it
 * falls at or after `endAt`. The one rule of the window, for the claim (src/store/rules/claim.ts),
 * the patch (src/store/rules/cron-patch.ts) and the service (create, the occurrence shown of a Paused
 * job). Instants: epoch ms (UTC), the engine's answer rounded up to whole ms (never early).
 * @param engine the next occurrence of the job's expression after an instant, or null for none
 *   (e.g. `(ms) => cronJobNext(job, ms)`); may throw, and then so does this
 */
export function windowNext(job: Pick<CronJob, 'startAt' | 'endAt'>, afterMs: number, engine: (afterMs: number) => number | null): WindowNext {
  const from = job.startAt !== null && job.startAt - 1 > afterMs ? job.startAt - 1 : afterMs;
  const n = engine(from);
  if (typeof n !== 'number' || !Number.isFinite(n)) return null;
  const at = Math.ceil(n);
  return job.endAt !== null && at >= job.endAt ? 'ended' : at;
}

/**
 * {@link windowNext} with the limit: `'ended'` as well when `invocations` has reached
 * `maxInvocations` (the job has run its last occurrence). For a create or a patch, which compute
 * a job's first occurrence; the claim counts the occurrences it records itself.
 */
export function lifeNext(job: JobLife, afterMs: number, engine: (afterMs: number) => number | null): WindowNext {
  if (job.maxInvocations !== null && job.invocations >= job.maxInvocations) return 'ended';
  return windowNext(job, afterMs, engine);
}
