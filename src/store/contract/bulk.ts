/**
 * The bulk actions of a store: jobs chosen by a filter, acted on in one transaction
 * (docs/interface.md, "Bulk actions"; the rules in store/rules/bulk.ts). Part of the `Store` contract
 * (store.ts extends {@link BulkStore}).
 */
import type { BulkResult, CronBulkParams, ScheduleBulkParams } from '../rules/bulk.js';

export type { BulkResult, CronBulkAction, CronBulkParams, JobBulkFilter, ScheduleBulkParams } from '../rules/bulk.js';

/** The bulk actions (see the module's description). */
export interface BulkStore {
  /**
   * Deletes every schedule the filter matches, whatever its status, in ONE transaction (a
   * `dryRun` counts them and changes nothing); as a single delete, their executions stay.
   * @returns `count`: the schedules deleted (dry: that would be); `wakeAt` null
   * @throws Error for a filter without any key (the service refuses one first)
   */
  scheduleBulk(p: ScheduleBulkParams): Promise<BulkResult>;
  /**
   * Pauses the matching `Active` jobs, resumes the matching `Paused` ones (each as a single
   * resume: `nextInvocation` the next occurrence after `p.now`), or deletes every matching job,
   * in ONE transaction; a `dryRun` counts and changes nothing (store/rules/bulk.ts).
   * @returns `count`: the jobs changed (dry: that would be); `wakeAt`: the earliest
   *   `nextInvocation` a resume gave, else null
   * @throws Error for a filter without any key (the service refuses one first)
   */
  cronBulk(p: CronBulkParams): Promise<BulkResult>;
}
