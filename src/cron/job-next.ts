import { nextOccurrence } from './next.js';
import { parseCronExpression, type ParsedCron } from './parse.js';
import type { CronJob } from '../domain/types.js';

const MAX_CACHED = 10_000;
const parsedByExpression = new Map<string, ParsedCron>();

/**
 * Next occurrence of a stored cron job strictly after `afterMs` (epoch ms, UTC), in its time zone
 * (UTC when `timezone` is null), by the rules of docs/cron.md. Parsed expressions are cached (at
 * most 10,000), since every store's claim calls this for every firing (src/store/claim-rules.ts).
 *
 * Runs inside the claim transaction, so it never throws: an expression or zone that no longer
 * parses (e.g. a zone dropped from tzdata after an upgrade) yields null, and the store pauses the
 * job instead of blocking every other claim.
 * @returns epoch ms (UTC), or null when the job has no further occurrence
 */
export function cronJobNext(job: CronJob, afterMs: number): number | null {
  try {
    let parsed = parsedByExpression.get(job.expression);
    if (parsed === undefined) {
      parsed = parseCronExpression(job.expression);
      if (parsedByExpression.size >= MAX_CACHED) parsedByExpression.clear();
      parsedByExpression.set(job.expression, parsed);
    }
    return nextOccurrence(parsed, job.timezone ?? 'UTC', afterMs);
  } catch {
    return null;
  }
}
