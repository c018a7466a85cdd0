/**
 * The node-liveness operations of a store (docs/multinode.md, "Node liveness"): every node of
 * `punctual serve` keeps a row of its own in the `nodes` table, heartbeats it, and the first node
 * to notice that another stopped heartbeating hands that node's leases back at once, instead of
 * waiting for them to expire. Part of the `Store` contract (store.ts extends {@link NodesStore})
 * and of the dispatch side (store/contract/dispatch.ts); the rules shared by both databases are in
 * store/rows/nodes.ts.
 *
 * Instants are epoch ms (UTC). A store with a clock of its own (`Store.now()` not null:
 * PostgreSQL) uses that clock instead of the `now` of the params, as `claimDue` does, so nodes
 * with skewed clocks agree on who is dead.
 */

/** One node as its row says (`nodes` table). */
export interface NodeRecord {
  /** The node's id: the dispatcher's lease owner (`Dispatcher.nodeId`). */
  nodeId: string;
  /** `all`, `api` or `dispatcher` (`PUNCTUAL_ROLE`). */
  role: string;
  /** When the node registered (epoch ms, UTC): its start, or its return after it was taken for dead. */
  startedAt: number;
  /** Its last heartbeat (epoch ms, UTC). */
  heartbeatAt: number;
}

/** Params of {@link NodesStore.nodesReap} and {@link NodesStore.nodesLive}. */
export interface NodesAtParams {
  /** Epoch ms (UTC): the caller's clock (a store with a clock of its own uses its own). */
  now: number;
  /** A node whose last heartbeat is more than this many ms before `now` is dead (`PUNCTUAL_NODE_TIMEOUT`). */
  timeoutMs: number;
}

/** What {@link NodesStore.nodesReap} did. */
export interface NodesReaped {
  /** The nodes found dead and removed. */
  nodeIds: string[];
  /** How many of their leases were released (Running executions made due at once). */
  released: number;
}

/** The node-liveness operations of a store (see the module's description). */
export interface NodesStore {
  /**
   * Registers node `p.nodeId`: its row is written with `startedAt = heartbeatAt = now` (replacing
   * a row of the same id). The node may claim work from then on.
   */
  nodeRegister(p: { nodeId: string; role: string; now: number }): Promise<void>;
  /**
   * Records a heartbeat of node `p.nodeId` (`heartbeatAt` only moves forward).
   * @returns false when the node has no row: it was taken for dead (see {@link nodesReap}) or left,
   *   and must not claim until it has registered again ({@link nodeRegister}); nothing changes then
   */
  nodeHeartbeat(p: { nodeId: string; now: number }): Promise<boolean>;
  /**
   * Finds the dead nodes (last heartbeat before `now − timeoutMs`), removes their rows and, in
   * the same transaction, releases their leases: every `Running` execution leased to one of them
   * becomes due at once, exactly as `leasesRelease` does (its lease expires at `now`, attempt and
   * owner unchanged; the next `claimDue` of any node takes it with `attempt + 1`, the same
   * `webhook-id`), whatever the job's `timeoutMs`. Leases of nodes without a row are left to
   * expire. A once-per-cluster duty: on PostgreSQL it runs only when this schema's advisory lock
   * `liveness` is free, otherwise it returns nothing at once (another node is reaping).
   */
  nodesReap(p: NodesAtParams): Promise<NodesReaped>;
  /** The live nodes (last heartbeat at or after `now − timeoutMs`), oldest registration first. Reads only. */
  nodesLive(p: NodesAtParams): Promise<NodeRecord[]>;
  /** Removes node `p.nodeId`'s row (a graceful stop, after its leases were handed back). Idempotent. */
  nodeLeave(p: { nodeId: string }): Promise<void>;
}
