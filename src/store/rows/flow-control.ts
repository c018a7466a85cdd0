/**
 * Rows of the `flow_control_keys` table (store/contract/flow-control.ts), the same in both
 * databases: the columns and the row mapper. `paused` is an integer 0 or 1 in both.
 */
import type { FlowControlKey } from '../../domain/flow-control.js';

/** The columns of a key row, in the order the stores select them. */
export const FLOW_CONTROL_KEY_COLUMNS = 'key, parallelism, rate, period_ms, paused, hold_until, created_at, updated_at';

/** A key row as both drivers return it (PostgreSQL's bigint columns may come as text). */
export interface FlowControlKeyRow {
  key: string;
  parallelism: number | null;
  rate: number | null;
  period_ms: number | string;
  paused: number;
  hold_until: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

/** The key of a row. */
export function flowControlKeyFromRow(r: FlowControlKeyRow): FlowControlKey {
  return {
    key: r.key,
    parallelism: r.parallelism === null ? null : Number(r.parallelism),
    rate: r.rate === null ? null : Number(r.rate),
    periodMs: Number(r.period_ms),
    paused: Number(r.paused) === 1,
    holdUntil: r.hold_until === null ? null : Number(r.hold_until),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}
