/**
 * The paged, filtered job lists (docs/interface.md, "Lists"): `GET /schedules` and `GET /cron`
 * take `limit`, `cursor`, `status`, `tag`, `name`, `key` and `flowControlKey`, the same for both kinds. This module checks that
 * input (the HTTP layer checks the same in its schemas; this holds for any other caller) and turns
 * it into the store's page params. Paging and filtering themselves are the store's
 * (`Store.schedulePage`, `Store.cronPage`; the shared rules in `store/rules/paging.ts`).
 */
import type { JobPageParams } from '../store/store.js';
import { Checks, LIST_LIMIT_MAX, LIST_LIMIT_MIN, wholeNumberMessage, type RuleContext } from './rules.js';

/** Jobs in a page when the request does not say. */
export const LIST_LIMIT_DEFAULT = 100;

/** Input of a list (as parsed from the query string). */
export interface JobListInput<S extends string> {
  /** 1–1,000; default 100. */
  limit?: number;
  /** The `nextCursor` of the previous page; absent or null: the first page. */
  cursor?: string | null;
  /** Only jobs with this status. */
  status?: S;
  /** Only jobs whose name contains this text (A–Z in either case; see `store/rules/paging.ts`). */
  name?: string;
  /** Only the job with this key (exact). */
  key?: string;
  /** Only jobs naming this flow-control key (exact). */
  flowControlKey?: string;
  /**
   * Only jobs carrying every one of these tags. At most `PUNCTUAL_MAX_TAGS` (default 32) tags,
   * each within `PUNCTUAL_MAX_TAG_LENGTH`.
   */
  tag?: string[];
}

/** Input of the schedule list (the same as every job list's). */
export type ScheduleListInput<S extends string> = JobListInput<S>;

/**
 * Checks a list's input and returns the store's page params (`tags` empty when not given).
 * @param statuses the resource's statuses
 * @param pathPrefix prefixed to the field paths of errors (`/query` for a query string)
 * @throws InvalidInputError naming every faulty parameter: `limit` out of 1–1,000 or not whole;
 *   a `status` not of the resource; an empty or too long `name`, or one with U+0000 or an unpaired
 *   surrogate; a `key` that no job could have; more `tag`s than a job may carry, or a tag longer than one may be. (A cursor
 *   the store did not make is refused by the store, on `/query/cursor`.)
 */
export function listParams<S extends string>(
  input: JobListInput<S>,
  statuses: readonly S[],
  rules: RuleContext,
  pathPrefix = '',
): JobPageParams<S> {
  const limit = input.limit ?? LIST_LIMIT_DEFAULT;
  const checks = new Checks(rules);
  if (!Number.isInteger(limit) || limit < LIST_LIMIT_MIN || limit > LIST_LIMIT_MAX) {
    checks.add(`${pathPrefix}/limit`, wholeNumberMessage(LIST_LIMIT_MIN, LIST_LIMIT_MAX));
  }
  checks.oneOf(`${pathPrefix}/status`, input.status, statuses);
  checks.rule(`${pathPrefix}/name`, 'name-filter', input.name);
  checks.rule(`${pathPrefix}/key`, 'job-key', input.key);
  checks.rule(`${pathPrefix}/flowControlKey`, 'flow-control-key', input.flowControlKey);
  // As a job's `tags` (the same rule, the same messages): more tags than a job can carry could
  // never all match.
  checks.tags(`${pathPrefix}/tag`, input.tag);
  checks.throwIfAny();
  const tags = input.tag ?? [];
  return {
    limit,
    cursor: input.cursor ?? null,
    status: input.status ?? null,
    name: input.name ?? null,
    key: input.key ?? null,
    flowControlKey: input.flowControlKey ?? null,
    tags,
  };
}
