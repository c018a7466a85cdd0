/**
 * Tags of cron jobs and the bulk actions (docs/interface.md, "Bulk actions") through the app on a
 * real SQLite file: the answers, the validation (a 400 problem naming the field, nothing changed),
 * resume from now. What the store counts and matches is proven on both stores by
 * test/store/conformance/bulk.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectProblem, openHarness, snapshot, T0, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await openHarness();
});
afterEach(async () => {
  await h.close();
});

const inject = (method: 'POST' | 'GET' | 'PATCH', url: string, payload?: unknown) =>
  h.app.inject({ method, url, headers: h.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

async function cron(tags?: string[]): Promise<{ id: string; tags: string[]; status: string; nextInvocation: string }> {
  const res = await inject('POST', '/cron', { expression: '*/5 * * * *', endpoint: 'https://example.com/c', ...(tags && { tags }) });
  expect(res.statusCode).toBe(201);
  return res.json();
}

describe('tags on cron jobs', () => {
  it('create, patch, get and the list filter (repeatable, every tag must match)', async () => {
    const a = await cron(['nightly', 'eu']);
    const b = await cron(['nightly']);
    const none = await cron();
    expect(a.tags).toEqual(['nightly', 'eu']);
    expect(none.tags).toEqual([]);
    const ids = async (query: string) => ((await inject('GET', `/cron?${query}`)).json() as { cronJobs: { id: string }[] }).cronJobs.map((c) => c.id);
    expect(await ids('tag=nightly')).toEqual([a.id, b.id]);
    expect(await ids('tag=nightly&tag=eu')).toEqual([a.id]);
    expect(await ids('tag=eu&tag=x')).toEqual([]);
    const patched = await inject('PATCH', `/cron/${b.id}`, { tags: ['eu'] });
    expect(patched.json()).toMatchObject({ tags: ['eu'] });
    expect((await inject('GET', `/cron/${b.id}`)).json()).toMatchObject({ tags: ['eu'] });
    expect(await ids('tag=eu')).toEqual([a.id, b.id]);
  });

  it('the rules of schedule tags: a 400 naming the field, nothing stored', async () => {
    const before = await snapshot(h.store);
    const long = 'x'.repeat(1_000);
    expect(expectProblem(await inject('POST', '/cron', { expression: '* * * * *', endpoint: 'https://example.com/c', tags: [long] }), 400).errors!.map((e) => e.path)).toContain('/tags/0');
    expect(expectProblem(await inject('POST', '/cron', { expression: '* * * * *', endpoint: 'https://example.com/c', tags: 'a' }), 400).errors!.map((e) => e.path)).toContain('/tags');
    expect(expectProblem(await inject('GET', `/cron?${Array.from({ length: 40 }, (_, i) => `tag=t${i}`).join('&')}`), 400).errors!.map((e) => e.path)).toContain('/query/tag');
    expect(await snapshot(h.store)).toEqual(before);
  });
});

describe('POST /cron/bulk and POST /schedules/bulk', () => {
  it('pause, dry run, resume from now, delete: 200 {count}', async () => {
    const a = await cron(['nightly']);
    const b = await cron(['nightly']);
    const other = await cron(['daily']);
    const before = await snapshot(h.store);
    expect((await inject('POST', '/cron/bulk', { action: 'pause', filter: { tag: ['nightly'] }, dryRun: true })).json()).toEqual({ count: 2 });
    expect(await snapshot(h.store)).toEqual(before);
    const paused = await inject('POST', '/cron/bulk', { action: 'pause', filter: { tag: ['nightly'], status: 'Active' } });
    expect(paused.statusCode).toBe(200);
    expect(paused.json()).toEqual({ count: 2 });
    expect((await inject('GET', `/cron/${other.id}`)).json()).toMatchObject({ status: 'Active' });
    // A day later: resume recomputes from now, as a single resume does.
    h.clock.t = T0 + 86_400_000 + 1;
    const resumed = await inject('POST', '/cron/bulk', { action: 'resume', filter: { ids: [a.id, b.id], status: ['Paused', 'Active'] } });
    expect(resumed.json()).toEqual({ count: 2 });
    expect((await inject('GET', `/cron/${a.id}`)).json()).toMatchObject({ status: 'Active', nextInvocation: new Date(T0 + 86_400_000 + 300_000).toISOString() });
    expect((await inject('POST', '/cron/bulk', { action: 'delete', filter: { tag: ['nightly'] } })).json()).toEqual({ count: 2 });
    expect((await inject('GET', `/cron/${a.id}`)).json()).toBeNull();
    expect((await inject('GET', `/cron/${other.id}`)).json()).toMatchObject({ id: other.id });
  });

  it('schedules: delete by tag', async () => {
    const mk = async (tags: string[]) =>
      (await inject('POST', '/schedules', { name: 'n', scheduledAt: new Date(T0 + 3_600_000).toISOString(), endpoint: 'https://example.com/s', tags })).json() as { id: string };
    const a = await mk(['campaign-7']);
    const kept = await mk(['campaign-8']);
    expect((await inject('POST', '/schedules/bulk', { action: 'delete', filter: { tag: ['campaign-7'] }, dryRun: true })).json()).toEqual({ count: 1 });
    expect((await inject('POST', '/schedules/bulk', { action: 'delete', filter: { tag: ['campaign-7'] } })).json()).toEqual({ count: 1 });
    expect((await inject('GET', `/schedules/${a.id}`)).json()).toBeNull();
    expect((await inject('GET', `/schedules/${kept.id}`)).json()).toMatchObject({ id: kept.id });
  });

  it('validation: a 400 problem naming the field, and nothing changes', async () => {
    await cron(['nightly']);
    const before = await snapshot(h.store);
    const cases: [string, unknown, string][] = [
      ['/cron/bulk', { action: 'pause', filter: {} }, '/filter'],
      ['/cron/bulk', { action: 'pause' }, '/filter'],
      ['/schedules/bulk', { action: 'delete', filter: {} }, '/filter'],
      ['/cron/bulk', { action: 'explode', filter: { tag: ['nightly'] } }, '/action'],
      ['/schedules/bulk', { action: 'pause', filter: { tag: ['nightly'] } }, '/action'],
      ['/cron/bulk', { action: 'pause', filter: { tag: [] } }, '/filter/tag'],
      ['/cron/bulk', { action: 'pause', filter: { status: 'Pending' } }, '/filter/status'],
      ['/cron/bulk', { action: 'pause', filter: { status: [] } }, '/filter/status'],
      ['/cron/bulk', { action: 'pause', filter: { ids: [] } }, '/filter/ids'],
      ['/cron/bulk', { action: 'pause', filter: { ids: ['not-a-uuid'] } }, '/filter/ids/0'],
      ['/cron/bulk', { action: 'pause', filter: { ids: Array.from({ length: 1_001 }, () => '019aa5c2-7a10-7e41-9c55-0b8d2e6f1a23') } }, '/filter/ids'],
      ['/cron/bulk', { action: 'pause', filter: { name: 'x' } }, '/filter/name'],
      ['/cron/bulk', { action: 'pause', filter: { tag: ['nightly'] }, dryRun: 'yes' }, '/dryRun'],
    ];
    for (const [url, body, path] of cases) {
      const problem = expectProblem(await inject('POST', url, body), 400);
      expect(problem.errors!.map((e) => e.path), JSON.stringify(body)).toContain(path);
    }
    expect(await snapshot(h.store)).toEqual(before);
  });
});
