/**
 * The flow-control series (docs/metrics.md): the waiting and in-flight gauges per key asked of
 * the store at each scrape (absent when the store is down), the wait histogram and the hold
 * counter fed by delivered attempts. Real SQLite store, real registry.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { flowControlDeliveries, watchFlowControlKeys } from '../../src/metrics/flow-control.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { parseExposition, samplesOf, valueOf } from '../support/prometheus.js';

describe('flow-control metrics', () => {
  let dir: string;
  let store: SqliteStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-fc-metrics-'));
    store = SqliteStore.open(join(dir, 'db.sqlite'));
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts each key’s waiting calls and calls in flight at each scrape; absent when the store is down', async () => {
    const registry = new Registry();
    watchFlowControlKeys(registry, store, () => 2_000);
    await store.flowControlKeyPut({ key: 'api', parallelism: 1, rate: null, periodMs: 1_000, paused: false, now: 0 });
    for (let i = 0; i < 3; i++) {
      await store.scheduleCreate({
        id: newId(), name: 'n', scheduledAt: 1_000 + i, endpoint: 'https://example.com/', data: {}, tags: [],
        retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1000 }, timeoutMs: 1000, now: 0, flowControlKey: 'api',
      });
    }
    await store.claimDue({ now: 2_000, limit: 10, nodeId: 'n', leaseMs: 5_000, misfireThresholdMs: 60_000 });
    let e = parseExposition(await registry.metrics());
    expect(valueOf(e, 'punctual_flow_control_waiting', { key: 'api' })).toBe(2);
    expect(valueOf(e, 'punctual_flow_control_in_flight', { key: 'api' })).toBe(1);
    await store.close();
    e = parseExposition(await registry.metrics());
    expect(samplesOf(e, 'punctual_flow_control_waiting')).toEqual([]);
    expect(e.types.get('punctual_flow_control_in_flight')).toBe('gauge');
  });

  it('observes the waits of keyed attempts and counts the holds', async () => {
    const registry = new Registry();
    const delivered = flowControlDeliveries(registry);
    const claim = { waitedMs: 1_500, flowControlKey: 'api' } as Parameters<typeof delivered>[0];
    delivered(claim, { flowControlHoldUntil: 9_000 } as Parameters<typeof delivered>[1]);
    delivered({} as Parameters<typeof delivered>[0], {} as Parameters<typeof delivered>[1]);
    const e = parseExposition(await registry.metrics());
    expect(valueOf(e, 'punctual_flow_control_wait_seconds_count')).toBe(1);
    expect(valueOf(e, 'punctual_flow_control_wait_seconds_sum')).toBe(1.5);
    expect(valueOf(e, 'punctual_flow_control_holds_total')).toBe(1);
  });
});
