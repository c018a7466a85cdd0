/**
 * Conformance of the job-secrets operations (`Store.secretsPage`, `Store.secretsReplace`,
 * src/store/contract/secrets.ts), registered inside `exerciseStore` (index.ts), so every store
 * runs them against a fresh, migrated database per test. Only the `Store` interface is used.
 */
import { describe, expect, it } from 'vitest';
import type { SealedSecrets } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import type { JobRef, JobSecretsEntry } from '../../../src/store/contract/secrets.js';
import { cronParams, T0 } from './fixtures.js';

const RETRY = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000, delaysMs: null };

/** A UUID whose lexical order is `n`'s: creation order and id order differ in these tests. */
function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Sealed-looking values (the store never opens them). */
const sealed = (tag: string): SealedSecrets => ({ 'header:X-Key': `v1.aaaaaaaa.${tag}.h`, signingSecret: `v1.aaaaaaaa.${tag}.s` });

/**
 * Registers the job-secrets tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeSecrets(current: () => Store): void {
  describe('secretsPage and secretsReplace', () => {
    const store = () => current();

    const schedule = (id: string, secrets: SealedSecrets | null, scheduledAt = T0 + 3_600_000) =>
      store().scheduleCreate({
        id,
        name: 'job',
        scheduledAt,
        endpoint: 'https://example.com/hook',
        data: { n: 1 },
        tags: ['t'],
        retry: RETRY,
        timeoutMs: 1_000,
        now: T0,
        ...(secrets && { auth: { type: 'bearer' as const }, secrets }),
      });

    const cron = (id: string, secrets: SealedSecrets | null) => store().cronCreate({ ...cronParams({ id }), ...(secrets && { secrets }) });

    /** Every page from the start, `limit` at a time, until a short page. */
    async function walk(limit: number): Promise<JobSecretsEntry[][]> {
      const pages: JobSecretsEntry[][] = [];
      let after: JobRef | null = null;
      for (;;) {
        const page = await store().secretsPage({ after, limit });
        pages.push(page);
        if (page.length < limit) return pages;
        after = { jobType: page.at(-1)!.jobType, id: page.at(-1)!.id };
        if (pages.length > 100) throw new Error('the walk never ends');
      }
    }

    it('walks the jobs with secrets: schedules then cron jobs, each by id, whatever the status', async () => {
      // Created out of id order; some without secrets; one schedule Running.
      await schedule(uuid(5), sealed('s5'));
      await schedule(uuid(2), null);
      await schedule(uuid(3), sealed('s3'), T0);
      await schedule(uuid(1), sealed('s1'));
      await cron(uuid(4), sealed('c4'));
      await cron(uuid(0), sealed('c0'));
      await cron(uuid(9), null);
      const running = await store().claimDue({ now: T0, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
      expect(running.claimed.map((c) => c.jobId)).toEqual([uuid(3)]);

      const expected: JobSecretsEntry[] = [
        { jobType: 'schedule', id: uuid(1), secrets: sealed('s1') },
        { jobType: 'schedule', id: uuid(3), secrets: sealed('s3') },
        { jobType: 'schedule', id: uuid(5), secrets: sealed('s5') },
        { jobType: 'cron', id: uuid(0), secrets: sealed('c0') },
        { jobType: 'cron', id: uuid(4), secrets: sealed('c4') },
      ];
      expect(await walk(100)).toEqual([expected]);
      expect(await walk(2)).toEqual([expected.slice(0, 2), expected.slice(2, 4), expected.slice(4)]);
      // A page can end exactly at the last job: the next one is empty.
      expect(await walk(5)).toEqual([expected, []]);
      expect(await walk(1)).toEqual([...expected.map((e) => [e]), []]);
      // After a cron job, only the cron jobs after it; a limit below 1 reads as 1.
      expect(await store().secretsPage({ after: { jobType: 'cron', id: uuid(0) }, limit: 10 })).toEqual([expected[4]]);
      expect(await store().secretsPage({ after: { jobType: 'schedule', id: uuid(5) }, limit: 10 })).toEqual(expected.slice(3));
      expect(await store().secretsPage({ after: null, limit: 0 })).toEqual([expected[0]]);
    });

    it('secretsNewest: the newest job with secrets of each table, whatever its status; none when no job has secrets', async () => {
      expect(await store().secretsNewest()).toEqual([]);
      await schedule(uuid(2), null);
      await cron(uuid(9), null);
      expect(await store().secretsNewest()).toEqual([]);
      await schedule(uuid(5), sealed('s5'), T0);
      await schedule(uuid(3), sealed('s3'));
      await schedule(uuid(7), null);
      await store().claimDue({ now: T0, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
      expect(await store().secretsNewest()).toEqual([{ jobType: 'schedule', id: uuid(5), secrets: sealed('s5') }]);
      await cron(uuid(1), sealed('c1'));
      await cron(uuid(4), sealed('c4'));
      await cron(uuid(8), null);
      expect(await store().secretsNewest()).toEqual([
        { jobType: 'schedule', id: uuid(5), secrets: sealed('s5') },
        { jobType: 'cron', id: uuid(4), secrets: sealed('c4') },
      ]);
      // Secrets removed from the newest: the one before it.
      await schedule(uuid(6), sealed('s6'));
      expect((await store().secretsNewest())[0]).toEqual({ jobType: 'schedule', id: uuid(6), secrets: sealed('s6') });
      await store().scheduleUpdate({ id: uuid(6), now: T0, auth: null, secrets: null });
      expect((await store().secretsNewest())[0]).toEqual({ jobType: 'schedule', id: uuid(5), secrets: sealed('s5') });
    });

    it('gives an empty page when no job has secrets', async () => {
      await schedule(uuid(1), null);
      await cron(uuid(2), null);
      expect(await store().secretsPage({ after: null, limit: 10 })).toEqual([]);
    });

    it('replaces a schedule\'s secrets when they are still the expected ones, and nothing else', async () => {
      const before = await schedule(uuid(1), sealed('old'));
      // The same fields in another order are the same secrets.
      const reordered = { signingSecret: sealed('old').signingSecret!, 'header:X-Key': sealed('old')['header:X-Key']! };
      expect(await store().secretsReplace({ jobType: 'schedule', id: uuid(1), expected: reordered, secrets: sealed('new') })).toBe(true);
      expect(await store().scheduleGet({ id: uuid(1) })).toEqual({ ...before, secrets: sealed('new') });
      // Now `old` is stale: the compare-and-set misses and changes nothing.
      expect(await store().secretsReplace({ jobType: 'schedule', id: uuid(1), expected: sealed('old'), secrets: sealed('x') })).toBe(false);
      expect((await store().scheduleGet({ id: uuid(1) }))!.secrets).toEqual(sealed('new'));
    });

    it('misses when the secrets were changed, removed, are a subset, or the job is gone or of the other type', async () => {
      await schedule(uuid(1), sealed('a'));
      await schedule(uuid(2), sealed('b'));
      await cron(uuid(3), sealed('c'));
      const replace = (jobType: 'schedule' | 'cron', id: string, expected: SealedSecrets) =>
        store().secretsReplace({ jobType, id, expected, secrets: sealed('z') });

      // A PATCH between the read and the write wins.
      await store().scheduleUpdate({ id: uuid(1), now: T0, secrets: sealed('patched') });
      expect(await replace('schedule', uuid(1), sealed('a'))).toBe(false);
      expect((await store().scheduleGet({ id: uuid(1) }))!.secrets).toEqual(sealed('patched'));
      await store().scheduleUpdate({ id: uuid(2), now: T0, auth: null, secrets: null });
      expect(await replace('schedule', uuid(2), sealed('b'))).toBe(false);
      expect((await store().scheduleGet({ id: uuid(2) }))!.secrets).toBeNull();
      expect(await replace('cron', uuid(3), { signingSecret: sealed('c').signingSecret! })).toBe(false);
      expect(await replace('schedule', uuid(3), sealed('c'))).toBe(false);
      expect(await replace('cron', uuid(9), sealed('c'))).toBe(false);
      expect((await store().cronGet({ id: uuid(3) }))!.secrets).toEqual(sealed('c'));
    });

    it('replaces the secrets of a Running schedule and of a cron job', async () => {
      await schedule(uuid(1), sealed('a'), T0);
      await store().claimDue({ now: T0, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
      expect((await store().scheduleGet({ id: uuid(1) }))!.status).toBe('Running');
      expect(await store().secretsReplace({ jobType: 'schedule', id: uuid(1), expected: sealed('a'), secrets: sealed('a2') })).toBe(true);
      expect((await store().scheduleGet({ id: uuid(1) }))!.secrets).toEqual(sealed('a2'));

      const before = await cron(uuid(2), sealed('c'));
      expect(await store().secretsReplace({ jobType: 'cron', id: uuid(2), expected: sealed('c'), secrets: sealed('c2') })).toBe(true);
      expect(await store().cronGet({ id: uuid(2) })).toEqual({ ...before, secrets: sealed('c2') });
      expect(await store().secretsPage({ after: null, limit: 10 })).toEqual([
        { jobType: 'schedule', id: uuid(1), secrets: sealed('a2') },
        { jobType: 'cron', id: uuid(2), secrets: sealed('c2') },
      ]);
    });
  });
}
