/**
 * The executions list across jobs and replays (docs/interface.md, "Executions across jobs" and
 * "Replay"): part of the `Store` contract (store.ts extends {@link ExecutionSearchStore}); the
 * rules shared by both databases are in execution-search.ts.
 */
import type { AuditRecord } from '../../domain/audit.js';
import type { Execution } from '../../domain/types.js';
import type { ExecutionSearchParams, ExecutionsReplayParams } from '../sql/execution-search.js';
import type { ExecutionPage } from './pages.js';

/** The operations of the executions list across jobs and of replays. */
export interface ExecutionSearchStore {
  /**
   * Executions across jobs, newest first (by `scheduledFor`, then id), `limit` (1–1,000) at a
   * time, filtered by any of `statuses`, `jobType`, `jobId` and the range `from` (inclusive) –
   * `to` (exclusive) of `scheduledFor` (epoch ms). Index-backed: a page reads a bounded number of
   * index entries whatever the number of executions (store/sql/execution-search.ts says which index
   * each filter walks). `cursor` and `nextCursor` as for {@link executionList}.
   * @throws InvalidInputError (path `/query/cursor`) for a cursor this store did not make
   */
  executionSearch(p: ExecutionSearchParams): Promise<ExecutionPage>;
  /**
   * Replays a `Failed` execution (docs/interface.md, "Replay"): it becomes `Retrying`, due at
   * `p.now` (epoch ms), with a fresh attempt budget from its job's current retry policy
   * (`retry_base` = the attempts made so far); its next attempt is number `attempt + 1` of the
   * same execution (the same `webhook-id`). A schedule's execution puts the schedule back to
   * `Running`. One transaction.
   * @returns the execution as replayed; `'not_found'`; `'not_failed'` when it is not `Failed`
   *   (nothing changes); `'job_deleted'` when its job no longer exists (nothing changes)
   */
  executionReplay(p: { id: string; now: number; audit?: AuditRecord }): Promise<Execution | 'not_found' | 'not_failed' | 'job_deleted'>;
  /**
   * Replays, as {@link executionReplay} does, the `Failed` executions within the filter whose
   * job still exists, newest first, at most `p.limit` of them, in one transaction.
   * @returns how many were replayed
   */
  executionsReplay(p: ExecutionsReplayParams): Promise<number>;
  /**
   * Backfills a cron job (docs/cron.md, "Backfill"; the rules in store/rules/backfill.ts): in one
   * transaction, inserts a `Pending` execution with `backfill: true` for each of `p.occurrences`
   * (epoch ms, UTC, oldest first, at most BACKFILL_MAX: `backfillOccurrences`) that has no
   * execution of the job yet (a triggered execution at the same instant does not count), paced by
   * the job's `overlap` as `backfillRows` says; the others are left alone. The job's
   * `invocations`, `lastExecutionId` and `nextInvocation` do not change. `p.now` (epoch ms, UTC) is
   * `createdAt`, and the instant the first ones are due.
   * @returns the executions created, oldest first (none: `[]`), or `'not_found'` when the cron job does not exist
   */
  cronBackfill(p: CronBackfillParams): Promise<Execution[] | 'not_found'>;
}

/** Params of `Store.cronBackfill`. */
export interface CronBackfillParams {
  jobId: string;
  /** When given (and executions are made), the event `cron.backfill` in the same transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
  /** Epoch ms (UTC), increasing. */
  occurrences: number[];
  /** Epoch ms (UTC). */
  now: number;
}
