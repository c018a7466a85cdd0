/**
 * The `flow_control_keys` table (store/contract/flow-control.ts) in both dialects: its columns
 * after the key (each database's migration writes the key column, whose collation differs, and
 * renders these through its `columnDefs`), and its statements, with named parameters (`:name`;
 * PostgreSQL's queries turn them into `$n` with `positional`). Instants are epoch ms (UTC);
 * `:paused` is 0 or 1.
 */
import type { Column } from './columns.js';
import type { FlowControlKeyPutParams } from '../contract/flow-control.js';
import { FLOW_CONTROL_KEY_COLUMNS } from '../rows/flow-control.js';

/**
 * The columns of a key after its name: its limits (NULL: no bound), the period of its rate (ms),
 * its pause (0 or 1), the end of a hold asked by a receiver (NULL: none), when it was first put
 * and last changed, and `revision`, 1 when put first and one more at each change.
 */
export const FLOW_CONTROL_COLUMNS: readonly Column[] = [
  ['parallelism', 'integer'],
  ['rate', 'integer'],
  ['period_ms', 'bigint', 'NOT NULL'],
  ['paused', 'integer', 'NOT NULL DEFAULT 0 CHECK (paused IN (0, 1))'],
  ['hold_until', 'bigint'],
  ['created_at', 'bigint', 'NOT NULL'],
  ['updated_at', 'bigint', 'NOT NULL'],
  ['revision', 'bigint', 'NOT NULL DEFAULT 1'],
];

/** Creates the key, or replaces its limits and pause (keeping `created_at` and `hold_until`); `revision` 1 says it was created. */
export const PUT_SQL = `INSERT INTO flow_control_keys (key, parallelism, rate, period_ms, paused, created_at, updated_at)
 VALUES (:key, :parallelism, :rate, :periodMs, :paused, :now, :now)
 ON CONFLICT (key) DO UPDATE SET parallelism = excluded.parallelism, rate = excluded.rate, period_ms = excluded.period_ms,
   paused = excluded.paused, updated_at = excluded.updated_at, revision = flow_control_keys.revision + 1
 RETURNING ${FLOW_CONTROL_KEY_COLUMNS}, revision`;

/** The key `:key`. */
export const GET_SQL = `SELECT ${FLOW_CONTROL_KEY_COLUMNS} FROM flow_control_keys WHERE key = :key`;

/** Every key, in the byte order of their names. */
export const LIST_SQL = `SELECT ${FLOW_CONTROL_KEY_COLUMNS} FROM flow_control_keys ORDER BY key`;

/** Pauses (`:paused` 1) or resumes (0) the key `:key`. */
export const SET_PAUSED_SQL = `UPDATE flow_control_keys SET paused = :paused, updated_at = :now, revision = revision + 1
 WHERE key = :key RETURNING ${FLOW_CONTROL_KEY_COLUMNS}`;

/** Removes the key `:key`. */
export const DELETE_SQL = 'DELETE FROM flow_control_keys WHERE key = :key';

/** The named parameters of {@link PUT_SQL}: whole ms, the pause as 0 or 1. */
export function putParams(p: FlowControlKeyPutParams): Record<string, unknown> {
  return { key: p.key, parallelism: p.parallelism, rate: p.rate, periodMs: Math.floor(p.periodMs), paused: p.paused ? 1 : 0, now: Math.floor(p.now) };
}

/** The named parameters of {@link SET_PAUSED_SQL}. */
export function pausedParams(key: string, paused: boolean, now: number): Record<string, unknown> {
  return { key, paused: paused ? 1 : 0, now: Math.floor(now) };
}
