/**
 * Flow control: limits on the calls of all jobs that name one key, so that one receiver is never
 * sent more than it can take. A key's `parallelism` bounds its calls in flight; its `rate` bounds
 * the calls it starts in any window of `periodMs` (a sliding window, not fixed ones); a paused key
 * starts none. A call over its key's limits waits; it is never refused nor dropped. The rule that
 * decides how many of a key's calls may start is store/rules/flow-control.ts.
 */

/** A flow-control key: 1 to 128 of `A-Z a-z 0-9 . _ : -`. */
export const FLOW_CONTROL_KEY_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';

/** Bounds of a key's limits: `parallelism` 1–10,000; `rate` 1–100,000 per `periodMs` of 1 s to 1 day. */
export const FLOW_CONTROL_BOUNDS = {
  parallelismMax: 10_000,
  rateMax: 100_000,
  periodMinMs: 1_000,
  periodMaxMs: 86_400_000,
  /** The period of a rate given without one (ms). */
  periodDefaultMs: 1_000,
} as const;

/**
 * The limits of one key. A null limit does not bound: a key named by jobs but never configured
 * has both null and is not paused.
 */
export interface FlowControlLimits {
  /** Most calls of the key in flight at once; null: no bound. */
  parallelism: number | null;
  /** Most calls of the key started in any window of `periodMs`; null: no bound. */
  rate: number | null;
  /** The window of `rate`, ms. */
  periodMs: number;
  /** True: the key starts no call until resumed. */
  paused: boolean;
  /**
   * Epoch ms (UTC) before which the key starts no call (a receiver answered 429 or 503 with
   * `Retry-After`), or null.
   */
  holdUntil: number | null;
}

/** A configured key (`PUT /flow-control-keys/{key}`): its limits and when they were set. */
export interface FlowControlKey extends FlowControlLimits {
  key: string;
  /** Epoch ms (UTC) of the first `PUT`. */
  createdAt: number;
  /** Epoch ms (UTC) of the last change of its limits or of its pause. */
  updatedAt: number;
}
