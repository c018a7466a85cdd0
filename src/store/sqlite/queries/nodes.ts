import { liveSince, NODE_COLUMNS, nodeFromRow, type NodeRow } from '../../rows/nodes.js';
import type { NodeRecord, NodesAtParams, NodesReaped } from '../../contract/nodes.js';
import type { Db } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/**
 * The `nodes` table (store/contract/nodes.ts): statements prepared once. One node per file, but the rows
 * are kept as on PostgreSQL, so a restart after a crash releases the old node's leases as soon
 * as its heartbeat is too old. The reap is one IMMEDIATE transaction (the file's only writer).
 */
export class NodeQueries {
  private readonly upsert;
  private readonly beat;
  private readonly liveRows;
  private readonly remove;
  private readonly reapTx;

  constructor(db: Db) {
    this.upsert = db.prepare<[string, string, number, number]>(
      `INSERT INTO nodes (node_id, role, started_at, heartbeat_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (node_id) DO UPDATE SET role = excluded.role, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
    );
    this.beat = db.prepare<[number, string]>('UPDATE nodes SET heartbeat_at = max(heartbeat_at, ?) WHERE node_id = ?');
    this.liveRows = db.prepare<[number], NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE heartbeat_at >= ? ORDER BY started_at, node_id`);
    this.remove = db.prepare<[string]>('DELETE FROM nodes WHERE node_id = ?');
    const dead = db.prepare<[number], { node_id: string }>('DELETE FROM nodes WHERE heartbeat_at < ? RETURNING node_id');
    // Walks executions_running_lease (the Running executions, as many as the calls in flight).
    const release = db.prepare<[number, string]>(
      `UPDATE executions SET lease_expires_at = min(lease_expires_at, ?)
        WHERE status = 'Running' AND lease_expires_at IS NOT NULL AND lease_owner = ?`,
    );
    this.reapTx = db.transaction((since: number, now: number): NodesReaped => {
      const nodeIds = dead.all(since).map((r) => r.node_id).sort();
      let released = 0;
      for (const id of nodeIds) released += release.run(now, id).changes;
      return { nodeIds, released };
    });
  }

  register(p: { nodeId: string; role: string; now: number }): void {
    this.upsert.run(p.nodeId, p.role, Math.floor(p.now), Math.floor(p.now));
  }

  heartbeat(p: { nodeId: string; now: number }): boolean {
    return this.beat.run(Math.floor(p.now), p.nodeId).changes > 0;
  }

  reap(p: NodesAtParams): NodesReaped {
    return this.reapTx.immediate(liveSince(p.now, p.timeoutMs), Math.floor(p.now));
  }

  live(p: NodesAtParams): NodeRecord[] {
    return this.liveRows.all(liveSince(p.now, p.timeoutMs)).map(nodeFromRow);
  }

  leave(nodeId: string): void {
    this.remove.run(nodeId);
  }
}

/** The store operations of node liveness (../../sql-store.ts), on the statements of NodeQueries. */
export const nodeOperations = {
  nodeRegister: (q, p) => { q.nodes.register(p); },
  nodeHeartbeat: (q, p) => q.nodes.heartbeat(p),
  nodesReap: (q, p) => q.nodes.reap(p),
  nodesLive: (q, p) => q.nodes.live(p),
  nodeLeave: (q, p) => { q.nodes.leave(p.nodeId); },
} satisfies Partial<Operations<{ nodes: NodeQueries }>>;
