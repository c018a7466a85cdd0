/**
 * Conformance of the audit log (src/store/rules/audit.ts, docs/keys-and-audit.md): the event each audited
 * operation writes (actor, action, resource, changes, secrets redacted), in the transaction of the
 * change (a failed or refused change leaves none), the auto-pause's `system` event, the count of
 * failed sign-ins per address and minute, the list's filters and paging, and pruning. Registered
 * inside `exerciseStore` (index.ts), so every store runs them against a fresh, migrated
 * database per test. Time is injected; only the `Store` interface is used.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditAction, AuditEvent, AuditRecord } from '../../../src/domain/audit.js';
import { InvalidInputError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { AttemptOutcome } from '../../../src/domain/types.js';
import type { AuditPageParams } from '../../../src/store/contract/audit.js';
import type { CronCreateParams, ScheduleCreateParams, Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const RETRY = { maxAttempts: 1, initialDelayMs: 1000, maxDelayMs: 60_000 };
const KEY = { keyId: '0190b0a0-0000-7000-8000-000000000001', keyName: 'deploy' };
/** Secret values that must never appear in an event. */
const SECRETS = ['sealed-job-secret', 'Bearer hdr-s3cret', 'chan-t0ken', 'tok-digest'];

const FILTERS: AuditPageParams = {
  limit: 100, cursor: null, actorKeyId: null, resourceType: null, resourceId: null, action: null, from: null, to: null,
};

