/**
 * Rules of the `nodes` table shared by both stores (store/contract/nodes.ts): the columns, the row mapper
 * and the instant before which a heartbeat is too old.
 */
import type { NodeRecord } from '../contract/nodes.js';

/** Default of `PUNCTUAL_NODE_TIMEOUT` (ms): a node silent this long is dead (docs/multinode.md). */
export const DEFAULT_NODE_TIMEOUT_MS = 10_000;

/** The columns of a node row, in the order the stores select them. */
export const NODE_COLUMNS = 'node_id, role, started_at, heartbeat_at';

/** A node row as both drivers return it (instants as epoch ms). */
export interface NodeRow {
  node_id: string;
  role: string;
  started_at: number;
  heartbeat_at: number;
}

/** The record of a node row. */
export function nodeFromRow(r: NodeRow): NodeRecord {
  return { nodeId: r.node_id, role: r.role, startedAt: Number(r.started_at), heartbeatAt: Number(r.heartbeat_at) };
}

/**
 * The oldest heartbeat (epoch ms) of a live node at `now`: a node whose last heartbeat is before
 * it is dead (docs/multinode.md, "Node liveness"). Whole ms, rounded up, so a node is never taken
 * for dead early.
 */
export function liveSince(now: number, timeoutMs: number): number {
  return Math.ceil(now - timeoutMs);
}
