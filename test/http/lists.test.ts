/**
 * `GET /schedules` and `GET /cron` with paging and filters (docs/interface.md, "Lists"), over a
 * real socket, against every store: the parameters, the answer's shape, and a 400 naming each bad
 * parameter. The store's side (order, every row once, bounded scans) is in
 * test/store/conformance/lists.ts.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { STORES, type TestDatabase } from '../support/stores.js';
import { manualClock } from './harness.js';

type Json = Record<string, unknown>;
type Problem = { status: number; errors?: { path: string; message: string }[] };

describe.each(STORES)('job lists over a real socket ($name)', (storeUnderTest) => {
  let db: TestDatabase;
  let store: Store;
  let app: FastifyInstance;
  let base: string;
  let token: string;
  const clock = manualClock();
  /** Names and tags of the 25 schedules, oldest first; statuses are all Pending. */
  const made: { id: string; name: string; tags: string[] }[] = [];
  /** The 5 cron jobs, oldest first; the 2nd and 4th Paused. */
  const crons: { id: string; name: string | null }[] = [];

  const get = async (path: string): Promise<{ status: number; type: string | null; body: Json }> => {
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Json };
  };
  const post = async (path: string, body: unknown, method = 'POST') => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (await res.json()) as Json;
  };
  /** The ids of every page of `path` (a query string may follow), `limit` at a time. */
  const walk = async (path: string, key: 'schedules' | 'cronJobs', limit: number) => {
    const sizes: number[] = [];
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const { status, body } = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(status).toBe(200);
      const items = body[key] as { id: string }[];
      expect(body.size).toBe(items.length);
      sizes.push(items.length);
      ids.push(...items.map((x) => x.id));
      cursor = body.nextCursor as string | null;
    } while (cursor !== null);
    return { sizes, ids };
  };
  const expect400 = async (path: string, errors: { path: string; message?: string | RegExp }[]) => {
    const { status, type, body } = await get(path);
    expect(status, path).toBe(400);
    expect(type).toMatch(/^application\/problem\+json/);
    const listed = (body as Problem).errors ?? [];
    expect(listed.map((e) => e.path).sort(), path).toEqual(errors.map((e) => e.path).sort());
    for (const e of errors) {
      if (e.message === undefined) continue;
      const found = listed.find((l) => l.path === e.path)!;
      if (typeof e.message === 'string') expect(found.message, path).toBe(e.message);
      else expect(found.message, path).toMatch(e.message);
    }
  };

  beforeAll(async () => {
    db = await storeUnderTest.create();
    store = await openStore(db.url);
    await store.migrate();
    app = await buildApp({ store, clock });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    base = `http://127.0.0.1:${address.port}`;
    token = (await createApiKey(store, clock, { name: 'lists' })).token;
    for (let i = 0; i < 25; i++) {
      clock.t += 1000;
      const name = i % 5 === 0 ? `Billing run ${i}` : `report ${i}`;
      const tags = [...(i % 2 === 0 ? ['even'] : []), ...(i % 3 === 0 ? ['three'] : []), 'all'];
      const s = await post('/schedules', { name, tags, scheduledAt: '2099-01-01T00:00:00Z', endpoint: 'https://example.com/h' });
      made.push({ id: s.id as string, name, tags });
    }
    for (let i = 0; i < 5; i++) {
      clock.t += 1000;
      const name = i === 2 ? null : `nightly ${i}`;
      const c = await post('/cron', { expression: '0 3 * * *', name, endpoint: 'https://example.com/c' });
      if (i % 2 === 1) await post(`/cron/${c.id as string}`, { status: 'Paused' }, 'PATCH');
      crons.push({ id: c.id as string, name });
    }
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.drop();
  });

  describe('paging', () => {
    it('keeps the list shape (size and items), adds nextCursor: one page of everything by default (100)', async () => {
      const { status, body } = await get('/schedules');
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(['nextCursor', 'schedules', 'size']);
      expect(body.size).toBe(25);
      expect((body.schedules as { id: string }[]).map((s) => s.id)).toEqual(made.map((s) => s.id));
      expect(body.nextCursor).toBeNull();
      const cron = await get('/cron');
      expect(Object.keys(cron.body).sort()).toEqual(['cronJobs', 'nextCursor', 'size']);
      expect(cron.body.size).toBe(5);
    });

    it('pages with limit and cursor: oldest first, every schedule exactly once, null after the last', async () => {
      const { sizes, ids } = await walk('/schedules', 'schedules', 7);
      expect(sizes).toEqual([7, 7, 7, 4]);
      expect(ids).toEqual(made.map((s) => s.id));
      expect((await walk('/schedules', 'schedules', 1000)).sizes).toEqual([25]);
      expect((await walk('/schedules', 'schedules', 1)).ids).toEqual(made.map((s) => s.id));
      const cron = await walk('/cron', 'cronJobs', 2);
      expect(cron.sizes).toEqual([2, 2, 1]);
      expect(cron.ids).toEqual(crons.map((c) => c.id));
    });
  });

  describe('filters', () => {
    const expected = (keep: (s: (typeof made)[number]) => boolean) => made.filter(keep).map((s) => s.id);

    it('status, one tag, several tags (all must match), name, and all of them together', async () => {
      expect((await walk('/schedules?status=Pending', 'schedules', 10)).ids).toEqual(made.map((s) => s.id));
      expect((await walk('/schedules?status=Failed', 'schedules', 10)).ids).toEqual([]);
      expect((await walk('/schedules?tag=even', 'schedules', 4)).ids).toEqual(expected((s) => s.tags.includes('even')));
      expect((await walk('/schedules?tag=three&tag=even', 'schedules', 2)).ids).toEqual(
        expected((s) => s.tags.includes('even') && s.tags.includes('three')),
      );
      expect((await walk('/schedules?tag=EVEN', 'schedules', 2)).ids).toEqual([]);
      expect((await walk('/schedules?name=BILLING', 'schedules', 2)).ids).toEqual(expected((s) => s.name.startsWith('Billing')));
      expect((await walk('/schedules?name=run%201', 'schedules', 2)).ids).toEqual(expected((s) => s.name.includes('run 1')));
      expect((await walk('/schedules?status=Pending&tag=all&tag=even&name=billing', 'schedules', 1)).ids).toEqual(
        expected((s) => s.tags.includes('even') && s.name.startsWith('Billing')),
      );
    });

    it('cron jobs: status and name; a job without a name never matches a name', async () => {
      expect((await walk('/cron?status=Paused', 'cronJobs', 1)).ids).toEqual([crons[1]!.id, crons[3]!.id]);
      expect((await walk('/cron?status=Active', 'cronJobs', 1)).ids).toEqual([crons[0]!.id, crons[2]!.id, crons[4]!.id]);
      expect((await walk('/cron?name=NIGHTLY', 'cronJobs', 10)).ids).toEqual(crons.filter((c) => c.name !== null).map((c) => c.id));
      expect((await walk('/cron?name=nightly&status=Active', 'cronJobs', 10)).ids).toEqual([crons[0]!.id, crons[4]!.id]);
    });
  });

  describe('bad parameters: 400 naming each', () => {
    it.each([
      ['limit=0', 'must be a whole number from 1 to 1000'],
      ['limit=1001', 'must be a whole number from 1 to 1000'],
      ['limit=10000', 'must be a whole number from 1 to 1000'],
      ['limit=-1', 'must be a whole number from 1 to 1000'],
      ['limit=1.5', 'must be a whole number from 1 to 1000'],
      ['limit=ten', 'must be a whole number from 1 to 1000'],
      ['limit=', 'must be a whole number from 1 to 1000'],
    ])('%s', async (query, message) => {
      await expect400(`/schedules?${query}`, [{ path: '/query/limit', message }]);
      await expect400(`/cron?${query}`, [{ path: '/query/limit', message }]);
    });

    it('a cursor this service did not make: malformed, tampered, empty', async () => {
      const first = await get('/schedules?limit=2');
      const cursor = first.body.nextCursor as string;
      const tampered = Buffer.from(Buffer.from(cursor, 'base64url').toString('utf8').replace(/^\[\d+/, '["x"')).toString('base64url');
      for (const bad of ['not-a-cursor!', '%20', 'eyJ9', tampered, `${cursor}x`.replace(/.$/, '*'), 'A'.repeat(401)]) {
        await expect400(`/schedules?cursor=${encodeURIComponent(bad)}`, [{ path: '/query/cursor', message: 'must be a nextCursor returned by this list' }]);
        await expect400(`/cron?cursor=${encodeURIComponent(bad)}`, [{ path: '/query/cursor' }]);
      }
      await expect400('/schedules?cursor=', [{ path: '/query/cursor', message: 'must not be empty' }]);
    });

    it('a status the resource does not have', async () => {
      await expect400('/schedules?status=Paused', [{ path: '/query/status', message: 'must be one of Pending, Running, Succeeded, Failed' }]);
      await expect400('/schedules?status=pending', [{ path: '/query/status' }]);
      await expect400('/cron?status=Pending', [{ path: '/query/status', message: 'must be one of Active, Paused, Completed' }]);
    });

    it('too many tags, a tag too long: the same rules on both lists', async () => {
      const many = Array.from({ length: 33 }, (_, i) => `tag=t${i}`).join('&');
      await expect400(`/schedules?${many}`, [{ path: '/query/tag', message: 'must have at most 32 tags' }]);
      const thirtyTwo = Array.from({ length: 32 }, (_, i) => `tag=t${i}`).join('&');
      expect((await get(`/schedules?${thirtyTwo}`)).status).toBe(200);
      await expect400(`/schedules?tag=ok&tag=${'x'.repeat(65)}`, [{ path: '/query/tag/1', message: 'must be at most 64 characters' }]);
      await expect400(`/schedules?tag=${'x'.repeat(65)}`, [{ path: '/query/tag/0' }]);
      await expect400(`/cron?${many}`, [{ path: '/query/tag', message: 'must have at most 32 tags' }]);
      await expect400(`/cron?tag=ok&tag=${'x'.repeat(65)}`, [{ path: '/query/tag/1', message: 'must be at most 64 characters' }]);
      expect((await get('/cron?tag=a')).status).toBe(200);
    });

    it('a name that is empty, too long or not storable text', async () => {
      await expect400('/schedules?name=', [{ path: '/query/name', message: 'must not be empty' }]);
      await expect400(`/schedules?name=${'n'.repeat(257)}`, [{ path: '/query/name', message: 'must be at most 256 characters' }]);
      await expect400('/cron?name=a%00b', [{ path: '/query/name', message: /U\+0000/ }]);
      expect((await get(`/schedules?name=${'n'.repeat(256)}`)).status).toBe(200);
      expect((await get('/schedules?name=%20')).status).toBe(200);
    });

    it('unknown parameters, and every problem at once', async () => {
      await expect400('/schedules?offset=10', [{ path: '/query/offset', message: 'is not an allowed field' }]);
      await expect400('/schedules?limit=0&status=Nope&name=&sort=desc', [
        { path: '/query/limit' },
        { path: '/query/status' },
        { path: '/query/name' },
        { path: '/query/sort' },
      ]);
    });
  });
});
