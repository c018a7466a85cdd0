/**
 * The `key` and `managedBy` of a job's create and patch input (docs/apply.md): a key keeps the
 * rule of src/domain/job-key.ts (or is null: none); `managedBy` is `apply` or null, given at
 * create only. Uniqueness is the store's (a `ConflictError` on `/key`, store/rules/job-keys.ts).
 */
import { JOB_MANAGERS } from '../domain/enums.js';
import type { JobManager } from '../domain/types.js';
import type { Checks } from './rules.js';

/** The identity fields of a create input. */
export interface IdentityInput {
  /** The job's key, or null (none). */
  key?: string | null;
  /** `apply` for a job created by `punctual apply`, or null. */
  managedBy?: JobManager | null;
  /** The flow-control key its calls count against, or null (none). */
  flowControlKey?: string | null;
}

/** Checks the present identity fields of `input` into `checks`. */
export function checkIdentity(checks: Checks, input: IdentityInput): Checks {
  checks.rule('/key', 'job-key', input.key, true);
  checks.rule('/flowControlKey', 'flow-control-key', input.flowControlKey, true);
  if (input.managedBy !== null) checks.oneOf('/managedBy', input.managedBy, JOB_MANAGERS);
  return checks;
}
