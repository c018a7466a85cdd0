/**
 * The claim loop on a real SQLite store, with an injected clock: what it claims, how much per
 * claim, and when it waits for room. Each test awaits the loop's events; none sleeps.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimLoop, FIRST_CLAIM_MAX, LEASE_MARGIN_MS, type ClaimSink } from '../../src/dispatch/claim-loop.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { DispatcherEvents } from '../../src/dispatch/events.js';
import { newId } from '../../src/domain/ids.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { silentLogger } from '../support/dispatcher.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.UTC(2030, 0, 1);

/** A sink that holds every claimed call (none ends unless `end` says so). */
class HoldingSink implements ClaimSink {
  readonly batches: ClaimedExecution[][] = [];
  held = 0;
  get callsInFlight() {
    return this.held;
  }
  get queued() {
    return 0;
  }
  push(claims: ClaimedExecution[]) {
    this.batches.push(claims);
    this.held += claims.length;
  }
}

describe('ClaimLoop', () => {
  let dir: string;
  let store: Store;
  let now: number;
  let loop: ClaimLoop | null = null;
  const clock = { now: () => now };
  const events = new DispatcherEvents();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-loop-'));
    await copyMigratedSqlite(join(dir, 'p.db'));
    store = await openStore(`file:${join(dir, 'p.db')}`);
    await store.migrate(); // nothing to do: the copy is migrated
    now = T0;
  });
  afterEach(async () => {
    await loop?.stop();
    loop = null;
    events.removeAllListeners();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const schedules = async (n: number, scheduledAt: number) => {
    for (let i = 0; i < n; i++) {
      await store.scheduleCreate({
        id: newId(), name: `s${i}`, scheduledAt, endpoint: 'https://example.com/', data: {}, tags: [],
        retry: DEFAULT_RETRY_POLICY, timeoutMs: 1_000, now: T0 - 60_000,
      });
    }
  };
  const start = (sink: ClaimSink, o: { maxInFlight?: number; batchSize?: number; aheadMs?: number } = {}) => {
    loop = new ClaimLoop({
      store, clock, logger: silentLogger, events, sink, nodeId: 'node-a', misfireThresholdMs: 60_000,
      maxInFlight: o.maxInFlight ?? 512, batchSize: o.batchSize ?? 256, maxSleepMs: 5_000,
      ...(o.aheadMs !== undefined && { aheadMs: o.aheadMs }),
    });
    loop.start();
    return loop;
  };
  /** Resolves after `n` claims that returned work. */
  const claimed = (n: number): Promise<void> =>
    new Promise((resolve) => {
      let seen = 0;
      const listener = () => {
        if (++seen < n) return;
        events.off('dispatch:claimed', listener);
        resolve();
      };
      events.on('dispatch:claimed', listener);
    });

  it(`claims what is due at the clock's time: first at most ${FIRST_CLAIM_MAX}, then full batches`, async () => {
    await schedules(100, T0);
    await schedules(1, T0 + 1); // due a millisecond after the clock: not claimed
    const sink = new HoldingSink();
    start(sink);
    await claimed(2);
    expect(sink.batches.map((b) => b.length)).toEqual([FIRST_CLAIM_MAX, 100 - FIRST_CLAIM_MAX]);
    expect(sink.batches.flat().every((c) => c.scheduledFor === T0 && c.attempt === 1)).toBe(true);
    expect(loop!.clockOffsetMs).toBe(0); // SQLite has no clock of its own: the injected one decides
  });

  it('claims work that fell due once the clock reaches it and the loop is woken', async () => {
    await schedules(3, T0 + 60_000);
    const sink = new HoldingSink();
    start(sink);
    now = T0 + 60_000;
    const got = claimed(1);
    loop!.wake(T0 + 60_000);
    await got;
    expect(sink.batches.flat()).toHaveLength(3);
  });

  it('with aheadMs: claims work due within it, marked notBefore and leased aheadMs longer; later work at its next look', async () => {
    await schedules(2, T0 + 50);
    await schedules(1, T0 + 170);
    const sink = new HoldingSink();
    start(sink, { aheadMs: 100 });
    await claimed(1);
    expect(sink.batches.flat().map((c) => [c.notBefore, c.leaseExpiresAt])).toEqual([
      [T0 + 50, T0 + 1_000 + LEASE_MARGIN_MS + 100],
      [T0 + 50, T0 + 1_000 + LEASE_MARGIN_MS + 100],
    ]);
    // The next look is armed aheadMs / 2 before T0 + 170 (store time): with the clock at T0 + 70,
    // it claims the last one, due within the look ahead.
    now = T0 + 70;
    await claimed(1);
    expect(sink.batches.map((b) => b.map((c) => c.notBefore))).toEqual([[T0 + 50, T0 + 50], [T0 + 170]]);
  });

  it('stops at the cap, and claims again, a full batch, once refillMin places are free', async () => {
    await schedules(40, T0);
    const sink = new HoldingSink();
    start(sink, { maxInFlight: 16 }); // refillMin = 4
    await claimed(1);
    expect(sink.batches.map((b) => b.length)).toEqual([16]);
    sink.held -= 3;
    loop!.callEnded(); // three places: not enough
    sink.held -= 1;
    const more = claimed(1);
    loop!.callEnded();
    await more;
    expect(sink.batches.map((b) => b.length)).toEqual([16, 4]);
  });

  it('reports a store that fails with dispatch:error, and keeps running', async () => {
    const sink = new HoldingSink();
    const failed = once(events, 'dispatch:error');
    await store.close();
    start(sink);
    const [err] = await failed;
    expect((err as Error).name).toBe('StoreUnavailableError');
    expect(loop!.running).toBe(true);
  });
});
