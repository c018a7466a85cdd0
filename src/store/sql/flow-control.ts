/**
 * The `flow_control_keys` table (store/contract/flow-control.ts) in both dialects: its columns
 * after the key (each database's migration writes the key column, whose collation differs, and
 * renders these through its `columnDefs`), and its statements, with named parameters (`:name`;
 * PostgreSQL's queries turn them into `$n` with `positional`). Instants are epoch ms (UTC);
 * `:paused` is 0 or 1.
 */
import type { Column } from './columns.js';
import type { FlowControlKeyPutParams, FlowControlKeyState } from '../contract/flow-control.js';
import { FLOW_CONTROL_KEY_COLUMNS } from '../rows/flow-control.js';
import { FLOW_CONTROL_BOUNDS } from '../../domain/flow-control.js';

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

/**
 * Creates the key, or replaces its limits and pause (keeping `created_at` and `hold_until`); `revision` 1 says it was created.
 * A change makes the key's waiting calls ready at once (`ready_at` 0), as a pause or a resume does.
 */
export const PUT_SQL = `INSERT INTO flow_control_keys (key, parallelism, rate, period_ms, paused, created_at, updated_at)
 VALUES (:key, :parallelism, :rate, :periodMs, :paused, :now, :now)
 ON CONFLICT (key) DO UPDATE SET parallelism = excluded.parallelism, rate = excluded.rate, period_ms = excluded.period_ms,
   paused = excluded.paused, updated_at = excluded.updated_at, revision = flow_control_keys.revision + 1, ready_at = 0
 RETURNING ${FLOW_CONTROL_KEY_COLUMNS}, revision`;

/** The key `:key`. */
export const GET_SQL = `SELECT ${FLOW_CONTROL_KEY_COLUMNS} FROM flow_control_keys WHERE key = :key`;

/** Every key, in the byte order of their names. */
export const LIST_SQL = `SELECT ${FLOW_CONTROL_KEY_COLUMNS} FROM flow_control_keys ORDER BY key`;

/** Pauses (`:paused` 1) or resumes (0) the key `:key`. */
export const SET_PAUSED_SQL = `UPDATE flow_control_keys SET paused = :paused, updated_at = :now, revision = revision + 1, ready_at = 0
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

/** How one database writes the types of {@link flowControlCallsSql}. */
export interface FlowControlCallsTypes {
  /** A key: SQLite's `TEXT`, PostgreSQL's `text COLLATE "C"` (byte order, as SQLite compares). */
  key: string;
  /** Epoch ms or a duration in ms: SQLite's `INTEGER`, PostgreSQL's `bigint`. */
  ms: string;
  /** What follows a CREATE TABLE's parenthesis: SQLite's ` STRICT`, nothing on PostgreSQL. */
  tableOptions: string;
}

/**
 * The migration that makes calls wait for their key (the same text in both databases, but for
 * the types). Released migrations run this text byte for byte (test/unit/migrations-frozen.test.ts):
 * it is never edited; a later change is a new migration.
 *
 *   flow_control_key           on schedules and cron jobs: the key its calls count against (NULL:
 *                              none); on executions, copied from the job when the execution is made
 *   execution_attempts.waited_ms  how long the attempt waited for its key (NULL: it did not wait)
 *   flow_control_keys.ready_at    the instant before which the claim does not look at the key's
 *                              waiting calls (0: at once): set by a claim that left calls waiting
 *                              over a limit, brought back to now by a finish of one of its calls,
 *                              a change of its limits, a pause or a resume
 *   flow_control_starts        one row per start of a call whose key has a `rate`, kept for one
 *                              period: the sliding window the rate counts
 *   executions_waiting         rebuilt without keyed executions, which the claim takes only
 *                              through executions_held, per key
 *   executions_held            keyed executions waiting (Pending or Retrying), per key by due time
 *   executions_held_due        the same by due time alone: whether any keyed call is due (one descent)
 *   executions_keyed_running   keyed executions in flight, per key: its parallelism used
 *   <jobs>_by_flow_control_key the jobs naming a key (the list filter, the keys named by jobs)
 */
export function flowControlCallsSql(t: FlowControlCallsTypes): string {
  return `
