/**
 * SQLite's `flow_control_keys` table (store/contract/flow-control.ts): the statements of
 * store/sql/flow-control.ts, prepared once.
 */
import type { FlowControlKey } from '../../../domain/flow-control.js';
import type { FlowControlKeyPut, FlowControlKeyPutParams, FlowControlKeyState } from '../../contract/flow-control.js';
import { flowControlKeyFromRow, type FlowControlKeyRow } from '../../rows/flow-control.js';
import * as T from '../../sql/flow-control.js';
import type { Db } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** The statements of the `flow_control_keys` table. */
export class FlowControlQueries {
  private readonly putRow;
  private readonly byKey;
  private readonly all;
  private readonly pause;
  private readonly remove;
  private readonly names;
  private readonly state;

  constructor(db: Db) {
    this.putRow = db.prepare<[Record<string, unknown>], FlowControlKeyRow & { revision: number }>(T.PUT_SQL);
    this.byKey = db.prepare<[Record<string, unknown>], FlowControlKeyRow>(T.GET_SQL);
    this.all = db.prepare<[], FlowControlKeyRow>(T.LIST_SQL);
    this.pause = db.prepare<[Record<string, unknown>], FlowControlKeyRow>(T.SET_PAUSED_SQL);
    this.remove = db.prepare<[Record<string, unknown>]>(T.DELETE_SQL);
    this.names = db.prepare<[], { key: string }>(
      T.keyNamesSql({
        schedules: 'INDEXED BY schedules_by_flow_control_key',
        cron: 'INDEXED BY cron_jobs_by_flow_control_key',
        held: 'INDEXED BY executions_held',
        running: 'INDEXED BY executions_keyed_running',
      }),
    );
    this.state = db.prepare<[Record<string, unknown>], T.KeyStateRow>(
      T.keyStateSql({ held: 'INDEXED BY executions_held', running: 'INDEXED BY executions_keyed_running' }),
    );
  }

  put(p: FlowControlKeyPutParams): FlowControlKeyPut {
    const r = this.putRow.get(T.putParams(p))!;
    return { value: flowControlKeyFromRow(r), created: Number(r.revision) === 1 };
  }

  get(key: string): FlowControlKey | null {
    const r = this.byKey.get({ key });
    return r ? flowControlKeyFromRow(r) : null;
  }

  list(): FlowControlKey[] {
    return this.all.all().map(flowControlKeyFromRow);
  }

  setPaused(key: string, paused: boolean, now: number): FlowControlKey | null {
    const r = this.pause.get(T.pausedParams(key, paused, now));
    return r ? flowControlKeyFromRow(r) : null;
  }

  delete(key: string): boolean {
    return this.remove.run({ key }).changes > 0;
  }

  keyNames(): string[] {
    return this.names.all().map((r) => r.key);
  }

  keyState(p: { key: string; now: number; rate: boolean; periodMs: number }): FlowControlKeyState {
    const now = Math.floor(p.now);
    return T.keyStateFromRow(p.key, this.state.get({ key: p.key, now, from: now - p.periodMs })!, p.rate);
  }
}

/** The store operations of flow-control keys (../../sql-store.ts), on the statements of FlowControlQueries. */
export const flowControlOperations = {
  flowControlKeyPut: (q, p) => q.flowControl.put(p),
  flowControlKeyGet: (q, p) => q.flowControl.get(p.key),
  flowControlKeyList: (q) => q.flowControl.list(),
  flowControlKeySetPaused: (q, p) => q.flowControl.setPaused(p.key, p.paused, p.now),
  flowControlKeyDelete: (q, p) => q.flowControl.delete(p.key),
  flowControlKeyNames: (q) => q.flowControl.keyNames(),
  flowControlKeyState: (q, p) => q.flowControl.keyState(p),
} satisfies Partial<Operations<{ flowControl: FlowControlQueries }>>;
