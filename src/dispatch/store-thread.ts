/**
 * The dispatcher's SQLite work on a thread of its own (issue #3 §5, isolation).
 *
 * better-sqlite3 is synchronous: on the event loop's thread, every claim and every batch of
 * outcomes blocked the timers and the HTTP calls for its whole transaction, fsync included
 * (synchronous = FULL, connection.ts). Measured with test/e2e/isolation.test.ts on the 2-core
 * machine of docs/benchmarks.md: a wave of 100 calls that answered at once kept the healthy calls
 * of the next 50 ms 30-60 ms late (the wave's claims, then the write of its 100 outcomes); the
 * first commit after 2.5 s without one took 8-35 ms (the disk waking up); a WAL checkpoint stalled
 * the loop for 140 ms. Here the dispatcher's operations (`claimDue`, `executionsFinish`,
 * `leasesRelease`, `nextDueAt`) run in a worker thread on its own connection to the same file,
 * and the loop only waits for their answers; everything else (the API) stays on the main
 * connection. Both connections write in IMMEDIATE transactions (WAL: one writer at a time, the
 * other waits up to the busy timeout), as two processes on one file already do (the CLI beside
 * `punctual serve`).
 */
import { StoreUnavailableError } from '../domain/errors.js';
import type { AttemptOutcome, ClaimedExecution } from '../domain/types.js';
import type { ClaimDueParams, Store } from '../store/store.js';
import { startWorker } from './worker-start.js';

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

/** Options of {@link withDispatchThread}. */
export interface DispatchThreadOptions {
  /** Receives the warnings of the thread's store (pino's logger fits). */
  logger?: { warn(obj: object, msg?: string): void };
}

/**
 * `store` (a SQLite store on the file at `path`, migrated), with the dispatcher's operations
 * moved to a worker thread on a second connection to that file (see above). `close()` ends the
 * thread, then closes `store`. A dead thread fails the operations sent to it with
 * `StoreUnavailableError` (the dispatcher logs it and retries; the leases of its claims expire).
 * @param path the database file (not `:memory:`, which a second connection cannot share)
 * @returns a Proxy of `store`, usable wherever `store` is
 */
export function withDispatchThread<S extends Store>(store: S, path: string, opts: DispatchThreadOptions = {}): S {
  const worker = startWorker('store-thread-worker', import.meta.url, { path });
  worker.unref();
  let nextId = 1;
  let dead: Error | null = null;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const fail = (err: Error) => {
    dead = err;
    for (const w of waiting.values()) w.reject(new StoreUnavailableError(`The dispatcher's store thread ended: ${err.message}`, err));
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`store thread exited (code ${code})`)));
  worker.on('message', (reply: ThreadReply) => {
    for (const w of reply.warnings) opts.logger?.warn(w.obj, w.msg);
    const w = waiting.get(reply.id);
    if (w === undefined) return;
    waiting.delete(reply.id);
    if (reply.ok) w.resolve(reply.value);
    else if (reply.error.name === 'StoreUnavailableError') w.reject(new StoreUnavailableError(reply.error.message));
    else w.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name, code: reply.error.code ?? undefined }));
  });

  const send = <T>(request: ThreadRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never): Promise<T> => {
    if (dead) return Promise.reject(new StoreUnavailableError(`The dispatcher's store thread ended: ${dead.message}`, dead));
    const id = nextId++;
    if (waiting.size === 0) worker.ref(); // keep the process alive while an answer is due
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    }).finally(() => {
      if (waiting.size === 0) worker.unref();
    });
  };

  const overrides: Partial<Store> = {
    claimDue: (p: ClaimDueParams) => send<ClaimedExecution[]>({ method: 'claimDue', params: p }),
    executionsFinish: (p) => send<void>({ method: 'executionsFinish', params: p }),
    leasesRelease: (p) => send<void>({ method: 'leasesRelease', params: p }),
    nextDueAt: () => send<number | null>({ method: 'nextDueAt' }),
    close: async () => {
      if (!dead) {
        await send<void>({ method: 'close' }).catch(() => undefined);
        await worker.terminate();
      }
      await store.close();
    },
  };
  return new Proxy(store, {
    get(target, property) {
      if (typeof property === 'string' && Object.hasOwn(overrides, property)) return overrides[property as keyof Store];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
