/**
 * SQLite's `flow_control_keys` table (store/contract/flow-control.ts): the statements of
 * store/sql/flow-control.ts, prepared once.
 */
import type { FlowControlKey } from '../../../domain/flow-control.js';
import type { FlowControlKeyPut, FlowControlKeyPutParams } from '../../contract/flow-control.js';
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

  constructor(db: Db) {
    this.putRow = db.prepare<[Record<string, unknown>], FlowControlKeyRow & { revision: number }>(T.PUT_SQL);
    this.byKey = db.prepare<[Record<string, unknown>], FlowControlKeyRow>(T.GET_SQL);
    this.all = db.prepare<[], FlowControlKeyRow>(T.LIST_SQL);
    this.pause = db.prepare<[Record<string, unknown>], FlowControlKeyRow>(T.SET_PAUSED_SQL);
    this.remove = db.prepare<[Record<string, unknown>]>(T.DELETE_SQL);
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
}

/** The store operations of flow-control keys (../../sql-store.ts), on the statements of FlowControlQueries. */
export const flowControlOperations = {
  flowControlKeyPut: (q, p) => q.flowControl.put(p),
  flowControlKeyGet: (q, p) => q.flowControl.get(p.key),
  flowControlKeyList: (q) => q.flowControl.list(),
  flowControlKeySetPaused: (q, p) => q.flowControl.setPaused(p.key, p.paused, p.now),
  flowControlKeyDelete: (q, p) => q.flowControl.delete(p.key),
} satisfies Partial<Operations<{ flowControl: FlowControlQueries }>>;
