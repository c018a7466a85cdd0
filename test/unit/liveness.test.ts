/**
 * NodeLiveness (src/dispatch/maintenance/liveness.ts) on a real SQLite store with an injected clock: it
 * registers, heartbeats, reaps other nodes, stops claiming when it lost touch with the store or
 * was taken for dead, and registers again. Rounds are run by hand (`runOnce`); nothing sleeps.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimLoop } from '../../src/dispatch/claim-loop.js';
import { DispatcherEvents } from '../../src/dispatch/events.js';
import { NodeLiveness } from '../../src/dispatch/maintenance/liveness.js';
import { newId } from '../../src/domain/ids.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.UTC(2030, 0, 1);
const TIMEOUT = 10_000;

describe('NodeLiveness', () => {
  let dir: string;
  let store: Store;
  let now: number;
  let liveness: NodeLiveness;
  const clock = { now: () => now };
  let log: string[];
  let registered: number;
  let released: number;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-liveness-'));
    await copyMigratedSqlite(join(dir, 'p.db'));
    store = await openStore(`file:${join(dir, 'p.db')}`);
    await store.migrate(); // nothing to do: the copy is migrated
    now = T0;
    log = [];
    registered = 0;
    released = 0;
    const record = (_obj: object, msg?: string) => void log.push(msg ?? '');
    liveness = new NodeLiveness({
      store,
      clock,
      logger: { info: record, warn: record, error: record },
      nodeId: 'me',
      role: 'all',
      heartbeatMs: 3_600_000, // rounds are run by hand
      timeoutMs: TIMEOUT,
      onRegistered: () => registered++,
      onReleased: () => released++,
    });
  });
  afterEach(async () => {
    await liveness.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const live = async () => (await store.nodesLive({ now, timeoutMs: TIMEOUT })).map((n) => n.nodeId);

  it('registers at start, claims only while its heartbeats reach the store, and leaves at stop', async () => {
    expect(liveness.mayClaim()).toBe(false);
    await liveness.start();
    expect([liveness.mayClaim(), registered, await live()]).toEqual([true, 1, ['me']]);
    now = T0 + TIMEOUT; // no heartbeat acknowledged for the whole timeout: it may have been taken for dead
    expect(liveness.mayClaim()).toBe(false);
    await liveness.runOnce();
    expect(liveness.mayClaim()).toBe(true);
    expect((await store.nodesLive({ now, timeoutMs: TIMEOUT }))[0]!.heartbeatAt).toBe(T0 + TIMEOUT);
    await liveness.stop();
    expect([liveness.mayClaim(), await live()]).toEqual([false, []]);
  });

  it('with claimAheadMs, stops claiming that much before the timeout (work claimed ahead is due before it can be reaped)', async () => {
    const ahead = new NodeLiveness({
      store, clock, logger: { info() {}, warn() {}, error() {} }, nodeId: 'ahead', role: 'all',
      heartbeatMs: 3_600_000, timeoutMs: TIMEOUT, claimAheadMs: 100,
    });
    await ahead.start();
    now = T0 + TIMEOUT - 101;
    expect(ahead.mayClaim()).toBe(true);
    now = T0 + TIMEOUT - 100;
    expect(ahead.mayClaim()).toBe(false);
    expect(liveness.mayClaim()).toBe(false); // not started
    await ahead.stop();
  });

  it('taken for dead by another node, it learns so at its next heartbeat and registers again', async () => {
    await liveness.start();
    now = T0 + 20_000;
    expect((await store.nodesReap({ now, timeoutMs: TIMEOUT })).nodeIds).toEqual(['me']); // another node's round
    await liveness.runOnce();
    expect(log).toContain('liveness: this node was taken for dead (its leases were released); registering again');
    expect([liveness.mayClaim(), registered, await live()]).toEqual([true, 2, ['me']]);
    expect((await store.nodesLive({ now, timeoutMs: TIMEOUT }))[0]!.startedAt).toBe(T0 + 20_000);
  });

  it('releases the leases of a dead node, not of a slow one, and says so', async () => {
    for (const node of ['dead', 'slow']) {
      await store.nodeRegister({ nodeId: node, role: 'dispatcher', now: T0 });
      await store.scheduleCreate({
        id: newId(),
        name: node,
        scheduledAt: T0,
        endpoint: 'https://example.com/',
        data: {},
        tags: [],
        retry: { maxAttempts: 3, initialDelayMs: 1_000, maxDelayMs: 60_000 },
        timeoutMs: 60_000,
        now: T0 - 1,
      });
      await store.claimDue({ now: T0, limit: 1, nodeId: node, leaseMs: 5_000, misfireThresholdMs: 60_000 });
    }
    await store.nodeHeartbeat({ nodeId: 'slow', now: T0 + 9_000 }); // late, but within the timeout at T0 + 15 s
    now = T0 + 15_000;
    await liveness.start();
    expect(released).toBe(1);
    expect(log).toContain('liveness: dead nodes removed; their leases are due again');
    expect((await store.dueCount({ now, limit: 10 })).lease).toBe(1);
    expect(await live()).toEqual(['slow', 'me']);
  });

  it('the claim loop claims nothing while mayClaim is false', async () => {
    await store.scheduleCreate({
      id: newId(),
      name: 's',
      scheduledAt: T0,
      endpoint: 'https://example.com/',
      data: {},
      tags: [],
      retry: { maxAttempts: 3, initialDelayMs: 1_000, maxDelayMs: 60_000 },
      timeoutMs: 1_000,
      now: T0 - 1,
    });
    let gated = 0;
    let onGated = () => {};
    const skipped = new Promise<void>((resolve) => (onGated = resolve));
    const loop = new ClaimLoop({
      store,
      clock,
      logger: {
        debug: (_o: object, msg?: string) => {
          if (!msg?.startsWith('dispatch: not claiming')) return;
          gated++;
          onGated();
        },
        info() {},
        warn() {},
        error() {},
      },
      events: new DispatcherEvents(),
      sink: { callsInFlight: 0, queued: 0, push: () => expect.unreachable('claimed while not registered') },
      nodeId: 'me',
      misfireThresholdMs: 60_000,
      maxInFlight: 10,
      batchSize: 10,
      maxSleepMs: 5_000,
      mayClaim: () => liveness.mayClaim(),
    });
    loop.start();
    await skipped;
    await loop.stop();
    expect(gated).toBe(1);
    expect((await store.dueCount({ now, limit: 10 })).schedule).toBe(1);
  });
});
