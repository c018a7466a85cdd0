/**
 * The dispatcher's SQLite work on a thread of its own, for isolation: a slow transaction must not
 * hold up the timers and calls of the event loop.
 *
 * better-sqlite3 is synchronous: on the event loop's thread, every claim and every batch of
 * outcomes blocked the timers and the HTTP calls for its whole transaction, fsync included
 * (synchronous = FULL, connection.ts). Measured with test/e2e/isolation.test.ts on the 2-core
 * machine of docs/benchmarks.md: a wave of 100 calls that answered at once kept the healthy calls
 * of the next 50 ms 30-60 ms late (the wave's claims, then the write of its 100 outcomes); the
 * first commit after 2.5 s without one took 8-35 ms (the disk waking up); a WAL checkpoint stalled
 * the loop for 140 ms. Here the dispatcher's transactions (`claimDue`, `executionsFinish`,
 * `leasesRelease`, `nextDueAt`) run in a worker thread on its own connection to the same file,
 * and the loop only waits for their answers; the other dispatch operations (`now`, `onWork`, the
 * pruner's `executionsPrune`, the signing secret's `settingGetOrCreate`, the node heartbeats of
 * liveness.ts) and the whole API stay on the main connection. Both connections write in
 * IMMEDIATE transactions (WAL: one writer at a time, the other waits up to the busy timeout), as
 * two processes on one file already do (the CLI beside `punctual serve`).
 */
import { StoreUnavailableError } from '../../domain/errors.js';
import type { AttemptOutcome } from '../../domain/types.js';
import type { ClaimDueResult } from '../rules/claim.js';
import type { DispatchStore } from '../contract/dispatch.js';
import type { FinishResult } from '../rules/outcome.js';
import type { ClaimDueParams } from '../store.js';
import type { NodeRecord, NodesAtParams, NodesReaped } from '../contract/nodes.js';
import { startWorker } from '../../runtime/worker-start.js';

/** A request to the thread; `id` pairs it with its reply. */
export type ThreadRequest = { id: number } & (
  | { method: 'claimDue'; params: ClaimDueParams }
  | { method: 'executionsFinish'; params: { nodeId: string; outcomes: AttemptOutcome[] } }
  | { method: 'leasesRelease'; params: { nodeId: string; executionIds: string[]; now: number } }
  | { method: 'nextDueAt' }
  | { method: 'close' }
);

/** The thread's answer to one request, with the warnings its store logged meanwhile. */
export type ThreadReply = { id: number; warnings: { obj: object; msg: string | undefined }[] } & (
  | { ok: true; value: unknown }
  | { ok: false; error: { name: string; message: string; code: string | null } }
);

/** A request without its id, as {@link SqliteDispatchThread} sends it. */
type Outgoing = ThreadRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/** Options of {@link SqliteDispatchThread}. */
export interface DispatchThreadOptions {
  /** Receives the warnings of the thread's store (pino's logger fits). */
  logger?: { warn(obj: object, msg?: string): void };
}

/**
 * The dispatch store of `punctual serve` on SQLite (see above): the dispatcher's transactions on a
 * worker thread with a second connection to the file at `path`; the rest on `main`, a store on
 * that same file (migrated before the first claim). A dead thread fails the operations sent to it
 * with `StoreUnavailableError` (the dispatcher logs it and retries; the leases of its claims
 * expire). {@link close} ends the thread only: `main` stays open, its owner closes it.
 */
export class SqliteDispatchThread implements DispatchStore {
  private readonly worker;
  private nextId = 1;
  private dead: Error | null = null;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  /**
   * @param main the store of the API, on the file at `path`
   * @param path the database file (not `:memory:`, which a second connection cannot share)
   */
  constructor(
    private readonly main: DispatchStore,
    path: string,
    private readonly opts: DispatchThreadOptions = {},
  ) {
    this.worker = startWorker('dispatch-thread-worker', import.meta.url, { path });
    this.worker.unref();
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`store thread exited (code ${code})`)));
    this.worker.on('message', (reply: ThreadReply) => this.receive(reply));
  }

  now(): Promise<number | null> {
    return this.main.now();
  }
  onWork(listener: (dueAtMs: number) => void): () => void {
    return this.main.onWork(listener);
  }
  executionsPrune(p: { before: number; limit: number }): Promise<number> {
    return this.main.executionsPrune(p);
  }
  settingGetOrCreate(p: { key: string; create: () => string }): Promise<string> {
    return this.main.settingGetOrCreate(p);
  }
  nodeRegister(p: { nodeId: string; role: string; now: number }): Promise<void> {
    return this.main.nodeRegister(p);
  }
  nodeHeartbeat(p: { nodeId: string; now: number }): Promise<boolean> {
    return this.main.nodeHeartbeat(p);
  }
  nodesReap(p: NodesAtParams): Promise<NodesReaped> {
    return this.main.nodesReap(p);
  }
  nodesLive(p: NodesAtParams): Promise<NodeRecord[]> {
    return this.main.nodesLive(p);
  }
  nodeLeave(p: { nodeId: string }): Promise<void> {
    return this.main.nodeLeave(p);
  }

  /** Claims on the thread (the params are plain data, so they cross as they are). */
  claimDue(p: ClaimDueParams): Promise<ClaimDueResult> {
    return this.send<ClaimDueResult>({ method: 'claimDue', params: p });
  }
  /** Outcomes on the thread; the reply is the {@link FinishResult} (plain data: the jobs paused). */
  executionsFinish(p: { nodeId: string; outcomes: AttemptOutcome[] }): Promise<FinishResult> {
    return this.send<FinishResult>({ method: 'executionsFinish', params: p });
  }
  leasesRelease(p: { nodeId: string; executionIds: string[]; now: number }): Promise<void> {
    return this.send<void>({ method: 'leasesRelease', params: p });
  }
  nextDueAt(): Promise<number | null> {
    return this.send<number | null>({ method: 'nextDueAt' });
  }

  /** Closes the thread's connection and ends the thread. Idempotent; `main` stays open. */
  async close(): Promise<void> {
    if (this.dead) return;
    await this.send<void>({ method: 'close' }).catch(() => undefined);
    await this.worker.terminate();
    this.fail(new Error('store thread closed'));
  }

  private fail(err: Error): void {
    this.dead ??= err;
    for (const w of this.waiting.values()) w.reject(new StoreUnavailableError(`The dispatcher's store thread ended: ${err.message}`, err));
    this.waiting.clear();
  }

  private receive(reply: ThreadReply): void {
    for (const w of reply.warnings) this.opts.logger?.warn(w.obj, w.msg);
    const w = this.waiting.get(reply.id);
    if (w === undefined) return;
    this.waiting.delete(reply.id);
    if (reply.ok) w.resolve(reply.value);
    else if (reply.error.name === 'StoreUnavailableError') w.reject(new StoreUnavailableError(reply.error.message));
    else w.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name, code: reply.error.code ?? undefined }));
  }

  private send<T>(request: Outgoing): Promise<T> {
    const dead = this.dead;
    if (dead) return Promise.reject(new StoreUnavailableError(`The dispatcher's store thread ended: ${dead.message}`, dead));
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker.ref(); // keep the process alive while an answer is due
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...request, id });
    }).finally(() => {
      if (this.waiting.size === 0) this.worker.unref();
    });
  }
}
