import { EventEmitter } from 'node:events';
import type { AttemptOutcome, ClaimedExecution } from '../domain/types.js';
import type { SecretDecryptError } from '../secrets/errors.js';
import type { AutoPause } from '../store/rules/outcome.js';

/** A finished attempt whose outcome is already stored. */
export interface DeliveredEvent {
  claim: ClaimedExecution;
  outcome: AttemptOutcome;
}

/**
 * The dispatcher's typed events. Tests await these instead of sleeping.
 * - `dispatch:claimed`: a claim returned work (emitted before any call of it starts);
 * - `dispatch:delivered`: an attempt finished and its outcome was written to the store;
 * - `dispatch:skipped`: a claim dropped cron occurrences under misfire `skip` (how many: the
 *   claim's `skippedOccurrences`, > 0);
 * - `dispatch:auto-paused`: a write of outcomes paused a cron job (its endpoint answered 410 Gone,
 *   or its `pauseAfterFailures` was reached; src/store/rules/outcome.ts), once per job paused;
 * - `dispatch:error`: the store failed during a claim or a write (the dispatcher retries);
 * - `dispatch:secret-failed`: a job's secret could not be decrypted for a call (key missing, or
 *   the value tampered with or moved; counted in `punctual_secret_decrypt_failures_total`).
 */
export interface DispatcherEventMap {
  'dispatch:claimed': [claims: ClaimedExecution[]];
  'dispatch:delivered': [event: DeliveredEvent];
  'dispatch:skipped': [occurrences: number];
  'dispatch:auto-paused': [pause: AutoPause];
  'dispatch:error': [error: unknown];
  'dispatch:secret-failed': [error: SecretDecryptError];
}

/** EventEmitter typed by {@link DispatcherEventMap}. */
export class DispatcherEvents extends EventEmitter<DispatcherEventMap> {}
