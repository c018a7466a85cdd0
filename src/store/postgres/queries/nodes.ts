import { liveSince, NODE_COLUMNS, nodeFromRow, type NodeRow } from '../../rows/nodes.js';
import type { NodeRecord, NodesAtParams, NodesReaped } from '../../contract/nodes.js';
import { DB_NOW_MS, lockKeySql, type NotifyContext, type Sql, type PgContext } from '../connection.js';
import { notifySql } from '../notify.js';
import type { Operations } from '../../sql-store.js';

type Clock = 'database' | 'caller';

/**
 * The instant and the oldest live heartbeat of a statement, as SQL: with clock 'database' the
 * database's clock (`$1` is then the timeout), else the caller's (`$1` the oldest live heartbeat,
 * `$2` the caller's now).
 */
function instants(clock: Clock, p: NodesAtParams): { now: string; since: string; values: unknown[] } {
  if (clock === 'database') return { now: DB_NOW_MS, since: `${DB_NOW_MS} - $1::bigint`, values: [Math.floor(p.timeoutMs)] };
  return { now: '$2::bigint', since: '$1::bigint', values: [liveSince(p.now, p.timeoutMs), Math.floor(p.now)] };
}

/** The `nodes` table (store/contract/nodes.ts): registration, heartbeats, reaping, the live list. */
export const nodes = {
  async register(sql: Sql, clock: Clock, p: { nodeId: string; role: string; now: number }): Promise<void> {
    const now = clock === 'database' ? DB_NOW_MS : '$3::bigint';
    const values: unknown[] = [p.nodeId, p.role];
    if (clock === 'caller') values.push(Math.floor(p.now));
    await sql.rows(
      `INSERT INTO nodes (node_id, role, started_at, heartbeat_at) VALUES ($1, $2, ${now}, ${now})
       ON CONFLICT (node_id) DO UPDATE SET role = EXCLUDED.role, started_at = EXCLUDED.started_at, heartbeat_at = EXCLUDED.heartbeat_at`,
      values,
    );
  },

  /**
   * A concurrent {@link reap} that deletes the row first makes this a no-op (false): the UPDATE
   * waits for the row lock and then finds no row (READ COMMITTED); one that would delete it after
   * re-checks the new heartbeat and keeps the row.
   */
  async heartbeat(sql: Sql, clock: Clock, p: { nodeId: string; now: number }): Promise<boolean> {
    const now = clock === 'database' ? DB_NOW_MS : '$2::bigint';
    const values: unknown[] = [p.nodeId];
    if (clock === 'caller') values.push(Math.floor(p.now));
    const n = await sql.count(`UPDATE nodes SET heartbeat_at = GREATEST(heartbeat_at, ${now}) WHERE node_id = $1`, values, `punctual_node_heartbeat_${clock}`);
    return n > 0;
  },

  /**
   * See `Store.nodesReap`; runs in the caller's transaction, once per cluster (the schema's
   * `liveness` advisory lock, taken without waiting). One statement deletes the dead rows and
   * releases their leases (walking `executions_running_lease`, the Running executions), and
   * announces the earliest released lease (notify.ts), so idle dispatchers of other nodes claim
   * it at once.
   */
  async reap(sql: Sql, scope: string, n: NotifyContext, p: NodesAtParams): Promise<NodesReaped> {
    const [lock] = await sql.rows<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${lockKeySql('liveness')}) AS ok`, [scope]);
    if (!lock?.ok) return { nodeIds: [], released: 0 };
    const { now, since, values } = instants(n.clock, p);
    const channel = `$${values.length + 1}`;
    const [r] = await sql.rows<{ node_ids: string[]; released: number }>(
      `WITH d AS (DELETE FROM nodes WHERE heartbeat_at < ${since} RETURNING node_id),
       r AS (UPDATE executions e SET lease_expires_at = LEAST(e.lease_expires_at, ${now})
              WHERE e.status = 'Running' AND e.lease_owner IN (SELECT node_id FROM d) RETURNING e.lease_expires_at)
       SELECT coalesce((SELECT array_agg(node_id ORDER BY node_id) FROM d), '{}') AS node_ids,
              (SELECT count(*) FROM r) AS released,
              ${notifySql('(SELECT min(lease_expires_at) FROM r)', channel, n.clock)} AS notified`,
      [...values, n.channel],
    );
    return { nodeIds: r?.node_ids ?? [], released: Number(r?.released ?? 0) };
  },

  async live(sql: Sql, clock: Clock, p: NodesAtParams): Promise<NodeRecord[]> {
    const { since, values } = instants(clock, p);
    const rows = await sql.rows<NodeRow>(
      `SELECT ${NODE_COLUMNS} FROM nodes WHERE heartbeat_at >= ${since} ORDER BY started_at, node_id`,
      values.slice(0, 1),
    );
    return rows.map(nodeFromRow);
  },

  async leave(sql: Sql, nodeId: string): Promise<void> {
    await sql.rows('DELETE FROM nodes WHERE node_id = $1', [nodeId]);
  },
};

/** The store operations of node liveness (with clock 'database', `p.now` is ignored) (store/sql-store.ts). */
export const nodeOperations = {
  nodeRegister: async (c, p) => {
    await nodes.register(c.sql, c.clock, p);
  },
  nodeHeartbeat: (c, p) => nodes.heartbeat(c.sql, c.clock, p),
  nodesReap: async (c, p) => {
    // Once per cluster: nothing at once while another node reaps.
    const [scope, n] = [await c.scope(), await c.notifyContext()];
    return c.tx((sql) => nodes.reap(sql, scope, n, p));
  },
  nodesLive: (c, p) => nodes.live(c.sql, c.clock, p),
  nodeLeave: async (c, p) => {
    await nodes.leave(c.sql, p.nodeId);
  },
} satisfies Partial<Operations<PgContext>>;
