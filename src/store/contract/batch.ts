/**
 * The batch operations of a store: many jobs written in one transaction (docs/interface.md,
 * "Batch create"). Part of the `Store` contract (store.ts extends {@link BatchStore}).
 */
import type { Schedule } from '../../domain/types.js';
import type { ScheduleCreateParams } from '../contract/jobs.js';

/** The batch operations (see the module's description). */
export interface BatchStore {
  /**
   * Creates every schedule of `p` as `Store.scheduleCreate` does, in ONE transaction: all are
   * stored, or none (any failure rolls every one back). An empty list stores nothing. Concurrent
   * creates may share that transaction (group-commit.ts): a failure caused by another create of
   * the group does not fail this one.
   * @returns the schedules as stored, in the order of `p`
   * @throws StoreUnavailableError when the store cannot answer (nothing is stored)
   */
  scheduleCreateMany(p: ScheduleCreateParams[]): Promise<Schedule[]>;
}
