/*
 * PostgreSQL's flow-control pass of a claim (store/rules/flow-control.ts, `planHeld`): after the
 * other sources, the calls waiting for their flow-control key are started as far as each key's
 * limits and the claim's room allow, keys in turn, each key's oldest due call first, in the claim's
 * transaction (READ COMMITTED).
 *
 * Several nodes claim at once, so a configured key's row is locked (FOR UPDATE SKIP LOCKED) before
 * its calls in flight and its starts are counted: while one claimer admits a key's calls no other
 * claimer can, and one that finds the row locked passes the key over for this claim (it never
 * waits, so no claim waits for another and none deadlocks). Once the lock is held, each statement
 * reads what the claimers before it committed (READ COMMITTED takes a snapshot per statement), so
 * the count of calls in flight includes every call they started. The finish of a call takes the
 * same row (WAKE_SQL), after the claim commits. A key not configured has no limits and needs no
 * lock; its calls are taken FOR UPDATE SKIP LOCKED like every other source's rows.
 */
import type { ClaimedExecution } from '../../../domain/types.js';
import { planHeld, startsExpiredBefore, type HeldKey } from '../../rules/flow-control.js';
import { flowControlKeyFromRow, FLOW_CONTROL_KEY_COLUMNS, type FlowControlKeyRow } from '../../rows/flow-control.js';
import { heldDueAt, heldKeysSql, readyKeys, type HeldKeyRow } from '../../sql/flow-control.js';
import { pushClaimed } from '../../sql/claim.js';
import type { Sql } from '../connection.js';

const HELD_KEYS_SQL = heldKeysSql('');

/** The configured keys among `$1`, locked; those another claimer holds are left out. */
const LOCK_KEYS_SQL = `SELECT ${FLOW_CONTROL_KEY_COLUMNS} FROM flow_control_keys WHERE key = ANY($1::text[]) FOR UPDATE SKIP LOCKED`;

/**
 * For each key `$1` (with `$4` the instant after which its starts count): its waiting calls due at
 * `$2` (up to `$3`), its calls in flight and its starts, ascending.
 */
const STATE_SQL = `SELECT k.key,
  (SELECT count(*) FROM (SELECT 1 FROM executions
     WHERE status IN ('Pending', 'Retrying') AND flow_control_key = k.key AND next_attempt_at <= $2::bigint LIMIT $3) AS x) AS due,
  (SELECT count(*) FROM executions WHERE status = 'Running' AND flow_control_key = k.key) AS in_flight,
  (SELECT coalesce(array_agg(s.started_at ORDER BY s.started_at), '{}') FROM flow_control_starts s
    WHERE s.key = k.key AND s.started_at > k.since) AS starts
  FROM unnest($1::text[], $4::bigint[]) AS k(key, since)`;

/** Deletes the starts of keys `$1` at or before their instants `$2` (they no longer count). */
const PRUNE_STARTS_SQL = `DELETE FROM flow_control_starts s USING unnest($1::text[], $2::bigint[]) AS k(key, since)
 WHERE s.key = k.key AND s.started_at <= k.since`;

/** The `$2` oldest due (at `$3`) waiting calls of each key `$1`, locked, key by key. */
const TAKE_SQL = `SELECT t.id, t.next_attempt_at AS due
  FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS k(key, n, ord)
 CROSS JOIN LATERAL (SELECT id, next_attempt_at FROM executions
     WHERE status IN ('Pending', 'Retrying') AND flow_control_key = k.key AND next_attempt_at <= $3::bigint
     ORDER BY next_attempt_at LIMIT k.n FOR UPDATE SKIP LOCKED) AS t
 ORDER BY k.ord, t.next_attempt_at`;

/** One start at `$2` per entry of `$1` (a key once per call started). */
const INSERT_STARTS_SQL = 'INSERT INTO flow_control_starts (key, started_at) SELECT k, $2::bigint FROM unnest($1::text[]) AS k';

/** `ready_at` of each key `$1` becomes `$2`. */
const SET_READY_SQL = `UPDATE flow_control_keys f SET ready_at = u.at FROM unnest($1::text[], $2::bigint[]) AS u(key, at) WHERE f.key = u.key`;

/** The claim's view of the pass. */
export interface HeldClaim {
  sql: Sql;
  now: number;
  room: number;
  result: { claimed: ClaimedExecution[] };
}

