/**
 * The dispatcher's SQLite thread (see dispatch-thread.ts): a worker thread that opens its own
 * connection to the database file and runs the dispatcher's operations on it, one message at a
 * time, in the order they came.
 *
 * Messages in: {@link ThreadRequest}. Messages out: {@link ThreadReply}, one per request, carrying
 * the warnings the store logged meanwhile (e.g. a cron job paused by a claim), for the main
 * thread's logger. Claims carry plain data only: the store applies its own cron engine.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from './store.js';
import type { ThreadReply, ThreadRequest } from './dispatch-thread.js';

const port = parentPort!;
const { path } = workerData as { path: string };
const warnings: ThreadReply['warnings'] = [];
let store: SqliteStore | null = null;

/** Runs one request on the thread's store (opened at the first). */
async function run(m: ThreadRequest): Promise<unknown> {
  store ??= SqliteStore.open(path, { logger: { warn: (obj, msg) => warnings.push({ obj, msg }) } });
  switch (m.method) {
    case 'claimDue':
      return store.claimDue(m.params);
    case 'executionsFinish':
      return store.executionsFinish(m.params);
    case 'leasesRelease':
      return store.leasesRelease(m.params);
    case 'nextDueAt':
      return store.nextDueAt();
    case 'close':
      return store.close();
  }
}

port.on('message', (m: ThreadRequest) => {
  void run(m).then(
    (value) => port.postMessage({ id: m.id, ok: true, value, warnings: warnings.splice(0) } satisfies ThreadReply),
    (err: unknown) => {
      const e = err as { name?: unknown; message?: unknown; code?: unknown };
      const error = { name: String(e?.name ?? 'Error'), message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : null };
      port.postMessage({ id: m.id, ok: false, error, warnings: warnings.splice(0) } satisfies ThreadReply);
    },
  );
});
