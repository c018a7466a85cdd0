import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';

/**
 * What the job use cases (schedules, cron jobs) work with.
 * `wake(dueAtMs)` is called after a create or patch with the instant (epoch ms, UTC) at which the
 * job is next due, so the dispatcher can re-arm its timer earlier (issue #2 §6); it must be cheap
 * and must not throw.
 */
export interface JobServiceContext {
  store: Store;
  clock: Clock;
  wake: (dueAtMs: number) => void;
}
