import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../src/service/api-keys.js';
import { LastUsedRecorder } from '../../src/service/last-used.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const clock = { now: () => T0 };
let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punctual-svc-lastused-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
});

afterEach(async () => {
  vi.useRealTimers();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const lastUsed = async (id: string) => (await store.apiKeyGet({ id }))?.lastUsed;

describe('LastUsedRecorder', () => {
  it('writes nothing at record time and everything within one interval (≤ 1 s)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const a = (await createApiKey(store, clock, { name: 'a' })).apiKey;
    const b = (await createApiKey(store, clock, { name: 'b' })).apiKey;
    const recorder = new LastUsedRecorder(store);
    recorder.record(a.id, T0 + 10);
    recorder.record(b.id, T0 + 20);
    recorder.record(a.id, T0 + 30);
    recorder.record(a.id, T0 + 25); // older than what is held: ignored
    expect(await lastUsed(a.id)).toBeNull();
    expect(recorder.pendingFor(a.id)).toBe(T0 + 30);

    await vi.advanceTimersByTimeAsync(999);
    expect(await lastUsed(a.id)).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    await recorder.flush(); // waits for the timer's write to finish
    expect(await lastUsed(a.id)).toBe(T0 + 30);
    expect(await lastUsed(b.id)).toBe(T0 + 20);
    expect(recorder.pendingFor(a.id)).toBeUndefined();
    await recorder.close();
  });

  it('never moves lastUsed backwards', async () => {
    const a = (await createApiKey(store, clock, { name: 'a' })).apiKey;
    const recorder = new LastUsedRecorder(store);
    recorder.record(a.id, T0 + 100);
    await recorder.flush();
    recorder.record(a.id, T0 + 50);
    await recorder.flush();
    expect(await lastUsed(a.id)).toBe(T0 + 100);
    await recorder.close();
  });

  it('writes what is left on close, then ignores new uses', async () => {
    const a = (await createApiKey(store, clock, { name: 'a' })).apiKey;
    const recorder = new LastUsedRecorder(store);
    recorder.record(a.id, T0 + 1);
    await recorder.close();
    expect(await lastUsed(a.id)).toBe(T0 + 1);
    recorder.record(a.id, T0 + 2);
    await recorder.flush();
    expect(await lastUsed(a.id)).toBe(T0 + 1);
  });

  it('keeps the uses when a write fails and reports the error', async () => {
    const a = (await createApiKey(store, clock, { name: 'a' })).apiKey;
    const path = join(dir, 'test.db');
    const errors: unknown[] = [];
    await store.close(); // writes now fail
    const closed = store;
    const recorder = new LastUsedRecorder(closed, { onError: (e) => errors.push(e) });
    recorder.record(a.id, T0 + 7);
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(recorder.pendingFor(a.id)).toBe(T0 + 7);
    await recorder.close();
    store = await openStore('file:' + path); // for afterEach
    expect(await lastUsed(a.id)).toBeNull();
  });
});
