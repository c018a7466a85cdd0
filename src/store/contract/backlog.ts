/**
 * The backlog a store reports for the metrics (docs/metrics.md): work due and not yet claimed
 * (`punctual_due_unclaimed`) and executions waiting for a retry (`punctual_executions_retrying`),
 * each count bounded so that a scrape costs the same however large the backlog. Part of the
 * `Store` contract (store.ts extends {@link BacklogStore}). Reads only.
 */

/** The backlog counts of a store. */
export interface BacklogStore {
  /**
   * How much work is due at `p.now` (epoch ms, UTC) and not yet claimed, by the sources of
   * `claimDue` (the due-but-unclaimed gauge, `punctual_due_unclaimed`): `schedule`, Pending schedules with
   * `scheduledAt <= now`; `cron`, Active cron jobs with `nextInvocation <= now` (a job counts once,
   * however many occurrences it missed); `waiting`, Pending or Retrying executions whose next
   * attempt is due; `lease`, Running executions whose lease expired at or before `now`. Each count
   * stops at `p.limit` (≥ 1), so the cost is bounded whatever the backlog: one range search of each
   * source's partial index, reading at most `limit` entries. Reads only. A store with a clock of
   * its own (`now()` not null) uses that clock instead of `p.now`, as `claimDue` does.
   */
  dueCount(p: { now: number; limit: number }): Promise<DueCounts>;
  /**
   * How many executions are `Retrying` (waiting for their next attempt, due or not), by job type,
   * each count stopping at `p.limit` (≥ 1) so that the cost is bounded however many wait: a walk
   * of the partial index of waiting executions (`executions_waiting`) per job type, at most `limit`
   * matching entries read. For the gauge `punctual_executions_retrying` (docs/metrics.md). Reads only.
   */
  executionRetryingCount(p: { limit: number }): Promise<RetryingCounts>;
}

/** `Retrying` executions by job type, each count capped (see {@link BacklogStore.executionRetryingCount}). */
export interface RetryingCounts {
  schedule: number;
  cron: number;
}

/** Work due and not yet claimed, by claim source, each count capped (see {@link BacklogStore.dueCount}). */
export interface DueCounts {
  schedule: number;
  cron: number;
  waiting: number;
  lease: number;
}
