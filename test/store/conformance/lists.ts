/**
 * Conformance of the paged, filtered job lists (`Store.schedulePage`,
 * `Store.cronPage`), registered inside `exerciseStore` (index.ts), so every store runs them
 * against a fresh, migrated database per test. Only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { CronJob, CronJobStatus, Schedule, ScheduleStatus } from '../../../src/domain/types.js';
import { encodeCursor, PAGE_SCAN_MAX, scanBound } from '../../../src/store/rules/paging.js';
import type { CronPageParams, SchedulePageParams, Store } from '../../../src/store/store.js';
import { cronParams, RETRY, T0, uuid } from './fixtures.js';

type ScheduleFilter = Partial<Omit<SchedulePageParams, 'cursor' | 'limit'>>;
type CronFilter = Partial<Omit<CronPageParams, 'cursor' | 'limit'>>;

/**
 * Registers the list tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeLists(current: () => Store): void {
  describe('schedulePage and cronPage', () => {
    const store = () => current();

    /** A schedule created at `now` (default T0), due an hour after it (so claims take them in creation order). */
    const schedule = (o: { name?: string; tags?: string[]; now?: number; id?: string } = {}) =>
      store().scheduleCreate({
        id: o.id ?? newId(),
        name: o.name ?? 'job',
        scheduledAt: (o.now ?? T0) + 3_600_000,
        endpoint: 'https://example.com/hook',
        data: {},
        tags: o.tags ?? [],
        retry: RETRY,
        timeoutMs: 1_000,
        now: o.now ?? T0,
      });

    const cron = (o: { name?: string | null; now?: number; id?: string; tags?: string[] } = {}) => store().cronCreate(cronParams(o));

    /** One page of schedules. */
    const schedulePage = (f: ScheduleFilter, limit: number, cursor: string | null = null) =>
      store().schedulePage({ limit, cursor, status: f.status ?? null, name: f.name ?? null, tags: f.tags ?? [] });

    /** One page of cron jobs. */
    const cronPage = (f: CronFilter, limit: number, cursor: string | null = null) =>
      store().cronPage({ limit, cursor, status: f.status ?? null, name: f.name ?? null, tags: f.tags ?? [] });

    /** Every page of a list, from the first to the one whose nextCursor is null. */
    async function walk<T>(page: (cursor: string | null) => Promise<{ items: T[]; nextCursor: string | null }>) {
      const pages: T[][] = [];
      let cursor: string | null = null;
      do {
        const p: { items: T[]; nextCursor: string | null } = await page(cursor);
        pages.push(p.items);
        cursor = p.nextCursor;
        if (pages.length > 10_000) throw new Error('the list never ends');
      } while (cursor !== null);
      return pages;
    }
    const walkSchedules = (f: ScheduleFilter, limit: number) =>
      walk(async (cursor) => {
        const p = await schedulePage(f, limit, cursor);
        return { items: p.schedules, nextCursor: p.nextCursor };
      });
    const walkCron = (f: CronFilter, limit: number) =>
      walk(async (cursor) => {
        const p = await cronPage(f, limit, cursor);
        return { items: p.cronJobs, nextCursor: p.nextCursor };
      });
    const ids = (pages: { id: string }[][]) => pages.flat().map((x) => x.id);

    /** Claims the `limit` earliest due schedules (the oldest: see `schedule`), which become Running. */
    const runDue = (limit: number) =>
      store().claimDue({
        now: T0 + 7_200_000,
        limit,
        nodeId: 'n',
        leaseMs: 86_400_000,
        misfireThresholdMs: 60_000,
      }).then((r) => r.claimed);

    describe('paging', () => {
      it('pages the list oldest first: every schedule exactly once, full pages, nextCursor null on the last', async () => {
        // Creation instants out of id order, and ties within one ms ordered by id.
        const made: Schedule[] = [];
        for (let i = 0; i < 23; i++) made.push(await schedule({ now: T0 + ((i * 7) % 23) * 1000 + (i % 3 === 0 ? 0 : 1), id: uuid(100 - i) }));
        const expected = [...made].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map((s) => s.id);
        const pages = await walkSchedules({}, 5);
        expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
        expect(ids(pages)).toEqual(expected);
        // The pages hold the schedules as get returns them.
        expect(pages[0]![0]).toEqual(await store().scheduleGet({ id: expected[0]! }));
        // The unpaged list has the same order.
        expect((await store().scheduleList()).map((s) => s.id)).toEqual(expected);
      });

      it('ties in createdAt go by id', async () => {
        for (const n of [3, 1, 2]) await schedule({ id: uuid(n), now: T0 });
        for (const n of [3, 1, 2]) await cron({ id: uuid(n), now: T0 });
        expect(ids(await walkSchedules({}, 2))).toEqual([uuid(1), uuid(2), uuid(3)]);
        expect(ids(await walkCron({}, 2))).toEqual([uuid(1), uuid(2), uuid(3)]);
      });

      it('a list that fills its last page exactly ends there (no empty page after it)', async () => {
        for (let i = 0; i < 6; i++) await schedule({ now: T0 + i });
        const first = await schedulePage({}, 3);
        expect(first.schedules).toHaveLength(3);
        expect(first.nextCursor).not.toBeNull();
        const second = await schedulePage({}, 3, first.nextCursor);
        expect(second.schedules).toHaveLength(3);
        expect(second.nextCursor).toBeNull();
      });

      it('an empty list is one empty page; a limit beyond the list is one page', async () => {
        expect(await schedulePage({}, 100)).toEqual({ schedules: [], nextCursor: null });
        expect(await cronPage({}, 100)).toEqual({ cronJobs: [], nextCursor: null });
        for (let i = 0; i < 3; i++) await schedule({ now: T0 + i });
        const page = await schedulePage({}, 1000);
        expect(page.schedules).toHaveLength(3);
        expect(page.nextCursor).toBeNull();
      });

      it('pages stay stable while schedules are created and deleted meanwhile', async () => {
        const made: Schedule[] = [];
        for (let i = 0; i < 10; i++) made.push(await schedule({ now: T0 + i * 1000 }));
        const first = await schedulePage({}, 4);
        expect(ids([first.schedules])).toEqual(made.slice(0, 4).map((s) => s.id));
        // Meanwhile: two new schedules (created later, so after the cursor), one deleted ahead of
        // the cursor and one behind it.
        const late1 = await schedule({ now: T0 + 20_000 });
        const late2 = await schedule({ now: T0 + 21_000 });
        await store().scheduleDelete({ id: made[1]!.id });
        await store().scheduleDelete({ id: made[6]!.id });
        const rest: string[] = [];
        let cursor = first.nextCursor;
        while (cursor !== null) {
          const p = await schedulePage({}, 4, cursor);
          rest.push(...p.schedules.map((s) => s.id));
          cursor = p.nextCursor;
        }
        expect(rest).toEqual([...made.slice(4, 6), ...made.slice(7), late1, late2].map((s) => s.id));
      });

      it('the cursor of a deleted schedule still continues after it', async () => {
        const made: Schedule[] = [];
        for (let i = 0; i < 5; i++) made.push(await schedule({ now: T0 + i }));
        const first = await schedulePage({}, 2);
        await store().scheduleDelete({ id: made[1]!.id });
        const next = await schedulePage({}, 10, first.nextCursor);
        expect(ids([next.schedules])).toEqual(made.slice(2).map((s) => s.id));
      });

      it('cron jobs page the same way, with lastInvocation and lastStatus', async () => {
        const made: CronJob[] = [];
        for (let i = 0; i < 7; i++) made.push(await cron({ now: T0 + i * 10 }));
        await store().claimDue({
          now: T0 + 3_600_000,
          limit: 1,
          nodeId: 'n',
          leaseMs: 86_400_000,
          misfireThresholdMs: 60_000,
        });
        const pages = await walkCron({}, 3);
        expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
        expect(pages.flat()).toEqual(await store().cronList());
        expect(pages.flat().filter((c) => c.lastStatus === 'Running')).toHaveLength(1);
      });
    });

    describe('filters', () => {
      it('status: only schedules in that status, paged', async () => {
        const made: Schedule[] = [];
        for (let i = 0; i < 9; i++) made.push(await schedule({ now: T0 + i }));
        await runDue(4); // the four oldest become Running
        const byStatus = async (status: ScheduleStatus) => ids(await walkSchedules({ status }, 2));
        expect(await byStatus('Running')).toEqual(made.slice(0, 4).map((s) => s.id));
        expect(await byStatus('Pending')).toEqual(made.slice(4).map((s) => s.id));
        expect(await byStatus('Failed')).toEqual([]);
      });

      it('tags: every tag given must match, in any order, repeated or not', async () => {
        const a = await schedule({ tags: ['a'], now: T0 + 1 });
        const ab = await schedule({ tags: ['b', 'a'], now: T0 + 2 });
        const abc = await schedule({ tags: ['a', 'b', 'c', 'a'], now: T0 + 3 });
        const c = await schedule({ tags: ['c'], now: T0 + 4 });
        await schedule({ tags: [], now: T0 + 5 });
        const byTags = async (tags: string[]) => ids(await walkSchedules({ tags }, 1));
        expect(await byTags(['a'])).toEqual([a.id, ab.id, abc.id]);
        expect(await byTags(['a', 'b'])).toEqual([ab.id, abc.id]);
        expect(await byTags(['b', 'a'])).toEqual([ab.id, abc.id]);
        expect(await byTags(['a', 'a'])).toEqual([a.id, ab.id, abc.id]);
        expect(await byTags(['c'])).toEqual([abc.id, c.id]);
        expect(await byTags(['a', 'b', 'c'])).toEqual([abc.id]);
        expect(await byTags(['A'])).toEqual([]); // tags are exact
        expect(await byTags(['a', 'nope'])).toEqual([]);
        expect(await byTags(['nope'])).toEqual([]);
      });

      it('tags follow updates and deletes', async () => {
        const s = await schedule({ tags: ['old', 'kept'] });
        await store().scheduleUpdate({ now: T0, id: s.id, tags: ['new', 'kept'] });
        expect(ids(await walkSchedules({ tags: ['old'] }, 10))).toEqual([]);
        expect(ids(await walkSchedules({ tags: ['new'] }, 10))).toEqual([s.id]);
        expect(ids(await walkSchedules({ tags: ['kept', 'new'] }, 10))).toEqual([s.id]);
        await store().scheduleUpdate({ now: T0, id: s.id, name: 'renamed' }); // tags untouched
        expect(ids(await walkSchedules({ tags: ['new'] }, 10))).toEqual([s.id]);
        await store().scheduleUpdate({ now: T0, id: s.id, tags: [] });
        expect(ids(await walkSchedules({ tags: ['kept'] }, 10))).toEqual([]);
        await store().scheduleUpdate({ now: T0, id: s.id, tags: ['back'] });
        expect(ids(await walkSchedules({ tags: ['back'] }, 10))).toEqual([s.id]);
        await store().scheduleDelete({ id: s.id });
        expect(ids(await walkSchedules({ tags: ['back'] }, 10))).toEqual([]);
      });

      it('name: a substring, A–Z in either case, other characters exactly, no wildcards', async () => {
        const names = ['Billing report', 'nightly billing', 'BILLING', 'bill', 'Émile', 'émile', '50%_off', 'x_y'];
        const made = new Map<string, string>();
        for (const [i, name] of names.entries()) made.set(name, (await schedule({ name, now: T0 + i })).id);
        const byName = async (name: string) => (await walkSchedules({ name }, 2)).flat().map((s) => s.name);
        expect(await byName('billing')).toEqual(['Billing report', 'nightly billing', 'BILLING']);
        expect(await byName('BiLl')).toEqual(['Billing report', 'nightly billing', 'BILLING', 'bill']);
        expect(await byName('ing rep')).toEqual(['Billing report']);
        expect(await byName('Émile')).toEqual(['Émile']);
        expect(await byName('émile')).toEqual(['émile']);
        expect(await byName('mile')).toEqual(['Émile', 'émile']);
        expect(await byName('%_')).toEqual(['50%_off']);
        expect(await byName('_')).toEqual(['50%_off', 'x_y']);
        expect(await byName('%')).toEqual(['50%_off']);
        expect(await byName('zzz')).toEqual([]);
      });

      it('filters combine: status, tags and name all hold', async () => {
        const want: string[] = [];
        for (let i = 0; i < 12; i++) {
          const s = await schedule({ name: i % 2 === 0 ? `Report ${i}` : `other ${i}`, tags: i % 3 === 0 ? ['eu', 'billing'] : ['eu'], now: T0 + i });
          if (i >= 6 && i % 2 === 0 && i % 3 === 0) want.push(s.id);
        }
        await runDue(6); // 0–5 Running, 6–11 Pending
        expect(ids(await walkSchedules({ status: 'Pending', tags: ['billing', 'eu'], name: 'report' }, 1))).toEqual(want);
        expect(want).toHaveLength(1); // i = 6
        expect(ids(await walkSchedules({ status: 'Running', tags: ['billing'], name: 'REPORT' }, 1))).toHaveLength(1); // i = 0
      });

      it('cron jobs: status and name (a null name never matches a name filter)', async () => {
        const daily = await cron({ name: 'Daily digest', now: T0 + 1 });
        const unnamed = await cron({ name: null, now: T0 + 2 });
        const hourly = await cron({ name: 'hourly DIGEST', now: T0 + 3 });
        await store().cronUpdate({ id: hourly.id, status: 'Paused' });
        const by = async (f: CronFilter) => ids(await walkCron(f, 1));
        const status = (s: CronJobStatus) => by({ status: s });
        expect(await status('Active')).toEqual([daily.id, unnamed.id]);
        expect(await status('Paused')).toEqual([hourly.id]);
        expect(await by({ name: 'digest' })).toEqual([daily.id, hourly.id]);
        expect(await by({ name: 'digest', status: 'Active' })).toEqual([daily.id]);
        expect(await by({ name: 'null' })).toEqual([]);
        expect(await by({})).toEqual([daily.id, unnamed.id, hourly.id]);
      });

      it('cron jobs: tags, every one must match, paged; with status and name; following updates and deletes', async () => {
        const a = await cron({ tags: ['a'], now: T0 + 1 });
        const ab = await cron({ tags: ['b', 'a'], now: T0 + 2, name: 'Nightly' });
        const abc = await cron({ tags: ['a', 'b', 'c', 'a'], now: T0 + 3 });
        await cron({ tags: ['c'], now: T0 + 4 });
        await cron({ now: T0 + 5 });
        const by = async (f: CronFilter, limit = 1) => ids(await walkCron(f, limit));
        expect(await by({ tags: ['a'] })).toEqual([a.id, ab.id, abc.id]);
        expect(await by({ tags: ['a', 'b'] })).toEqual([ab.id, abc.id]);
        expect(await by({ tags: ['b', 'a', 'b'] }, 10)).toEqual([ab.id, abc.id]);
        expect(await by({ tags: ['c', 'a', 'b'] })).toEqual([abc.id]);
        expect(await by({ tags: ['A'] })).toEqual([]); // exact
        expect(await by({ tags: ['a', 'b'], name: 'NIGHT' })).toEqual([ab.id]);
        await store().cronUpdate({ id: ab.id, status: 'Paused' });
        expect(await by({ tags: ['a'], status: 'Active' })).toEqual([a.id, abc.id]);
        expect(await by({ tags: ['b'], status: 'Paused' })).toEqual([ab.id]);
        // Tags follow updates (a patch without tags keeps them) and deletes.
        await store().cronUpdate({ id: a.id, tags: ['z', 'b'] });
        expect(await by({ tags: ['a'] })).toEqual([ab.id, abc.id]);
        expect(await by({ tags: ['b', 'z'] })).toEqual([a.id]);
        await store().cronUpdate({ id: a.id, name: 'renamed' });
        expect((await store().cronGet({ id: a.id }))!.tags).toEqual(['z', 'b']);
        expect(await by({ tags: ['z'] })).toEqual([a.id]);
        await store().cronDelete({ id: abc.id });
        expect(await by({ tags: ['c'] }, 10)).toHaveLength(1);
        expect(await by({ tags: ['a', 'b'] })).toEqual([ab.id]);
      });

      it('cron jobs: a second tag is checked within the scan bound, rare matches each exactly once', async () => {
        const rare = new Set([2, 40]);
        for (let i = 0; i < 45; i++) await cron({ id: uuid(i + 1), now: T0, tags: rare.has(i) ? ['x', 'y'] : ['x'] });
        const got: string[] = [];
        let pages = 0;
        let cursor: string | null = null;
        do {
          const p: { cronJobs: CronJob[]; nextCursor: string | null } = await store().cronPage({ limit: 10, cursor, status: null, name: null, tags: ['x', 'y'], scan: 15 });
          expect(p.cronJobs.length).toBeLessThanOrEqual(10);
          got.push(...p.cronJobs.map((c) => c.id));
          cursor = p.nextCursor;
          pages++;
        } while (cursor !== null);
        expect(got).toEqual([uuid(3), uuid(41)]);
        expect(pages).toBeGreaterThanOrEqual(3); // 45 rows, 15 a page
      });
    });

    describe('bounded scans', () => {
      it('a page looks at no more than its scan bound: rare matches come over several pages, each exactly once', async () => {
        // 70 schedules tagged x in list order; "needle" (name) and tag y on the 3rd and the last.
        // A scan bound of 30 (PAGE_SCAN_MAX in service; lowered here to keep the test small).
        const n = 70;
        const rare = new Set([2, n - 1]);
        for (let i = 0; i < n; i++) {
          await schedule({ id: uuid(i + 1), now: T0, name: rare.has(i) ? `the needle ${i}` : `hay ${i}`, tags: rare.has(i) ? ['x', 'y'] : ['x'] });
        }
        const page = (f: ScheduleFilter, cursor: string | null) =>
          store().schedulePage({ limit: 10, cursor, status: f.status ?? null, name: f.name ?? null, tags: f.tags ?? [], scan: 30 });
        for (const f of [{ name: 'needle' }, { tags: ['x', 'y'] }, { status: 'Pending' as const, name: 'NEEDLE' }]) {
          const sizes: number[] = [];
          const found: string[] = [];
          let cursor: string | null = null;
          do {
            const p: { schedules: Schedule[]; nextCursor: string | null } = await page(f, cursor);
            sizes.push(p.schedules.length);
            found.push(...p.schedules.map((s) => s.id));
            cursor = p.nextCursor;
          } while (cursor !== null);
          // Rows 1–30: one match; 31–60: none (an empty page that goes on); 61–70: the last.
          expect(sizes, JSON.stringify(f)).toEqual([1, 0, 1]);
          expect(found).toEqual([uuid(3), uuid(n)]);
        }
        // A page whose driver answers the filter alone fills whatever the bound.
        const plain = await page({ tags: ['x'] }, null);
        expect(plain.schedules).toHaveLength(10);
        // The bound is never below limit + 1, nor above PAGE_SCAN_MAX.
        const wide = await store().schedulePage({ limit: 50, cursor: null, status: null, name: 'needle', tags: [], scan: 1 });
        expect(wide.schedules.map((s) => s.id)).toEqual([uuid(3)]);
        expect(wide.nextCursor).not.toBeNull(); // 51 rows looked at
        expect(scanBound(10, 1_000_000)).toBe(PAGE_SCAN_MAX);
      });

      it('cron jobs: a name filter is bounded too', async () => {
        for (let i = 0; i < 12; i++) await cron({ id: uuid(i + 1), now: T0, name: i === 10 ? 'Needle' : null });
        const first = await store().cronPage({ limit: 2, cursor: null, status: 'Active', name: 'needle', tags: [], scan: 5 });
        expect(first).toEqual({ cronJobs: [], nextCursor: expect.any(String) });
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const p: { cronJobs: CronJob[]; nextCursor: string | null } = await store().cronPage({ limit: 2, cursor, status: null, name: 'needle', tags: [], scan: 5 });
          ids.push(...p.cronJobs.map((c) => c.id));
          cursor = p.nextCursor;
        } while (cursor !== null);
        expect(ids).toEqual([uuid(11)]);
      });
    });

    describe('cursors', () => {
      it('a cursor the store did not make is refused, naming /query/cursor', async () => {
        await schedule();
        const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
        const bad = [
          'not a cursor!',
          'x'.repeat(401),
          b64('not json'),
          b64({ at: 1, id: 'x' }),
          b64([1]),
          b64([1, 'x', 2]),
          b64(['1', 'x']),
          b64([1.5, 'x']),
          b64([Number.MAX_SAFE_INTEGER + 2, 'x']),
          b64([1, '']),
          b64([1, 7]),
          b64([1, 'a\u0000b']),
        ];
        for (const cursor of bad) {
          for (const list of [() => schedulePage({}, 10, cursor), () => schedulePage({ tags: ['a'] }, 10, cursor), () => cronPage({}, 10, cursor)]) {
            const err = await list().then(
              () => null,
              (e: unknown) => e,
            );
            expect(err, cursor).toBeInstanceOf(InvalidInputError);
            expect((err as InvalidInputError).errors).toEqual([{ path: '/query/cursor', message: expect.any(String) }]);
          }
        }
      });

      it('a well-formed cursor is a position: past the end gives an empty last page', async () => {
        await schedule({ now: T0 });
        const past = encodeCursor({ at: T0 + 1, id: uuid(0) });
        expect(await schedulePage({}, 10, past)).toEqual({ schedules: [], nextCursor: null });
        const before = encodeCursor({ at: 0, id: 'x' });
        expect((await schedulePage({}, 10, before)).schedules).toHaveLength(1);
      });
    });
  });
}
