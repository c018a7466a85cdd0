/*
 * SQLite's flow-control pass of a claim (store/rules/flow-control.ts, `planHeld`): after the other
 * sources, the calls waiting for their flow-control key are started as far as each key's limits
 * and the claim's room allow, keys in turn, each key's oldest due call first. One process owns the
 * file and every claim is one IMMEDIATE transaction, so what a key has in flight and has started
 * cannot change while the pass reads it. Every statement is a search of a partial index
 * (store/sql/flow-control.ts, the migration of flow-control calls).
 */
import { flowControlKeyFromRow, type FlowControlKeyRow } from '../../rows/flow-control.js';
import { GET_SQL, heldDueAt, heldKeysSql, readyKeys, type HeldKeyRow } from '../../sql/flow-control.js';
import { planHeld, startsExpiredBefore, type HeldKey } from '../../rules/flow-control.js';
import type { ClaimedExecution } from '../../../domain/types.js';
import type { Db } from '../connection.js';

const HELD = `FROM executions INDEXED BY executions_held WHERE status IN ('Pending', 'Retrying') AND flow_control_key = :key`;

/** The claim's view of the pass: its instant, its room, and how it leases one waiting execution. */
export interface HeldClaim {
  now: number;
  room: number;
  result: { claimed: ClaimedExecution[] };
}

/** The statements of the flow-control pass, prepared once. */
export class HeldQueries {
  private readonly keys;
  private readonly limits;
  private readonly dueOf;
  private readonly inFlight;
  private readonly starts;
  private readonly pruneStarts;
  private readonly insertStart;
  private readonly oldestDue;
  private readonly setReady;

  constructor(db: Db) {
    this.keys = db.prepare<[], HeldKeyRow>(heldKeysSql('INDEXED BY executions_held'));
    this.limits = db.prepare<[{ key: string }], FlowControlKeyRow>(GET_SQL);
    this.dueOf = db.prepare<[{ key: string; now: number; limit: number }], { n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 ${HELD} AND next_attempt_at <= :now LIMIT :limit)`,
    );
    this.inFlight = db.prepare<[{ key: string }], { n: number }>(
      `SELECT count(*) AS n FROM executions INDEXED BY executions_keyed_running WHERE status = 'Running' AND flow_control_key = :key`,
    );
    this.starts = db.prepare<[{ key: string; from: number }], { started_at: number }>(
      'SELECT started_at FROM flow_control_starts WHERE key = :key AND started_at > :from ORDER BY started_at',
    );
    this.pruneStarts = db.prepare<[{ key: string; from: number }]>('DELETE FROM flow_control_starts WHERE key = :key AND started_at <= :from');
    this.insertStart = db.prepare<[{ key: string; at: number }]>('INSERT INTO flow_control_starts (key, started_at) VALUES (:key, :at)');
    this.oldestDue = db.prepare<[{ key: string; now: number; limit: number }], { id: string; due: number }>(
      `SELECT id, next_attempt_at AS due ${HELD} AND next_attempt_at <= :now ORDER BY next_attempt_at LIMIT :limit`,
    );
    this.setReady = db.prepare<[{ key: string; at: number }]>('UPDATE flow_control_keys SET ready_at = :at WHERE key = :key');
  }

  /** When the pass could next start a waiting call (see `heldDueAt`), or null. */
  nextDueAt(): number | null {
    return heldDueAt(this.keys.all());
  }

  /**
   * The pass, inside the claim's transaction.
   * @param lease leases one waiting execution again (the claim's rules for deleted jobs and
   *   backfill included) and pushes its item, or does nothing
   */
  claim(c: HeldClaim, lease: (id: string, due: number) => void): void {
    if (c.room <= 0) return;
    const ready = readyKeys(this.keys.all(), c.now);
    if (ready.length === 0) return;
    const held: HeldKey[] = ready.map(({ key }) => {
      const row = this.limits.get({ key });
      const limits = row ? flowControlKeyFromRow(row) : null;
      const due = this.dueOf.get({ key, now: c.now, limit: c.room })!.n;
      const inFlight = limits?.parallelism != null ? this.inFlight.get({ key })!.n : 0;
      let starts: number[] = [];
      if (limits?.rate != null) {
        const from = startsExpiredBefore(limits, c.now);
        this.pruneStarts.run({ key, from });
        starts = this.starts.all({ key, from }).map((r) => r.started_at);
      }
      return { key, limits, state: { inFlight, starts }, due };
    });
    const plans = planHeld(held, c.now, c.room);
    plans.forEach((plan, i) => {
      const { limits } = held[i]!;
      if (plan.take > 0) {
        for (const { id, due } of this.oldestDue.all({ key: plan.key, now: c.now, limit: plan.take })) {
          const before = c.result.claimed.length;
          lease(id, due);
          const item = c.result.claimed[before];
          if (!item) continue; // its job was deleted, or a backfill not yet its turn
          item.waitedMs = Math.max(0, c.now - due);
          if (limits?.rate != null) this.insertStart.run({ key: plan.key, at: c.now });
        }
      }
      if (plan.readyAt !== null) this.setReady.run({ key: plan.key, at: plan.readyAt });
    });
  }
}