ALTER TABLE schedules ADD COLUMN flow_control_key ${t.key};
ALTER TABLE cron_jobs ADD COLUMN flow_control_key ${t.key};
ALTER TABLE executions ADD COLUMN flow_control_key ${t.key};
ALTER TABLE execution_attempts ADD COLUMN waited_ms ${t.ms};
ALTER TABLE flow_control_keys ADD COLUMN ready_at ${t.ms} NOT NULL DEFAULT 0;
CREATE TABLE flow_control_starts (
  key        ${t.key} NOT NULL,
  started_at ${t.ms} NOT NULL
)${t.tableOptions};
CREATE INDEX flow_control_starts_by_key ON flow_control_starts (key, started_at);
DROP INDEX executions_waiting;
CREATE INDEX executions_waiting ON executions (next_attempt_at)
  WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NULL;
CREATE INDEX executions_held ON executions (flow_control_key, next_attempt_at)
  WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NOT NULL;
CREATE INDEX executions_held_due ON executions (next_attempt_at)
  WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NOT NULL;
CREATE INDEX executions_keyed_running ON executions (flow_control_key)
  WHERE status = 'Running' AND flow_control_key IS NOT NULL;
CREATE INDEX schedules_by_flow_control_key ON schedules (flow_control_key) WHERE flow_control_key IS NOT NULL;
CREATE INDEX cron_jobs_by_flow_control_key ON cron_jobs (flow_control_key) WHERE flow_control_key IS NOT NULL;
`;
}

/**
 * The keys with waiting calls (Pending or Retrying executions that name a key), each with the due
 * instant of its oldest waiting call and its `ready_at` (0 for a key not configured), in the
 * byte order of the keys: a walk of `executions_held` that jumps from one key to the next (one
 * descent per key, however many calls wait), valid in both dialects. `hint` is what follows the
 * table's name (SQLite's `INDEXED BY executions_held`; nothing on PostgreSQL).
 */
export function heldKeysSql(hint: string): string {
  const held = `FROM executions ${hint} WHERE status IN ('Pending', 'Retrying') AND flow_control_key IS NOT NULL`;
  return `WITH RECURSIVE k(key) AS (
  SELECT (SELECT flow_control_key ${held} ORDER BY flow_control_key LIMIT 1)
  UNION ALL
  SELECT (SELECT flow_control_key ${held} AND flow_control_key > k.key ORDER BY flow_control_key LIMIT 1)
    FROM k WHERE k.key IS NOT NULL)
SELECT k.key, (SELECT min(next_attempt_at) ${held} AND flow_control_key = k.key) AS oldest, coalesce(f.ready_at, 0) AS ready_at,
       f.key IS NOT NULL AS configured
  FROM k LEFT JOIN flow_control_keys f ON f.key = k.key
 WHERE k.key IS NOT NULL`;
}

/** A row of {@link heldKeysSql} (PostgreSQL's bigint columns may come as text). */
export interface HeldKeyRow {
  key: string;
  oldest: number | string;
  ready_at: number | string;
  /** The key has a row (SQLite 0 or 1, PostgreSQL a boolean). */
  configured: number | boolean;
}

/**
 * The keys of {@link heldKeysSql}'s rows whose oldest waiting call is due at `now` and whose
 * `ready_at` is not after it, oldest call first (ties: the key's byte order): the order in which a
 * claim serves them (store/rules/flow-control.ts, `planHeld`).
 */
export function readyKeys(rows: readonly HeldKeyRow[], now: number): { key: string; oldest: number; configured: boolean }[] {
  return rows
    .map((r) => ({ key: r.key, oldest: Number(r.oldest), readyAt: Number(r.ready_at), configured: r.configured === true || r.configured === 1 }))
    .filter((r) => r.oldest <= now && r.readyAt <= now)
    .sort((a, b) => a.oldest - b.oldest || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ key, oldest, configured }) => ({ key, oldest, configured }));
}

/**
 * When the claim could next start a waiting keyed call, from {@link heldKeysSql}'s rows: the
 * earliest of each key's oldest call and its `ready_at`, whichever is later; null when no call
 * waits. Epoch ms (UTC).
 */
export function heldDueAt(rows: readonly HeldKeyRow[]): number | null {
  let min: number | null = null;
  for (const r of rows) {
    const at = Math.max(Number(r.oldest), Number(r.ready_at));
    if (min === null || at < min) min = at;
  }
  return min;
}

/**
 * A finish of a call of key `:key` at `:now` frees one of its slots: the key's waiting calls are
 * ready at once, unless a receiver's hold still runs (the claim then looks at them at the hold's end).
 */
export const WAKE_SQL = `UPDATE flow_control_keys SET ready_at = :now
 WHERE key = :key AND ready_at > :now AND (hold_until IS NULL OR hold_until <= :now)`;

/**
 * A receiver's hold of key `:key` until `:until` (a 429 or 503 with `Retry-After`): the later of
 * it and a hold already running; the key's waiting calls are not looked at before it. A key not
 * configured gets a row without limits, which keeps the hold. `greatest` is the dialect's
 * two-argument maximum (SQLite's `max`, PostgreSQL's `greatest`).
 */
export function holdSql(greatest: 'max' | 'greatest'): string {
  return `INSERT INTO flow_control_keys (key, period_ms, created_at, updated_at, hold_until, ready_at)
 VALUES (:key, ${FLOW_CONTROL_BOUNDS.periodDefaultMs}, :now, :now, :until, :until)
 ON CONFLICT (key) DO UPDATE SET hold_until = ${greatest}(coalesce(flow_control_keys.hold_until, 0), excluded.hold_until),
   ready_at = ${greatest}(flow_control_keys.ready_at, excluded.ready_at)`;
}

/**
 * The distinct non-NULL values of `col` in `table` rows matching `where`, by a walk of the index
 * `hint` names (one descent per value, however many rows share it), ascending; valid in both
 * dialects (`hint`: SQLite's `INDEXED BY …`, nothing on PostgreSQL).
 */
function distinctSql(table: string, col: string, where: string, hint: string): string {
  const from = `FROM ${table} ${hint} WHERE ${where} AND ${col} IS NOT NULL`;
  return `SELECT v FROM (WITH RECURSIVE d(v) AS (
    SELECT (SELECT ${col} ${from} ORDER BY ${col} LIMIT 1)
    UNION ALL
    SELECT (SELECT ${col} ${from} AND ${col} > d.v ORDER BY ${col} LIMIT 1) FROM d WHERE d.v IS NOT NULL)
  SELECT v FROM d WHERE v IS NOT NULL) AS x`;
}

/**
 * Every key Punctual knows, in byte order: the configured ones, those named by a schedule or a
 * cron job, and those of executions waiting or in flight. `hints` are the dialect's index hints
 * (SQLite's INDEXED BY; PostgreSQL: empty strings).
 */
export function keyNamesSql(hints: { schedules: string; cron: string; held: string; running: string }): string {
  return `SELECT key FROM flow_control_keys