/**
 * Registers the audit tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeAudit(current: () => Store): void {
  describe('audit log', () => {
    const store = () => current();
    const rec = (action: AuditAction, at = T0): AuditRecord => ({ actor: KEY, requestId: 'req-1', sourceAddress: '203.0.113.7', action, at });
    const all = async (f: Partial<AuditPageParams> = {}): Promise<AuditEvent[]> => (await store().auditPage({ ...FILTERS, ...f })).events;

    const schedule = (p: Partial<ScheduleCreateParams> = {}) =>
      store().scheduleCreate({
        id: newId(), name: 's', scheduledAt: T0 + 3_600_000, endpoint: 'https://example.com/s', data: {}, tags: [], retry: RETRY,
        timeoutMs: 5_000, now: T0, headers: { Authorization: 'Bearer hdr-s3cret', 'X-Plain': 'ok' }, secrets: { password: 'sealed-job-secret' },
        ...p,
      });
    const cron = (p: Partial<CronCreateParams> = {}) =>
      store().cronCreate({
        id: newId(), expression: '0 * * * *', name: 'c', timezone: null, endpoint: 'https://example.com/c', data: null,
        nextInvocation: T0 + 3_600_000, retry: RETRY, timeoutMs: 5_000, misfire: 'once', overlap: 'allow', now: T0, ...p,
      });

    it('writes one event per audited change, with actor, action, resource and changes; secrets redacted', async () => {
      const s = await schedule({ audit: rec('schedule.create') });
      await store().scheduleUpdate({ id: s.id, name: 's2', secrets: { password: 'sealed-job-secret-2' }, now: T0 + 1, audit: rec('schedule.update', T0 + 1) });
      const c = await cron({ audit: rec('cron.create', T0 + 2) });
      await store().cronUpdate({ id: c.id, status: 'Paused', audit: rec('cron.pause', T0 + 3) });
      const e = await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 + 4, audit: rec('cron.trigger', T0 + 4) });
      await store().cronDelete({ id: c.id, audit: rec('cron.delete', T0 + 5) });
      await store().scheduleDelete({ id: s.id, audit: rec('schedule.delete', T0 + 6) });
      const digest = createHash('sha256').update('tok-digest').digest('hex');
      const k = await store().apiKeyCreate({ id: newId(), name: 'k', status: 'Enabled', digest, now: T0, audit: rec('apiKey.create', T0 + 7) });
      await store().apiKeyUpdate({ id: k.id, status: 'Disabled', audit: rec('apiKey.update', T0 + 8) });
      await store().apiKeyDelete({ id: k.id, audit: rec('apiKey.delete', T0 + 9) });
      const ch = await store().channelCreate({
        id: newId(), name: 'ops', type: 'slack', url: 'https://hooks.slack.com/services/T1/B1/chan-t0ken', events: ['execution.failed'], jobIds: null, now: T0,
        audit: rec('channel.create', T0 + 10),
      });
      await store().channelUpdate({ id: ch.id, url: 'https://hooks.slack.com/services/T1/B1/chan-t0ken-2', audit: rec('channel.update', T0 + 11) });
      await store().channelDelete({ id: ch.id, audit: rec('channel.delete', T0 + 12) });

      const events = await all();
      expect(events.map((x) => x.action)).toEqual([
        'channel.delete', 'channel.update', 'channel.create', 'apiKey.delete', 'apiKey.update', 'apiKey.create', 'schedule.delete',
        'cron.delete', 'cron.trigger', 'cron.pause', 'cron.create', 'schedule.update', 'schedule.create',
      ]);
      for (const x of events) {
        expect(x.actor).toEqual(KEY);
        expect(x.requestId).toBe('req-1');
        expect(x.sourceAddress).toBe('203.0.113.7');
        expect(x.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      }
      const by = (a: AuditAction) => events.find((x) => x.action === a)!;
      expect(by('schedule.create')).toMatchObject({ resourceType: 'schedule', resourceId: s.id, occurredAt: T0 });
      expect(by('schedule.create').changes.name).toEqual({ after: 's' });
      expect(by('schedule.create').changes.secrets).toEqual({ after: '[redacted]' });
      expect(by('schedule.create').changes.headers).toEqual({ after: { Authorization: '[redacted]', 'X-Plain': 'ok' } });
      expect(by('schedule.update').changes).toEqual({ name: { before: 's', after: 's2' }, secrets: { before: '[redacted]', after: '[redacted]' } });
      expect(by('cron.pause').changes.status).toEqual({ before: 'Active', after: 'Paused' });
      expect(by('cron.trigger')).toMatchObject({ resourceType: 'cronJob', resourceId: c.id, changes: { executionId: { after: (e as { id: string }).id } } });
      expect(by('cron.delete').changes.expression).toEqual({ before: '0 * * * *' });
      expect(by('cron.delete').changes.status).toEqual({ before: 'Paused' });
      expect(by('apiKey.update').changes).toEqual({ status: { before: 'Enabled', after: 'Disabled' } });
      expect(by('channel.update').changes).toEqual({ url: { before: '[redacted]', after: '[redacted]' } });
      expect(by('channel.create').changes.url).toEqual({ after: '[redacted]' });
      const text = JSON.stringify(events);
      for (const secret of [...SECRETS, digest]) expect(text).not.toContain(secret);
    });

    it('writes no event for a change made without a record, or one that changed nothing', async () => {
      const s = await schedule();
      await store().scheduleUpdate({ id: s.id, name: 'x', now: T0 });
      expect(await store().scheduleUpdate({ id: newId(), name: 'y', now: T0, audit: rec('schedule.update') })).toBe('not_found');
      expect(await store().cronDelete({ id: newId(), audit: rec('cron.delete') })).toBe(false);
      expect(await store().apiKeyUpdate({ id: newId(), name: 'z', audit: rec('apiKey.update') })).toBeNull();
      expect(await all()).toEqual([]);
    });

    it('writes the event in the transaction of the change: a change that fails leaves none', async () => {
      // A refused patch (not Pending) commits nothing.
      const s = await schedule();
      const { claimed } = await store().claimDue({ now: T0 + 3_600_000, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 });
      expect(claimed).toHaveLength(1);
      expect(await store().scheduleUpdate({ id: s.id, name: 'late', now: T0, audit: rec('schedule.update') })).toBe('not_pending');
      // A unique constraint broken inside the transaction: the second key with the same digest.
      const digest = createHash('sha256').update('same').digest('hex');
      await store().apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest, now: T0, audit: rec('apiKey.create') });
      await expect(store().apiKeyCreate({ id: newId(), name: 'b', status: 'Enabled', digest, now: T0, audit: rec('apiKey.create') })).rejects.toThrow();
      // A change that fails after its row was written: no occurrence after the patch.
      const c = await cron();
      await expect(
        store().cronUpdate({ id: c.id, expression: '0 0 30 2 *', recomputeAfter: T0, audit: rec('cron.update') }),
      ).rejects.toBeInstanceOf(InvalidInputError);
      expect((await store().cronGet({ id: c.id }))!.expression).toBe('0 * * * *');
      const events = await all();
      expect(events.map((x) => [x.action, x.changes.name])).toEqual([['apiKey.create', { after: 'a' }]]);
    });

    it('writes a system event when an outcome auto-pauses a cron job, in the finish transaction', async () => {
      const c = await cron();
      await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 + 10 });
      const [claimed] = (await store().claimDue({ now: T0 + 20, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 })).claimed;
      const outcome: AttemptOutcome = {
        executionId: claimed!.executionId, attempt: claimed!.attempt, status: 'Failed', nextAttemptAt: null, startedAt: T0 + 30,
        durationMs: 5, statusCode: 410, error: 'HTTP 410', responseBody: null,
      };
      const { paused } = await store().executionsFinish({ nodeId: 'n', outcomes: [outcome] });
      expect(paused).toHaveLength(1);
      const [event, ...rest] = await all();
      expect(rest).toEqual([]);
      expect(event).toMatchObject({
        actor: 'system', action: 'cron.autoPause', resourceType: 'cronJob', resourceId: c.id, requestId: null, sourceAddress: null,
        occurredAt: T0 + 35,
        changes: { status: { before: 'Active', after: 'Paused' }, pausedReason: { before: null, after: 'endpoint answered 410 Gone' } },
      });
      expect(event!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/);
      // A finish that pauses nothing writes no event.
      await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 + 40 });
      const [again] = (await store().claimDue({ now: T0 + 50, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 })).claimed;
      await store().executionsFinish({ nodeId: 'n', outcomes: [{ ...outcome, executionId: again!.executionId, attempt: again!.attempt, status: 'Succeeded', statusCode: 200 }] });
      expect(await all()).toHaveLength(1);
    });

    it('records a replay of a failed execution', async () => {
      const c = await cron();
      await store().jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 + 10 });
      const [claimed] = (await store().claimDue({ now: T0 + 20, limit: 10, nodeId: 'n', leaseMs: 60_000, misfireThresholdMs: 60_000 })).claimed;
      await store().executionsFinish({ nodeId: 'n', outcomes: [{
        executionId: claimed!.executionId, attempt: 1, status: 'Failed', nextAttemptAt: null, startedAt: T0 + 30, durationMs: 5, statusCode: 500,
        error: 'HTTP 500', responseBody: null,
      }] });
      await store().executionReplay({ id: claimed!.executionId, now: T0 + 100, audit: rec('execution.replay', T0 + 100) });
      const [event] = await all({ action: 'execution.replay' });
      expect(event).toMatchObject({ resourceType: 'execution', resourceId: claimed!.executionId });
      expect(event!.changes.status).toEqual({ before: 'Failed', after: 'Retrying' });
    });

    it('records bulk actions, a replay by filter and a backfill as one event each, and none when nothing changed', async () => {
      const a = await cron({ tags: ['nightly'] });
      await cron({ tags: ['nightly'] });
      await cron({ tags: ['other'] });
      const filter = { tags: ['nightly'], statuses: null, ids: null };
      expect(await store().cronBulk({ filter, action: 'pause', dryRun: true, now: T0, audit: rec('cron.bulk') })).toMatchObject({ count: 2 });
      expect(await all({ action: 'cron.bulk' })).toEqual([]);
      expect(await store().cronBulk({ filter, action: 'pause', dryRun: false, now: T0, audit: rec('cron.bulk') })).toMatchObject({ count: 2 });
      expect(await store().cronBulk({ filter, action: 'pause', dryRun: false, now: T0, audit: rec('cron.bulk') })).toMatchObject({ count: 0 });
      const [bulk, ...rest] = await all({ action: 'cron.bulk' });
      expect(rest).toEqual([]);
      expect(bulk).toMatchObject({ resourceType: 'cronJob', resourceId: '*', changes: { action: { after: 'pause' }, count: { after: 2 } } });
      expect(bulk!.changes.filter).toEqual({ after: filter });

      await schedule({ tags: ['campaign'] });
      await store().scheduleBulk({ filter: { tags: ['campaign'], statuses: null, ids: null }, action: 'delete', dryRun: false, audit: rec('schedule.bulk') });
      expect((await all({ action: 'schedule.bulk' }))[0]).toMatchObject({ resourceType: 'schedule', resourceId: '*', changes: { count: { after: 1 } } });

      const made = await store().cronBackfill({ jobId: a.id, occurrences: [T0 - 7_200_000, T0 - 3_600_000], now: T0 + 1, audit: rec('cron.backfill', T0 + 1) });
      expect(made).toHaveLength(2);
      await store().cronBackfill({ jobId: a.id, occurrences: [T0 - 7_200_000, T0 - 3_600_000], now: T0 + 2, audit: rec('cron.backfill', T0 + 2) });
      const backfills = await all({ action: 'cron.backfill' });
      expect(backfills).toHaveLength(1);
      expect(backfills[0]).toMatchObject({
        resourceType: 'cronJob',
        resourceId: a.id,
        changes: { backfilled: { after: 2 }, firstOccurrence: { after: new Date(T0 - 7_200_000).toISOString() } },
      });

      const replayed = await store().executionsReplay({
        jobType: 'cron', jobId: a.id, from: null, to: null, now: T0 + 3, limit: 100, audit: rec('execution.bulkReplay', T0 + 3),
      });
      expect(replayed).toBe(0);
      expect(await all({ action: 'execution.bulkReplay' })).toEqual([]);
    });

    it('counts failed sign-ins in one event per address and minute', async () => {
      await store().auditAuthFailure({ address: '198.51.100.1', now: T0 + 1_000 });
      await store().auditAuthFailure({ address: '198.51.100.1', now: T0 + 59_999 });
      await store().auditAuthFailure({ address: '198.51.100.2', now: T0 + 2_000 });
      await store().auditAuthFailure({ address: '198.51.100.1', now: T0 + 60_000 });
      const events = await all({ action: 'auth.failure' });
      expect(events.map((e) => [e.resourceId, e.occurredAt, e.changes])).toEqual([
        ['198.51.100.1', T0 + 60_000, { count: { after: 1 } }],
        ['198.51.100.2', T0, { count: { after: 1 } }],
        ['198.51.100.1', T0, { count: { after: 2 } }],
      ]);
      expect(events[0]).toMatchObject({ actor: 'system', resourceType: 'address', sourceAddress: '198.51.100.1' });
    });

    it('filters, pages newest first, and refuses a foreign cursor', async () => {
      const other = { keyId: '0190b0a0-0000-7000-8000-000000000002', keyName: 'ops' };
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const c = await cron({ audit: { ...rec('cron.create', T0 + i * 1_000), ...(i % 2 === 1 && { actor: other }) } });
        ids.push(c.id);
      }
      await store().cronUpdate({ id: ids[0]!, name: 'renamed', audit: rec('cron.update', T0 + 10_000) });
      expect((await all()).map((e) => e.occurredAt)).toEqual([10_000, 4_000, 3_000, 2_000, 1_000, 0].map((d) => T0 + d));
      expect((await all({ actorKeyId: other.keyId })).map((e) => e.resourceId)).toEqual([ids[3], ids[1]]);
      expect((await all({ resourceType: 'cronJob', resourceId: ids[0]! })).map((e) => e.action)).toEqual(['cron.update', 'cron.create']);
      expect((await all({ action: 'cron.update' })).map((e) => e.resourceId)).toEqual([ids[0]]);
      expect((await all({ from: T0 + 1_000, to: T0 + 4_000 })).map((e) => e.occurredAt)).toEqual([T0 + 3_000, T0 + 2_000, T0 + 1_000]);
      expect(await all({ resourceType: 'schedule' })).toEqual([]);
      // Pages of 2 walk the whole list once, newest first.
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await store().auditPage({ ...FILTERS, limit: 2, cursor });
        expect(page.events.length).toBeLessThanOrEqual(2);
        seen.push(...page.events.map((e) => e.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(seen).toEqual((await all()).map((e) => e.id));
      await expect(store().auditPage({ ...FILTERS, cursor: 'nope' })).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('prunes events older than the retention, oldest first, at most limit', async () => {
      for (let i = 0; i < 4; i++) await cron({ audit: rec('cron.create', T0 + i * 1_000) });
      expect(await store().auditPrune({ before: T0 + 2_500, limit: 2 })).toBe(2);
      expect(await store().auditPrune({ before: T0 + 2_500, limit: 2 })).toBe(1);
      expect(await store().auditPrune({ before: T0 + 2_500, limit: 2 })).toBe(0);
      expect((await all()).map((e) => e.occurredAt)).toEqual([T0 + 3_000]);
    });
  });
}