/** When the pass could next start a waiting call (`heldDueAt`), or null. */
export async function heldNextDueAt(sql: Sql): Promise<number | null> {
  return heldDueAt(await sql.rows<HeldKeyRow>(HELD_KEYS_SQL, [], 'punctual_held_keys'));
}

/**
 * The pass, inside the claim's transaction (see the top of this file).
 * @param relet leases the executions again (the claim's rules for deleted jobs and backfill
 *   included) and answers the items of those it leased, not pushed
 */
export async function claimHeld(
  c: HeldClaim,
  relet: (ids: string[], dueOf: Map<string, number>) => Promise<ClaimedExecution[]>,
): Promise<void> {
  if (c.room <= 0) return;
  const ready = readyKeys(await c.sql.rows<HeldKeyRow>(HELD_KEYS_SQL, [], 'punctual_held_keys'), c.now);
  if (ready.length === 0) return;
  const configured = ready.filter((k) => k.configured).map((k) => k.key);
  const limits = new Map(
    configured.length === 0
      ? []
      : (await c.sql.rows<FlowControlKeyRow>(LOCK_KEYS_SQL, [configured], 'punctual_held_lock')).map((r) => [r.key, flowControlKeyFromRow(r)]),
  );
  const keys = ready.filter((k) => !k.configured || limits.has(k.key)).map((k) => k.key);
  if (keys.length === 0) return;
  const since = keys.map((k) => {
    const l = limits.get(k);
    return l?.rate != null ? startsExpiredBefore(l, c.now) : c.now;
  });
  const rated = keys.filter((k) => limits.get(k)?.rate != null);
  if (rated.length > 0) {
    await c.sql.rows(PRUNE_STARTS_SQL, [rated, rated.map((k) => since[keys.indexOf(k)])], 'punctual_held_prune');
  }
  const states = new Map(
    (
      await c.sql.rows<{ key: string; due: number | string; in_flight: number | string; starts: (number | string)[] }>(
        STATE_SQL,
        [keys, c.now, c.room, since],
        'punctual_held_state',
      )
    ).map((r) => [r.key, r]),
  );
  const held: HeldKey[] = keys.map((key) => {
    const s = states.get(key)!;
    return { key, limits: limits.get(key) ?? null, state: { inFlight: Number(s.in_flight), starts: s.starts.map(Number) }, due: Number(s.due) };
  });
  const plans = planHeld(held, c.now, c.room).filter((p) => p.take > 0 || p.readyAt !== null);
  const taking = plans.filter((p) => p.take > 0);
  if (taking.length > 0) {
    const rows = await c.sql.rows<{ id: string; due: number | string }>(
      TAKE_SQL,
      [taking.map((p) => p.key), taking.map((p) => p.take), c.now],
      'punctual_held_take',
    );
    const dueOf = new Map(rows.map((r) => [r.id, Number(r.due)]));
    const items = new Map((await relet(rows.map((r) => r.id), dueOf)).map((i) => [i.executionId, i]));
    const started: string[] = [];
    for (const r of rows) {
      const item = items.get(r.id);
      if (!item) continue; // its job was deleted, or a backfill not yet its turn
      item.waitedMs = Math.max(0, c.now - Number(r.due));
      pushClaimed(c, item);
      if (item.flowControlKey !== undefined && limits.get(item.flowControlKey)?.rate != null) started.push(item.flowControlKey);
    }
    if (started.length > 0) await c.sql.rows(INSERT_STARTS_SQL, [started, c.now], 'punctual_held_starts');
  }
  const blocked = plans.filter((p) => p.readyAt !== null);
  if (blocked.length > 0) {
    await c.sql.rows(SET_READY_SQL, [blocked.map((p) => p.key), blocked.map((p) => p.readyAt)], 'punctual_held_ready');
  }
}

/**
 * Records a start at `now` for each entry of `keys` whose key has a rate (calls leased again after
 * their node's lease ended: no admission counted them; store/sql/flow-control.ts COUNT_START_SQL).
 */
export async function countStarts(sql: Sql, keys: string[], now: number): Promise<void> {
  await sql.rows(
    `INSERT INTO flow_control_starts (key, started_at)
     SELECT u.k, $2::bigint FROM unnest($1::text[]) AS u(k) JOIN flow_control_keys f ON f.key = u.k AND f.rate IS NOT NULL`,
    [keys, now],
    'punctual_count_starts',
  );
}
