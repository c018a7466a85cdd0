/**
 * The outcome writer on a real SQLite store: outcomes that come together are written in one
 * `executionsFinish`, and a write the store refuses is kept and tried again. The store's
 * operations are counted by the same timing decorator the server uses.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DispatcherEvents, type DeliveredEvent } from '../../src/dispatch/events.js';
import { FLUSH_WINDOW_MS, OutcomeWriter, type OutcomeWriterOptions } from '../../src/dispatch/call/outcome-writer.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { newId } from '../../src/domain/ids.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { timedStore } from '../../src/metrics/store-timing.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { silentLogger } from '../support/dispatcher.js';
import { captureLogger } from '../support/logger.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.UTC(2030, 0, 1);

describe('OutcomeWriter', () => {
  let dir: string;
  let raw: Store;
  let store: Store;
  let writes: { op: string; ok: boolean }[];
  const events = new DispatcherEvents();
  const retries: number[] = [];
  let running = true;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-writer-'));
    await copyMigratedSqlite(join(dir, 'p.db'));
    raw = await openStore(`file:${join(dir, 'p.db')}`);
    await raw.migrate(); // nothing to do: the copy is migrated
    writes = [];
    store = timedStore(raw, (op, _s, ok) => {
      if (op === 'executionsFinish') writes.push({ op, ok });
    });
    retries.length = 0;
    running = true;
  });
  afterEach(async () => {
    events.removeAllListeners();
    await raw.close();
    await rm(dir, { recursive: true, force: true });
  });

  const writer = (logger: OutcomeWriterOptions['logger'] = silentLogger) =>
    new OutcomeWriter({ store, nodeId: 'node-a', logger, events, onRetry: (at) => retries.push(at), running: () => running, retryMs: 5 });

  /** Claims `n` executions due at T0 for node-a. */
  const claims = async (n: number): Promise<ClaimedExecution[]> => {
    for (let i = 0; i < n; i++) {
      await raw.scheduleCreate({
        id: newId(), name: `s${i}`, scheduledAt: T0, endpoint: 'https://example.com/', data: {}, tags: [],
        retry: DEFAULT_RETRY_POLICY, timeoutMs: 1_000, now: T0 - 60_000,
      });
    }
    return raw.claimDue({ now: T0, limit: n, nodeId: 'node-a', leaseMs: 60_000, misfireThresholdMs: 60_000 }).then((r) => r.claimed);
  };
  const delivered = (claim: ClaimedExecution, status: 'Succeeded' | 'Retrying' | 'Failed'): DeliveredEvent => ({
    claim,
    outcome: {
      executionId: claim.executionId, attempt: claim.attempt, status, nextAttemptAt: status === 'Retrying' ? T0 + 5_000 : null,
      startedAt: T0, durationMs: 3, statusCode: status === 'Succeeded' ? 200 : 503, error: status === 'Succeeded' ? null : 'HTTP 503',
      responseBody: status === 'Succeeded' ? null : 'response-body-Kx81', method: 'POST', url: claim.endpoint,
    },
  });
  /** Resolves after `n` dispatch:delivered events, with their outcomes' execution ids. */
  const deliveredEvents = (n: number): Promise<string[]> =>
    new Promise((resolve) => {
      const ids: string[] = [];
      const listener = (e: DeliveredEvent) => {
        ids.push(e.outcome.executionId);
        if (ids.length < n) return;
        events.off('dispatch:delivered', listener);
        resolve(ids);
      };
      events.on('dispatch:delivered', listener);
    });

  it('writes outcomes that come together in one executionsFinish, and tells of each retry', async () => {
    const [a, b, c] = await claims(3);
    const w = writer();
    const done = deliveredEvents(3);
    w.add(delivered(a!, 'Succeeded'));
    w.add(delivered(b!, 'Retrying'));
    w.add(delivered(c!, 'Succeeded'));
    expect(w.pending).toBe(3);
    expect(await done).toEqual([a!.executionId, b!.executionId, c!.executionId]);
    expect(writes).toEqual([{ op: 'executionsFinish', ok: true }]);
    expect(retries).toEqual([T0 + 5_000]);
    expect((await raw.executionGet({ id: b!.executionId }))?.status).toBe('Retrying');
  });

  it("writes a keyed call's outcome at once, without waiting for the window; outcomes added with it share the write", async () => {
    const [a, b, c, d] = await claims(4);
    const w = writer();
    const first = deliveredEvents(1);
    const keyed = (d: DeliveredEvent): DeliveredEvent => ({ ...d, outcome: { ...d.outcome, flowControlKey: 'api' } });
    const started = performance.now();
    w.add(keyed(delivered(a!, 'Succeeded')));
    w.add(delivered(b!, 'Succeeded'));
    expect(await first).toEqual([a!.executionId]);
    expect(performance.now() - started).toBeLessThan(FLUSH_WINDOW_MS);
    expect(writes).toEqual([{ op: 'executionsFinish', ok: true }]);
    // An unkeyed outcome alone waits for the window; a keyed one that comes meanwhile ends the wait.
    const next = deliveredEvents(2);
    w.add(delivered(c!, 'Succeeded'));
    await new Promise((r) => setTimeout(r, 2));
    expect(writes).toHaveLength(1);
    w.add(keyed(delivered(d!, 'Succeeded')));
    const at = performance.now();
    await next;
    expect(performance.now() - at).toBeLessThan(FLUSH_WINDOW_MS);
    expect(writes).toHaveLength(2);
  });

  it('logs each execution that ends Failed at warn, once written: ids, status code, error; nothing of the request', async () => {
    const [a, b, c] = await claims(3);
    const log = captureLogger({ level: 'info', base: null, timestamp: false });
    const w = writer(log.logger);
    const done = deliveredEvents(3);
    w.add(delivered(a!, 'Succeeded'));
    w.add(delivered(b!, 'Retrying'));
    w.add(delivered(c!, 'Failed'));
    await done;
    expect((await raw.executionGet({ id: c!.executionId }))?.status).toBe('Failed');
    expect(log.records()).toEqual([
      {
        level: 40,
        msg: 'dispatch: execution failed',
        jobType: 'schedule',
        jobId: c!.jobId,
        executionId: c!.executionId,
        attempt: 1,
        statusCode: 503,
        error: 'HTTP 503',
        nodeId: 'node-a',
      },
    ]);
  });

  it('keeps the outcomes of a refused write and writes them once the store takes them', async () => {
    const [a] = await claims(1);
    const db = (raw as unknown as { db: Database.Database }).db;
    db.pragma('query_only = ON'); // the store refuses every write
    const w = writer();
    const failed = once(events, 'dispatch:error');
    const done = deliveredEvents(1);
    w.add(delivered(a!, 'Succeeded'));
    await failed;
    db.pragma('query_only = OFF');
    expect(await done).toEqual([a!.executionId]);
    expect(writes[0]).toEqual({ op: 'executionsFinish', ok: false });
    expect(writes.at(-1)).toEqual({ op: 'executionsFinish', ok: true });
    expect((await raw.executionGet({ id: a!.executionId }))?.status).toBe('Succeeded');
  });

  it('drain writes at once what waits, and does not retry once stopped', async () => {
    const [a, b] = await claims(2);
    const w = writer();
    w.add(delivered(a!, 'Succeeded'));
    await w.drain();
    expect(writes).toEqual([{ op: 'executionsFinish', ok: true }]);
    const db = (raw as unknown as { db: Database.Database }).db;
    db.pragma('query_only = ON');
    running = false;
    w.add(delivered(b!, 'Succeeded'));
    await w.drain();
    expect(w.pending).toBe(1); // kept, not retried: its lease expires
    db.pragma('query_only = OFF');
  });
});
