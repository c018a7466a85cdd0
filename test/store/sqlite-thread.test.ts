import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { SqliteDispatchThread } from '../../src/store/sqlite/dispatch-thread.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ClaimDueParams } from '../../src/store/store.js';

/**
 * The dispatcher's SQLite operations on a thread of their own (src/store/sqlite/dispatch-thread.ts), on
 * a real database file: what the thread writes, the main connection reads, and the other way round.
 */
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('SQLite store with the dispatcher thread', () => {
  let dir: string;
  let path: string;
  let main: SqliteStore;
  let thread: SqliteDispatchThread;
  const warnings: { obj: object; msg: string | undefined }[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-thread-'));
    path = join(dir, 'punctual.db');
    main = SqliteStore.open(path);
    await main.migrate();
    warnings.length = 0;
    thread = new SqliteDispatchThread(main, path, { logger: { warn: (obj, msg) => warnings.push({ obj, msg }) } });
  });
  afterEach(async () => {
    await thread.close();
    await main.close();
    await rm(dir, { recursive: true, force: true });
  });

  const claim = (now: number, o: Partial<ClaimDueParams> = {}) =>
    thread.claimDue({ now, limit: 100, nodeId: 'node-a', leaseMs: 60_000, misfireThresholdMs: 60_000, ...o }).then((r) => r.claimed);
  const schedule = (scheduledAt: number) =>
    main.scheduleCreate({
      id: newId(),
      name: 'job',
      scheduledAt,
      endpoint: 'https://example.com/hook',
      data: { n: 1 },
      tags: [],
      retry: DEFAULT_RETRY_POLICY,
      timeoutMs: 30_000,
      now: T0 - 60_000,
    });

  it('claims on the thread what the main connection created, and the main connection reads the outcome the thread wrote', async () => {
    const s = await schedule(T0);
    expect(await thread.nextDueAt()).toBe(T0);
    expect(await claim(T0 - 1)).toEqual([]);
    const [c, ...rest] = await claim(T0);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({ jobType: 'schedule', jobId: s.id, scheduledFor: T0, attempt: 1, data: { n: 1 } });
    expect((await main.scheduleGet({ id: s.id }))?.status).toBe('Running');

    await thread.executionsFinish({
      nodeId: 'node-a',
      outcomes: [
        { executionId: c!.executionId, attempt: 1, status: 'Succeeded', nextAttemptAt: null, startedAt: T0 + 2, durationMs: 5, statusCode: 200, error: null, responseBody: 'ok' },
      ],
    });
    expect((await main.scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
    expect(await main.executionGet({ id: c!.executionId })).toMatchObject({ status: 'Succeeded', attempts: [{ number: 1, statusCode: 200 }] });
    expect(await thread.nextDueAt()).toBeNull();
  });

  it("claims cron occurrences on the thread with the store's own cron engine, in the job's time zone", async () => {
    const job = await main.cronCreate({
      id: newId(),
      name: 'hourly',
      expression: '0 * * * *',
      timezone: 'Asia/Kolkata', // UTC+05:30: the next hour there is at :30 UTC
      endpoint: 'https://example.com/hook',
      data: {},
      retry: DEFAULT_RETRY_POLICY,
      timeoutMs: 30_000,
      misfire: 'once',
      overlap: 'allow',
      nextInvocation: T0 + 30 * 60_000,
      now: T0,
    });
    const [c] = await claim(T0 + 30 * 60_000);
    expect(c).toMatchObject({ jobType: 'cron', jobId: job.id, scheduledFor: T0 + 30 * 60_000 });
    expect((await main.cronGet({ id: job.id }))?.nextInvocation).toBe(T0 + 90 * 60_000);
  });

  it("passes the thread store's warnings to the logger (the main connection here has none): a cron job paused by the claim", async () => {
    const job = await main.cronCreate({
      id: newId(), name: 'broken', expression: 'not a cron expression', timezone: null, endpoint: 'https://example.com/c', data: {},
      retry: DEFAULT_RETRY_POLICY, timeoutMs: 30_000, misfire: 'once', overlap: 'allow', nextInvocation: T0, now: T0 - 60_000,
    });
    expect(await claim(T0)).toHaveLength(1);
    expect((await main.cronGet({ id: job.id }))?.status).toBe('Paused');
    expect(warnings).toEqual([{ obj: { cronJobId: job.id, nextOccurrence: null }, msg: expect.stringContaining('paused') }]);
  });

  it('hands back leases on the thread, so the next claim takes the execution again as the same execution', async () => {
    await schedule(T0);
    const [c] = await claim(T0);
    await thread.leasesRelease({ nodeId: 'node-a', executionIds: [c!.executionId], now: T0 + 10 });
    const [again] = await claim(T0 + 10);
    expect(again).toMatchObject({ executionId: c!.executionId, attempt: 2 });
  });

  it("fails the thread's operations with StoreUnavailableError once it is closed", async () => {
    await thread.close();
    await expect(thread.nextDueAt()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(claim(T0)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(thread.close()).resolves.toBeUndefined();
    // The main connection is its owner's: still open.
    expect(await main.nextDueAt()).toBeNull();
  });

  it('runs the other dispatch operations on the main connection: now, onWork, executionsPrune, settingGetOrCreate', async () => {
    expect(await thread.now()).toBeNull();
    const unsubscribe = thread.onWork(() => undefined);
    expect(typeof unsubscribe).toBe('function');
    unsubscribe();
    const value = await thread.settingGetOrCreate({ key: 'k', create: () => 'v1' });
    expect(value).toBe('v1');
    expect(await main.settingGetOrCreate({ key: 'k', create: () => 'v2' })).toBe('v1');
    await schedule(T0);
    const [c] = await claim(T0);
    await thread.executionsFinish({
      nodeId: 'node-a',
      outcomes: [
        { executionId: c!.executionId, attempt: 1, status: 'Failed', nextAttemptAt: null, startedAt: T0, durationMs: 1, statusCode: 400, error: 'no', responseBody: null },
      ],
    });
    expect(await thread.executionsPrune({ before: Date.now() + 60_000, limit: 10 })).toBe(1);
    expect(await main.executionGet({ id: c!.executionId })).toBeNull();
  });
});
