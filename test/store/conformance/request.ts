/**
 * Conformance of the request of a job's calls (method, headers, body, auth, sealed secrets):
 * patched field by field, carried to every claim, recorded with each attempt. Registered inside
 * `exerciseStore` (index.ts), so every store runs it against a fresh, migrated database per test.
 * Time is injected (`now`); only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { ClaimedExecution } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { CRON_REQUEST, EVERY_MINUTE, NO_REQUEST, REQUEST, RETRY, suiteHelpers, T0, TIMEOUT } from './fixtures.js';

/**
 * Registers the describe block 'request (method, headers, body, auth, secrets)' and its tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeRequest(current: () => Store): void {
  describe('request (method, headers, body, auth, secrets)', () => {
    const store = () => current();
    const { claim, newCron, finish, retryAt } = suiteHelpers(current);

    const callOf = (c: ClaimedExecution | undefined) =>
      c && { method: c.method, headers: c.headers, body: c.body, auth: c.auth, secrets: c.secrets };

    it('a schedule patch keeps absent request fields, sets given ones, and null clears body, auth and secrets', async () => {
      const s = await store().scheduleCreate({ id: newId(), name: 'r', scheduledAt: T0, endpoint: 'https://example.com/r', data: {}, tags: [], retry: RETRY, timeoutMs: TIMEOUT, ...REQUEST, now: T0 - 1 });
      const kept = await store().scheduleUpdate({ id: s.id, name: 'renamed', now: T0 });
      expect(kept).toMatchObject({ name: 'renamed', ...REQUEST });
      const set = await store().scheduleUpdate({ id: s.id, method: 'DELETE', headers: { 'X-A': '1' }, secrets: { token: 'sealed:2' }, now: T0 });
      expect(set).toMatchObject({ method: 'DELETE', headers: { 'X-A': '1' }, body: REQUEST.body, auth: REQUEST.auth, secrets: { token: 'sealed:2' } });
      const cleared = await store().scheduleUpdate({ id: s.id, body: null, auth: null, secrets: null, now: T0 });
      expect(cleared).toMatchObject({ method: 'DELETE', headers: { 'X-A': '1' }, body: null, auth: null, secrets: null });
      expect(await store().scheduleGet({ id: s.id })).toEqual(cleared);
      expect(await store().scheduleList()).toEqual([cleared]);
      expect((await store().schedulePage({ limit: 10, cursor: null, status: null, name: null, tags: [] })).schedules).toEqual([cleared]);
    });

    it('a cron patch keeps absent request fields, sets given ones, and null clears body, auth and secrets', async () => {
      const c = await newCron();
      expect(c).toMatchObject(NO_REQUEST);
      const set = await store().cronUpdate({ id: c.id, ...REQUEST });
      expect(set).toMatchObject(REQUEST);
      expect(await store().cronUpdate({ id: c.id, name: 'x' })).toMatchObject(REQUEST);
      const cleared = await store().cronUpdate({ id: c.id, body: null, auth: null, secrets: null });
      expect(cleared).toMatchObject({ method: 'PUT', headers: REQUEST.headers, body: null, auth: null, secrets: null });
      expect(await store().cronList()).toEqual([cleared]);
      expect((await store().cronPage({ limit: 10, cursor: null, status: null, name: null, tags: [] })).cronJobs).toEqual([cleared]);
    });

    it('reaches the claim: a schedule start, a cron occurrence, and a retry with the job\'s current request', async () => {
      const s = await store().scheduleCreate({ id: newId(), name: 'r', scheduledAt: T0, endpoint: 'https://example.com/r', data: {}, tags: [], retry: RETRY, timeoutMs: TIMEOUT, ...REQUEST, now: T0 - 1 });
      const c = await store().cronCreate({ id: newId(), expression: EVERY_MINUTE, name: null, timezone: null, endpoint: 'https://example.com/c', data: null, nextInvocation: T0, retry: RETRY, timeoutMs: TIMEOUT, misfire: 'once', overlap: 'allow', ...CRON_REQUEST, now: T0 - 1 });
      const first = await claim(T0);
      expect(callOf(first.find((x) => x.jobId === s.id))).toEqual(REQUEST);
      expect(callOf(first.find((x) => x.jobId === c.id))).toEqual(CRON_REQUEST);
      // The cron job changes its request while its call is retried: the retry sends the new one.
      const cronClaim = first.find((x) => x.jobId === c.id)!;
      await retryAt(cronClaim, T0 + 10);
      await store().cronUpdate({ id: c.id, method: 'POST', headers: { 'X-B': '2' }, body: 'text', auth: null, secrets: null });
      const [retried] = await claim(T0 + 10);
      expect(retried?.executionId).toBe(cronClaim.executionId);
      expect(callOf(retried)).toEqual({ method: 'POST', headers: { 'X-B': '2' }, body: 'text', auth: null, secrets: null });
      // A triggered run (a waiting execution) reads the job's request too.
      await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 + 20 });
      expect(callOf((await claim(T0 + 20)).find((x) => x.jobId === c.id))).toMatchObject({ body: 'text' });
    });

    it('an attempt records the method and URL of its call', async () => {
      const s = await store().scheduleCreate({ id: newId(), name: 'r', scheduledAt: T0, endpoint: 'https://example.com/r?x=1', data: {}, tags: [], retry: RETRY, timeoutMs: TIMEOUT, ...REQUEST, now: T0 - 1 });
      const [a] = await claim(T0);
      await finish(a!);
      const e = await store().executionGet({ id: a!.executionId });
      expect(e?.attempts.map((x) => [x.method, x.url])).toEqual([['PUT', 'https://example.com/r?x=1']]);
      expect((await store().executionList({ jobType: 'schedule', jobId: s.id, limit: 10, cursor: null })).executions[0]?.attempts).toEqual(e?.attempts);
    });
  });
}
