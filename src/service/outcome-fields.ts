/**
 * The fields that decide what a job's outcomes mean (docs/calls.md, "What counts as success";
 * docs/cron.md, "Auto-pause"): `successStatuses` of both job kinds, and of cron jobs
 * `pauseAfterFailures` and `pausedReason`. Their checks and defaults; the rules they feed are in
 * src/domain/success-statuses.ts (the dispatcher's classification) and src/store/rules/outcome.ts
 * (the pause).
 */
import { successStatusesProblems } from '../domain/success-statuses.js';
import type { CronJobStatus, SuccessStatus } from '../domain/types.js';
import { Checks, textProblem } from './rules.js';

/** Accepted range of `pauseAfterFailures` (inclusive): consecutive failed executions. */
export const PAUSE_AFTER_FAILURES_LIMITS = { min: 1, max: 1_000 } as const;

/** Most characters of a `pausedReason`. */
export const PAUSED_REASON_MAX = 512;

/** The outcome fields of a schedule's create or patch. */
export interface SuccessInput {
  /** Status codes and classes that count as success; default `["2xx"]`. */
  successStatuses?: SuccessStatus[];
}

/** The outcome fields of a cron job's create or patch (`pausedReason` only in a patch). */
export interface CronOutcomeInput extends SuccessInput {
  /** Consecutive failed executions that pause the job (1–1,000); null: never (the default). */
  pauseAfterFailures?: number | null;
  /** Why the job is paused (at most 512 characters), or null: only with a patch that leaves it `Paused`. */
  pausedReason?: string | null;
}

/** Checks a present `successStatuses` ({@link successStatusesProblems}, items at `/successStatuses/N`). */
export function checkSuccessStatuses(checks: Checks, input: SuccessInput): Checks {
  if (input.successStatuses === undefined) return checks;
  for (const p of successStatusesProblems('/successStatuses', input.successStatuses)) checks.add(p.path, p.message);
  return checks;
}

/**
 * Checks the present outcome fields of a cron job on their own: `successStatuses`,
 * `pauseAfterFailures` an integer in {@link PAUSE_AFTER_FAILURES_LIMITS} or null, `pausedReason`
 * a string of at most {@link PAUSED_REASON_MAX} characters (storable text) or null.
 */
export function checkCronOutcomeFields(checks: Checks, input: CronOutcomeInput): Checks {
  checkSuccessStatuses(checks, input);
  if (input.pauseAfterFailures !== null) {
    checks.integer('/pauseAfterFailures', input.pauseAfterFailures, PAUSE_AFTER_FAILURES_LIMITS.min, PAUSE_AFTER_FAILURES_LIMITS.max);
  }
  const reason: unknown = input.pausedReason;
  if (reason === undefined || reason === null) return checks;
  if (typeof reason !== 'string') return checks.add('/pausedReason', 'must be a string or null');
  if ([...reason].length > PAUSED_REASON_MAX) return checks.add('/pausedReason', `must have at most ${PAUSED_REASON_MAX} characters`);
  const problem = textProblem(reason);
  return problem === null ? checks : checks.add('/pausedReason', problem);
}

/**
 * A `pausedReason` (not null) is only for a job the patch leaves `Paused`: refused at
 * `/pausedReason` when the patch resumes the job, or leaves an `Active` job as it is.
 * @param before the job's status before the patch
 */
export function checkPausedReasonStatus(checks: Checks, patch: CronOutcomeInput & { status?: CronJobStatus }, before: CronJobStatus): Checks {
  if (patch.pausedReason === undefined || patch.pausedReason === null) return checks;
  const after = patch.status ?? before;
  return after === 'Paused' ? checks : checks.add('/pausedReason', 'is only accepted when the job is paused: send "status": "Paused" with it');
}
