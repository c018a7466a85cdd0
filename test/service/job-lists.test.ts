/**
 * The list use cases' own checks, for callers other than the HTTP layer (whose
 * schemas refuse the same values first; test/http/lists.test.ts): every faulty parameter named
 * at once, with the prefix given, before the store is asked anything.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/domain/errors.js';
import { listCronJobs } from '../../src/service/cron-jobs.js';
import { LIST_LIMIT_DEFAULT, listParams } from '../../src/service/job-lists.js';
import { DEFAULT_RULE_CONTEXT } from '../../src/service/rules.js';
import { SCHEDULE_STATUSES } from '../../src/domain/enums.js';
import { listSchedules } from '../../src/service/schedules.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

/** The error `fn` throws (or rejects with), or null. */
async function errorOf(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
    return null;
  } catch (err) {
    return err;
  }
}

describe('job list input', () => {
  let dir: string;
  let store: Store;
  const ctx = () => ({ store, clock: { now: () => T0 }, wake: () => undefined });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-lists-'));
    store = await openStore(`file:${join(dir, 'p.db')}`);
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('defaults: 100 a page, no filter, the first page', () => {
    expect(listParams({}, SCHEDULE_STATUSES, DEFAULT_RULE_CONTEXT)).toEqual({
      limit: LIST_LIMIT_DEFAULT,
      cursor: null,
      status: null,
      name: null,
      key: null,
      flowControlKey: null,
      tags: [],
    });
    expect(LIST_LIMIT_DEFAULT).toBe(100);
  });

  it('names every faulty parameter at once, with the prefix', async () => {
    const err = await errorOf(() =>
      listSchedules(
        ctx(),
        { limit: 1001, status: 'Paused' as never, name: '', tag: ['ok', 'x'.repeat(65)] },
        '/query',
      ),
    );
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).errors).toEqual([
      { path: '/query/limit', message: 'must be a whole number from 1 to 1000' },
      { path: '/query/status', message: 'must be one of Pending, Running, Succeeded, Failed' },
      { path: '/query/name', message: 'must not be empty' },
      { path: '/query/tag/1', message: 'must be at most 64 characters' },
    ]);
  });

  it.each([0, 1.5, -3, Number.NaN, 1_001])('limit %s is refused', async (limit) => {
    const err = await errorOf(() => listCronJobs(ctx(), { limit }));
    expect((err as InvalidInputError).errors).toEqual([{ path: '/limit', message: 'must be a whole number from 1 to 1000' }]);
  });

  it('more tags than a schedule may carry are refused; as many are fine', async () => {
    const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
    const err = await errorOf(() => listSchedules(ctx(), { tag: tags(33) }));
    expect((err as InvalidInputError).errors).toEqual([{ path: '/tag', message: 'must have at most 32 tags' }]);
    expect(await listSchedules(ctx(), { tag: tags(32) })).toEqual({ schedules: [], nextCursor: null });
  });

  it('a name longer than any stored name, or with U+0000, is refused', async () => {
    const long = await errorOf(() => listCronJobs(ctx(), { name: 'n'.repeat(257) }));
    expect((long as InvalidInputError).errors).toEqual([{ path: '/name', message: 'must be at most 256 characters' }]);
    const nul = await errorOf(() => listCronJobs(ctx(), { name: 'a\u0000' }));
    expect((nul as InvalidInputError).errors[0]?.path).toBe('/name');
    expect(await listCronJobs(ctx(), { name: ' ', limit: 1_000 })).toEqual({ cronJobs: [], nextCursor: null });
  });

  it("a cursor is checked by the store, on '/query/cursor'", async () => {
    const err = await errorOf(() => listSchedules(ctx(), { cursor: 'nope!' }, '/query'));
    expect((err as InvalidInputError).errors).toEqual([{ path: '/query/cursor', message: 'must be a nextCursor returned by this list' }]);
  });
});
