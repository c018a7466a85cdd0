/**
 * Wire schemas of the fields that decide what a job's outcomes mean (docs/calls.md, "What counts
 * as success"; docs/cron.md, "Auto-pause"): `successStatuses` of both job kinds, and of cron jobs
 * `pauseAfterFailures`, `pausedReason` and `consecutiveFailures`.
 */
import { Type } from 'typebox';
import { STATUS_CLASSES, SUCCESS_STATUSES_MAX, type SuccessStatus } from '../../domain/success-statuses.js';
import type { CronJob } from '../../domain/types.js';
import { PAUSE_AFTER_FAILURES_LIMITS, PAUSED_REASON_MAX } from '../../service/outcome-fields.js';
import { CHECK_KEYWORD } from '../ajv.js';
import { Nullable } from './common.js';

const SUCCESS_DESCRIPTION =
  'What counts as success: HTTP status codes (integers, 100–599) and classes (`1xx` … `5xx`), 1 to ' +
  `${SUCCESS_STATUSES_MAX} items, none repeated. A listed status ends the execution Succeeded (redirects are still not followed: ` +
  'list 302 to take a 302 as success); any other answer follows the retry rules (3xx, 408, 429 and 5xx retried; other 4xx failed at once; ' +
  'a 410 also pauses a cron job).';

/** One item, as documented (the list is checked as a whole by `x-check`). */
const SuccessStatusItem = Type.Unsafe<SuccessStatus>({
  anyOf: [
    { type: 'integer', minimum: 100, maximum: 599 },
    { type: 'string', enum: [...STATUS_CLASSES] },
  ],
});

/** `successStatuses` in a response. */
export const SuccessStatusesSchema = Type.Unsafe<SuccessStatus[]>({ type: 'array', items: SuccessStatusItem, description: SUCCESS_DESCRIPTION });

/**
 * `successStatuses` in a request: checked as a whole by `x-check` (no `items` schema, so a bad
 * item gives one problem at `/successStatuses/N`, and a huge list one problem).
 */
export const SuccessStatusesInput = Type.Unsafe<SuccessStatus[]>({
  type: 'array',
  [CHECK_KEYWORD]: 'success-statuses',
  description: `${SUCCESS_DESCRIPTION} Default \`["2xx"]\`; a PATCH replaces the whole list.`,
});

const PAUSE_AFTER_DESCRIPTION =
  `Consecutive Failed executions after which the job pauses itself (${PAUSE_AFTER_FAILURES_LIMITS.min}–` +
  `${PAUSE_AFTER_FAILURES_LIMITS.max}), with \`pausedReason\` "paused after N consecutive failed executions"; null: never. ` +
  'A Succeeded execution resets the count; Skipped ones change nothing.';
const PAUSED_REASON_DESCRIPTION =
  `Why the job is Paused (at most ${PAUSED_REASON_MAX} characters): given with the PATCH that pauses it, or set when the job paused ` +
  'itself ("endpoint answered 410 Gone", "paused after N consecutive failed executions"); null for an Active job and for one paused ' +
  'without a reason. Cleared when the job resumes.';

/** The outcome fields of a cron job in a response. */
export const cronOutcomeWireFields = {
  successStatuses: SuccessStatusesSchema,
  pauseAfterFailures: Nullable(Type.Integer({ description: PAUSE_AFTER_DESCRIPTION })),
  pausedReason: Nullable(Type.String({ description: PAUSED_REASON_DESCRIPTION })),
  consecutiveFailures: Type.Integer({
    minimum: 0,
    description:
      'Failed executions since the last Succeeded one (or since the job was created or last resumed); Skipped executions change nothing. Read-only.',
  }),
};

/** The outcome fields of a cron job in a create body (each optional). */
export const cronOutcomeInputFields = {
  successStatuses: Type.Optional(SuccessStatusesInput),
  pauseAfterFailures: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: PAUSE_AFTER_FAILURES_LIMITS.min,
        maximum: PAUSE_AFTER_FAILURES_LIMITS.max,
        description: `${PAUSE_AFTER_DESCRIPTION} Default null.`,
      }),
    ),
  ),
};

/** `pausedReason` in a PATCH body: only with a patch that leaves the job Paused. */
export const PausedReasonInput = Type.Optional(
  Nullable(
    Type.String({
      maxLength: PAUSED_REASON_MAX,
      description: `${PAUSED_REASON_DESCRIPTION} Accepted only when the job is Paused after the PATCH (with \`"status": "Paused"\`, or on a Paused job); 400 otherwise.`,
    }),
  ),
);

/** The wire form of a cron job's outcome fields. */
export function cronOutcomeToWire(j: CronJob): {
  successStatuses: SuccessStatus[];
  pauseAfterFailures: number | null;
  pausedReason: string | null;
  consecutiveFailures: number;
} {
  return {
    successStatuses: [...j.successStatuses],
    pauseAfterFailures: j.pauseAfterFailures,
    pausedReason: j.pausedReason,
    consecutiveFailures: j.consecutiveFailures,
  };
}
