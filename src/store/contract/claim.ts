/**
 * The params of a claim (`Store.claimDue`; its rules are store/rules/claim.ts). Instants are epoch ms
 * (UTC).
 */

/** Params of `Store.claimDue`. */
export interface ClaimDueParams {
  /** Epoch ms (UTC) that decides what is due. */
  now: number;
  /** Most items returned. */
  limit: number;
  nodeId: string;
  /**
   * Lease margin in ms beyond each item's `timeoutMs`: an attempt not finished by
   * `now + timeoutMs + leaseMs` is claimed again (its node is taken for dead).
   */
  leaseMs: number;
  /** A cron occurrence claimed more than this late (ms) is a misfire (default policy: 60,000). */
  misfireThresholdMs: number;
  /**
   * Also claims work due within this many ms after `now` (default 0): Pending schedules, cron
   * occurrences and waiting executions, never a lease before it expired. Each item taken before
   * it is due carries `notBefore`; misfires, leases and recorded times are reckoned at `now`
   * (store/rules/claim.ts, "Claiming ahead").
   */
  aheadMs?: number;
}