UNION SELECT v FROM (${distinctSql('schedules', 'flow_control_key', '1 = 1', hints.schedules)}) AS s
UNION SELECT v FROM (${distinctSql('cron_jobs', 'flow_control_key', '1 = 1', hints.cron)}) AS c
UNION SELECT v FROM (${distinctSql('executions', 'flow_control_key', "status IN ('Pending', 'Retrying')", hints.held)}) AS h
UNION SELECT v FROM (${distinctSql('executions', 'flow_control_key', "status = 'Running'", hints.running)}) AS r
ORDER BY 1`;
}

/**
 * The live state of key `:key` at `:now`: its calls waiting and due (and the due instant of the
 * oldest), its calls in flight, its starts after `:from` (the current window of its rate).
 */
export function keyStateSql(hints: { held: string; running: string }): string {
  const held = `FROM executions ${hints.held} WHERE status IN ('Pending', 'Retrying') AND flow_control_key = :key AND next_attempt_at <= :now`;
  return `SELECT (SELECT count(*) ${held}) AS waiting, (SELECT min(next_attempt_at) ${held}) AS oldest,
  (SELECT count(*) FROM executions ${hints.running} WHERE status = 'Running' AND flow_control_key = :key) AS in_flight,
  (SELECT count(*) FROM flow_control_starts WHERE key = :key AND started_at > :from) AS rate_used`;
}

/** A row of {@link keyStateSql} (PostgreSQL's counts come as text). */
export interface KeyStateRow {
  waiting: number | string;
  oldest: number | string | null;
  in_flight: number | string;
  rate_used: number | string;
}

/** The state of a row of {@link keyStateSql}; `rateUsed` null when the key has no rate. */
export function keyStateFromRow(key: string, r: KeyStateRow, rated: boolean): FlowControlKeyState {
  return {
    key,
    waiting: Number(r.waiting),
    inFlight: Number(r.in_flight),
    rateUsed: rated ? Number(r.rate_used) : null,
    oldestWaitingSince: r.oldest === null ? null : Number(r.oldest),
  };
}

/**
 * A start of a call of key `:key` at `:now` that no admission counted (a call leased again after
 * its node's lease ended: it keeps its slot of parallelism), recorded so that the key's later
 * starts count it; nothing for a key without a rate.
 */
export const COUNT_START_SQL = `INSERT INTO flow_control_starts (key, started_at)
 SELECT :key, :now WHERE EXISTS (SELECT 1 FROM flow_control_keys WHERE key = :key AND rate IS NOT NULL)`;
