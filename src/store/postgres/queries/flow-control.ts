/**
 * PostgreSQL's `flow_control_keys` table (store/contract/flow-control.ts): the statements of
 * store/sql/flow-control.ts with their parameters numbered.
 */
import type { FlowControlKey } from '../../../domain/flow-control.js';
import type { FlowControlKeyPut, FlowControlKeyPutParams, FlowControlKeyState } from '../../contract/flow-control.js';
import { flowControlKeyFromRow, type FlowControlKeyRow } from '../../rows/flow-control.js';
import * as T from '../../sql/flow-control.js';
import { positional, type PgContext, type Sql } from '../connection.js';
import { notifySql } from '../notify.js';
import type { Operations } from '../../sql-store.js';

const KEY_NAMES_SQL = T.keyNamesSql({ schedules: '', cron: '', held: '', running: '' });
const KEY_STATE_SQL = T.keyStateSql({ held: '', running: '' });

/** Runs the statement `text` with the named `params`. */
function run<R extends object>(sql: Sql, text: string, params: Record<string, unknown>): Promise<R[]> {
  const q = positional(text, params);
  return sql.rows<R & Record<string, unknown>>(q.text, q.values);
}

/** The `flow_control_keys` table. */
export const flowControl = {
  async put(sql: Sql, p: FlowControlKeyPutParams): Promise<FlowControlKeyPut> {
    const [r] = await run<FlowControlKeyRow & { revision: number | string }>(sql, T.PUT_SQL, T.putParams(p));
    return { value: flowControlKeyFromRow(r!), created: Number(r!.revision) === 1 };
  },

  async get(sql: Sql, key: string): Promise<FlowControlKey | null> {
    const [r] = await run<FlowControlKeyRow>(sql, T.GET_SQL, { key });
    return r ? flowControlKeyFromRow(r) : null;
  },

  async list(sql: Sql): Promise<FlowControlKey[]> {
    return (await run<FlowControlKeyRow>(sql, T.LIST_SQL, {})).map(flowControlKeyFromRow);
  },

  async setPaused(sql: Sql, key: string, paused: boolean, now: number): Promise<FlowControlKey | null> {
    const [r] = await run<FlowControlKeyRow>(sql, T.SET_PAUSED_SQL, T.pausedParams(key, paused, now));
    return r ? flowControlKeyFromRow(r) : null;
  },

  async keyNames(sql: Sql): Promise<string[]> {
    return (await sql.rows<{ key: string }>(KEY_NAMES_SQL, [], 'punctual_flow_control_names')).map((r) => r.key);
  },

  async keyState(sql: Sql, p: { key: string; now: number; rate: boolean; periodMs: number }): Promise<FlowControlKeyState> {
    const now = Math.floor(p.now);
    const [r] = await run<T.KeyStateRow>(sql, KEY_STATE_SQL, { key: p.key, now, from: now - p.periodMs });
    return T.keyStateFromRow(p.key, r!, p.rate);
  },

  async delete(sql: Sql, key: string): Promise<boolean> {
    const q = positional(T.DELETE_SQL, { key });
    return (await sql.count(q.text, q.values)) > 0;
  },
};

/**
 * Announces a change of a key's limits or pause to every node (notify.ts): its waiting calls may
 * start now, so each node's dispatcher claims again at once instead of at its own next look.
 */
async function announce(c: PgContext, sql: Sql, now: number): Promise<void> {
  const n = await c.notifyContext();
  await sql.rows(`SELECT ${notifySql('$1::bigint', '$2', n.clock)} AS notified`, [Math.floor(now), n.channel], 'punctual_flow_control_notify');
}

/** The store operations of flow-control keys (store/sql-store.ts). */
export const flowControlOperations = {
  flowControlKeyPut: (c, p) => c.tx(async (sql) => {
    const r = await flowControl.put(sql, p);
    await announce(c, sql, p.now);
    return r;
  }),
  flowControlKeyGet: (c, p) => flowControl.get(c.sql, p.key),
  flowControlKeyList: (c) => flowControl.list(c.sql),
  flowControlKeySetPaused: (c, p) => c.tx(async (sql) => {
    const r = await flowControl.setPaused(sql, p.key, p.paused, p.now);
    if (r !== null) await announce(c, sql, p.now);
    return r;
  }),
  flowControlKeyDelete: (c, p) => c.tx(async (sql) => {
    const r = await flowControl.delete(sql, p.key);
    if (r) await announce(c, sql, Date.now());
    return r;
  }),
  flowControlKeyNames: (c) => flowControl.keyNames(c.sql),
  flowControlKeyState: (c, p) => flowControl.keyState(c.sql, p),
} satisfies Partial<Operations<PgContext>>;
