/**
 * The flow-control operations of a store (domain/flow-control.ts): the configured keys and their
 * limits, one row each in the `flow_control_keys` table. Part of the `Store` contract (store.ts
 * extends {@link FlowControlStore}); how many of a key's calls may start is the rule of
 * store/rules/flow-control.ts. Instants are epoch ms (UTC).
 */
import type { FlowControlKey } from '../../domain/flow-control.js';

/**
 * Params of {@link FlowControlStore.flowControlKeyPut}: the key and all its limits (a PUT replaces
 * them all); `now` is the instant of the change.
 */
export interface FlowControlKeyPutParams {
  key: string;
  parallelism: number | null;
  rate: number | null;
  periodMs: number;
  paused: boolean;
  now: number;
}

/** What {@link FlowControlStore.flowControlKeyPut} stored. */
export interface FlowControlKeyPut {
  value: FlowControlKey;
  /** True when the key was not configured before (a PUT that created it). */
  created: boolean;
}

/** What a key has under way (`FlowControlStore.flowControlKeyState`). */
export interface FlowControlKeyState {
  key: string;
  /** Its calls due and waiting for its limits (Pending or Retrying, due at or before now). */
  waiting: number;
  /** Its calls in flight (Running, a lease that ended included until it is taken again). */
  inFlight: number;
  /** Its starts in the window of its rate that ends now; null when it has no rate. */
  rateUsed: number | null;
  /** The due instant of its oldest waiting call (epoch ms, UTC), or null when none waits. */
  oldestWaitingSince: number | null;
}

export interface FlowControlStore {
  /**
   * Creates the key or replaces its limits and pause; a replaced key keeps its `createdAt` and
   * its `holdUntil`.
   */
  flowControlKeyPut(p: FlowControlKeyPutParams): Promise<FlowControlKeyPut>;
  /** The key, or null when it is not configured. */
  flowControlKeyGet(p: { key: string }): Promise<FlowControlKey | null>;
  /** Every configured key, in the byte order of their names. */
  flowControlKeyList(): Promise<FlowControlKey[]>;
  /** Pauses or resumes the key; null when it is not configured. */
  flowControlKeySetPaused(p: { key: string; paused: boolean; now: number }): Promise<FlowControlKey | null>;
  /** Removes the key (its calls then have no limits); false when it was not configured. */
  flowControlKeyDelete(p: { key: string }): Promise<boolean>;
  /**
   * Every key in use, in byte order: the configured ones, those named by a schedule or a cron
   * job (whatever its status), and those of executions waiting or in flight.
   */
  flowControlKeyNames(): Promise<string[]>;
  /**
   * What key `p.key` has under way at `p.now` (epoch ms, UTC); `p.rate` says whether to count its
   * starts in the window of `p.periodMs` ms that ends at `p.now` (else `rateUsed` is null).
   */
  flowControlKeyState(p: { key: string; now: number; rate: boolean; periodMs: number }): Promise<FlowControlKeyState>;
}
