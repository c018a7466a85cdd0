/**
 * Node liveness (docs/multinode.md, "Node liveness"): this node's heartbeat, the reaping of dead
 * nodes, and the gate that keeps the dispatcher from claiming while this node is not known to be
 * alive.
 */
import type { Clock } from '../../domain/clock.js';
import type { NodesStore } from '../../store/contract/nodes.js';
import type { DispatchLogger } from '../logger.js';

/** Options of {@link NodeLiveness}. Durations in ms. */
export interface NodeLivenessOptions {
  /** The store's node operations (a `Store` or a `DispatchStore` will do). */
  store: NodesStore;
  clock: Clock;
  logger: Pick<DispatchLogger, 'info' | 'warn' | 'error'>;
  /** This node's id: the dispatcher's `nodeId` (its lease owner). */
  nodeId: string;
  /** `all`, `api` or `dispatcher`. */
  role: string;
  /** Pause between two heartbeats (`PUNCTUAL_NODE_HEARTBEAT_MS`, default 2,000). */
  heartbeatMs: number;
  /** A node whose heartbeat is older than this is dead (`PUNCTUAL_NODE_TIMEOUT`, default 10,000). */
  timeoutMs: number;
  /**
   * How far ahead the dispatcher claims (held-calls.ts, CLAIM_AHEAD_MS; default 0): {@link
   * NodeLiveness.mayClaim} turns false this much before the timeout, so work claimed ahead is
   * due before any node can take this one for dead and release its leases (released work is
   * claimable at once: released before its instant, it would be called early elsewhere).
   */
  claimAheadMs?: number;
  /**
   * Epoch ms (UTC) passed to the store: the dispatcher's estimate of the store's time (a store with
   * a clock of its own reads that clock anyway). Default `clock.now()`.
   */
  now?: () => number;
  /** Called after this node registered (again), so the dispatcher looks at the store at once. */
  onRegistered?: () => void;
  /** Called after leases of dead nodes were released, so the dispatcher claims them at once. */
  onReleased?: () => void;
}

/**
 * Keeps this node's row in the `nodes` table (store/contract/nodes.ts) and reaps the others:
 * - at {@link start}, registers (and retries until the store answers);
 * - every `heartbeatMs`, heartbeats; a heartbeat that finds no row means this node was taken for
 *   dead (a pause longer than the timeout: a stalled process, a partition) and its leases were
 *   released: it stops claiming ({@link mayClaim} false) and registers again at once;
 * - after each heartbeat, reaps: releases the leases of nodes whose heartbeat is older than
 *   `timeoutMs` (once per cluster on PostgreSQL: the store serialises it).
 * {@link mayClaim} is also false when the last heartbeat that reached the store is older than the
 * timeout by this node's own clock: a node cut off from the store must assume it was taken for
 * dead, and claims nothing until a heartbeat gets through.
 */
export class NodeLiveness {
  private timer: NodeJS.Timeout | null = null;
  private beat: Promise<void> | null = null;
  private registered = false;
  /** Local clock (ms) of the last heartbeat or registration the store acknowledged. */
  private lastAckAt = -Infinity;
  private stopped = true;

  constructor(private readonly opts: NodeLivenessOptions) {}

  /**
   * Whether this node may claim work now: registered, and acknowledged within the timeout (less
   * `claimAheadMs`).
   */
  mayClaim(): boolean {
    return this.registered && this.opts.clock.now() - this.lastAckAt < this.opts.timeoutMs - (this.opts.claimAheadMs ?? 0);
  }

  /** Registers, then heartbeats and reaps every `heartbeatMs`. Resolves after the first round. */
  async start(): Promise<void> {
    this.stopped = false;
    this.beat = this.round();
    await this.beat;
  }

  /**
   * Stops the heartbeats and removes this node's row (after the dispatcher handed its leases
   * back), so the live list drops it at once. A failure to remove is logged: the row then ages out.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.beat;
    this.registered = false;
    try {
      await this.opts.store.nodeLeave({ nodeId: this.opts.nodeId });
    } catch (err) {
      this.opts.logger.warn({ err }, 'liveness: removing this node failed; its row will age out');
    }
  }

  /** One round and the next one's timer (unless stopped). */
  private async round(): Promise<void> {
    await this.runOnce();
    if (!this.stopped) {
      this.timer = setTimeout(() => {
        this.beat = this.round();
      }, this.opts.heartbeatMs);
      this.timer.unref();
    }
  }

  /**
   * One round now: registers (when not registered) or heartbeats — registering again at once when
   * the heartbeat finds this node taken for dead — then reaps dead nodes. Never throws: a store
   * failure is logged and the next round tries again.
   */
  async runOnce(): Promise<void> {
    const { store, nodeId, role, timeoutMs, logger } = this.opts;
    const now = this.opts.now ?? (() => this.opts.clock.now());
    try {
      const sentAt = this.opts.clock.now();
      if (this.registered && !(await store.nodeHeartbeat({ nodeId, now: now() }))) {
        this.registered = false;
        logger.warn({ nodeId }, 'liveness: this node was taken for dead (its leases were released); registering again');
      }
      if (!this.registered) {
        await store.nodeRegister({ nodeId, role, now: now() });
        this.registered = true;
        this.opts.onRegistered?.();
      }
      this.lastAckAt = sentAt;
      const reaped = await store.nodesReap({ now: now(), timeoutMs });
      if (reaped.nodeIds.length > 0) {
        logger.warn({ deadNodes: reaped.nodeIds, released: reaped.released }, 'liveness: dead nodes removed; their leases are due again');
        if (reaped.released > 0) this.opts.onReleased?.();
      }
    } catch (err) {
      logger.error({ err }, 'liveness: heartbeat failed; retrying');
    }
  }
}
