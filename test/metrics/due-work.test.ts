import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { ServerMetrics } from '../../src/metrics/metrics.js';
import { timedStore } from '../../src/metrics/store-timing.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { parseExposition, samplesOf, valueOf } from '../support/prometheus.js';

/**
 * `punctual_due_unclaimed` is asked of the store at each scrape (docs/metrics.md). A scrape must not
 * fail because the store does: the series are then absent, the failed `dueCount` shows in the
 * store operation series, and everything else is still served. Real SQLite store, real registry.
 */
describe('due work at scrape time', () => {
  let dir: string;
  let inner: SqliteStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-due-'));
    inner = SqliteStore.open(join(dir, 'db.sqlite'));
    await inner.migrate();
  });
  afterEach(async () => {
    await inner.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports the store’s counts at the scrape’s instant, and no series (not a failed scrape) when the store is down', async () => {
    const metrics = new ServerMetrics({ version: 'test', role: 'all' });
    const store = timedStore(inner, metrics.observeStoreOperation);
    let now = 1_000;
    metrics.watchDueWork(store, () => now);
    for (const at of [500, 1_000, 1_500]) {
      await store.scheduleCreate({
        id: newId(),
        name: 'n',
        scheduledAt: at,
        endpoint: 'https://example.com/',
        data: {},
        tags: [],
        retry: { maxAttempts: 1, initialDelayMs: 100, maxDelayMs: 1000 },
        timeoutMs: 1000,
        now: 0,
      });
    }

    let e = parseExposition(await metrics.render());
    expect(valueOf(e, 'punctual_due_unclaimed', { source: 'schedule' })).toBe(2);
    expect(valueOf(e, 'punctual_due_unclaimed', { source: 'lease' })).toBe(0);
    now = 2_000;
    e = parseExposition(await metrics.render());
    expect(valueOf(e, 'punctual_due_unclaimed', { source: 'schedule' })).toBe(3);

    await inner.close();
    e = parseExposition(await metrics.render());
    expect(samplesOf(e, 'punctual_due_unclaimed')).toEqual([]);
    expect(e.types.get('punctual_due_unclaimed')).toBe('gauge');
    // The failure is timed as the query settles, within this scrape or by the next one.
    e = parseExposition(await metrics.render());
    expect(samplesOf(e, 'punctual_due_unclaimed')).toEqual([]);
    expect(valueOf(e, 'punctual_store_operation_duration_seconds_count', { operation: 'dueCount', result: 'error' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(e, 'punctual_build_info', { version: 'test', role: 'all' })).toBe(1);
    expect(samplesOf(e, 'process_cpu_user_seconds_total')).toHaveLength(1);
  });

  it('punctual_executions_retrying: the store’s Retrying executions at each scrape, absent when the store is down', async () => {
    const metrics = new ServerMetrics({ version: 'test', role: 'all' });
    metrics.watchRetrying(timedStore(inner, metrics.observeStoreOperation));
    let e = parseExposition(await metrics.render());
    expect(valueOf(e, 'punctual_executions_retrying', { job_type: 'schedule' })).toBe(0);
    expect(valueOf(e, 'punctual_executions_retrying', { job_type: 'cron' })).toBe(0);
    expect(e.types.get('punctual_executions_retrying')).toBe('gauge');
    for (const at of [1_000, 2_000]) {
      await inner.scheduleCreate({
        id: newId(), name: 'n', scheduledAt: at, endpoint: 'https://example.com/', data: {}, tags: [],
        retry: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 1000, delaysMs: [86_400_000] }, timeoutMs: 1000, now: 0,
      });
    }
    const { claimed } = await inner.claimDue({ now: 2_000, limit: 10, nodeId: 'n', leaseMs: 5_000, misfireThresholdMs: 60_000 });
    await inner.executionsFinish({
      nodeId: 'n',
      outcomes: claimed.map((c) => ({
        executionId: c.executionId, attempt: 1, status: 'Retrying' as const, nextAttemptAt: 2_000 + 86_400_000,
        startedAt: 2_000, durationMs: 5, statusCode: 503, error: 'HTTP 503', responseBody: null,
      })),
    });
    e = parseExposition(await metrics.render());
    expect(valueOf(e, 'punctual_executions_retrying', { job_type: 'schedule' })).toBe(2); // waiting a day: not due, still counted
    expect(valueOf(e, 'punctual_executions_retrying', { job_type: 'cron' })).toBe(0);
    await inner.close();
    e = parseExposition(await metrics.render());
    expect(samplesOf(e, 'punctual_executions_retrying')).toEqual([]);
  });

  it('keeps two servers’ series apart in one process (one registry each)', async () => {
    const a = new ServerMetrics({ version: 'test', role: 'all' });
    const b = new ServerMetrics({ version: 'test', role: 'api' });
    a.observeRequest({ method: 'GET', route: '/schedules', statusCode: 200, seconds: 0.002 });
    const ea = parseExposition(await a.render());
    const eb = parseExposition(await b.render());
    expect(valueOf(ea, 'punctual_http_request_duration_seconds_count', { method: 'GET', route: '/schedules', status_code: '200' })).toBe(1);
    expect(samplesOf(eb, 'punctual_http_request_duration_seconds_count')).toEqual([]);
    expect(samplesOf(eb, 'punctual_build_info')[0]?.labels.role).toBe('api');
  });
});
