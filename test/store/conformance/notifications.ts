/**
 * Conformance of notification channels and the outbox (src/store/contract/notifications.ts, the rule
 * of src/store/rules/notifications.ts), registered inside `exerciseStore` (index.ts), so every
 * store runs them against a fresh, migrated database per test. Time is injected; only the `Store`
 * interface is used.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.js';
import type { NotificationEvent, OutboxNotification } from '../../../src/domain/notifications.js';
import type { AttemptOutcome, ClaimedExecution } from '../../../src/domain/types.js';
import type { Store } from '../../../src/store/store.js';
import { T0 } from './fixtures.js';

const RETRY = { maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 60_000 };
const LEASE = 30_000;
/** Far in the future: every notification written is due by then. */
const LATER = T0 + 86_400_000;

/**
 * Registers the notification tests.
 * @param current the store of the running test (exerciseStore's, made fresh before each test)
 */
export function describeNotifications(current: () => Store): void {
  describe('notification channels and outbox', () => {
    const store = () => current();

    const channel = (events: NotificationEvent[], jobIds: string[] | null = null, o: { name?: string; now?: number } = {}) =>
      store().channelCreate({
        id: newId(),
        name: o.name ?? 'ops',
        type: 'webhook',
        url: 'https://hooks.example.com/punctual',
        events,
        jobIds,
        now: o.now ?? T0,
      });

    const schedule = () =>
      store().scheduleCreate({
        id: newId(),
        name: 'job',
        scheduledAt: T0,
        endpoint: 'https://example.com/hook',
        data: {},
        tags: [],
        retry: RETRY,
        timeoutMs: 1000,
        now: T0 - 60_000,
      });

    const cron = () =>
      store().cronCreate({
        id: newId(),
        expression: '* * * * *',
        name: 'every minute',
        timezone: null,
        endpoint: 'https://example.com/cron',
        data: null,
        nextInvocation: T0,
        retry: RETRY,
        timeoutMs: 1000,
        misfire: 'once',
        overlap: 'allow',
        now: T0 - 60_000,
      });

    const claimAt = async (now: number): Promise<ClaimedExecution[]> =>
      (await store().claimDue({ now, limit: 100, nodeId: 'node-a', leaseMs: LEASE, misfireThresholdMs: 60_000 })).claimed;

    const finish = (c: ClaimedExecution, status: AttemptOutcome['status'], at = c.scheduledFor) =>
      store().executionsFinish({
        nodeId: 'node-a',
        outcomes: [
          {
            executionId: c.executionId,
            attempt: c.attempt,
            status,
            nextAttemptAt: status === 'Retrying' ? at + 1000 : null,
            startedAt: at + 3,
            durationMs: 10,
            statusCode: status === 'Succeeded' ? 200 : 500,
            error: status === 'Succeeded' ? null : 'HTTP 500',
            responseBody: 'x',
            method: 'POST',
            url: c.endpoint,
          },
        ],
      });

    const outbox = async (nodeId = 'reader', now = LATER): Promise<OutboxNotification[]> =>
      store().notificationsClaim({ nodeId, now, limit: 1000, leaseMs: LEASE });

    const summary = (rows: OutboxNotification[]) => rows.map((r) => `${r.channelId}:${r.eventType}:${r.jobId}`).sort();

    it('creates, reads, lists (oldest first), updates and deletes channels', async () => {
      const a = await channel(['job.recovered', 'execution.failed', 'execution.failed'], null, { name: 'a', now: T0 });
      const jobId = newId();
      const b = await channel(['execution.succeeded'], [jobId], { name: 'b', now: T0 + 1 });
      expect(a).toEqual({
        id: a.id,
        name: 'a',
        type: 'webhook',
        url: 'https://hooks.example.com/punctual',
        events: ['execution.failed', 'job.recovered'],
        jobIds: null,
        createdAt: T0,
      });
      expect(b.jobIds).toEqual([jobId]);
      expect(await store().channelGet({ id: a.id })).toEqual(a);
      expect(await store().channelGet({ id: newId() })).toBeNull();
      expect((await store().channelList()).map((c) => c.name)).toEqual(['a', 'b']);

      const renamed = await store().channelUpdate({ id: a.id, name: 'A', type: 'slack', jobIds: [jobId] });
      expect(renamed).toEqual({ ...a, name: 'A', type: 'slack', jobIds: [jobId] });
      expect(await store().channelUpdate({ id: a.id, events: ['cron.auto_paused'], jobIds: null })).toEqual({
        ...a,
        name: 'A',
        type: 'slack',
        events: ['cron.auto_paused'],
        jobIds: null,
      });
      expect(await store().channelUpdate({ id: a.id })).toMatchObject({ name: 'A', jobIds: null });
      expect(await store().channelUpdate({ id: newId(), name: 'x' })).toBeNull();

      expect(await store().channelDelete({ id: a.id })).toBe(true);
      expect(await store().channelDelete({ id: a.id })).toBe(false);
      expect((await store().channelList()).map((c) => c.id)).toEqual([b.id]);
    });

    it('writes nothing when no channel exists', async () => {
      const s = await schedule();
      const [c] = await claimAt(T0);
      await finish(c!, 'Failed');
      expect(c!.jobId).toBe(s.id);
      expect(await outbox()).toEqual([]);
    });

    it('a failed execution notifies the channels that want execution.failed for its job, in the finish transaction', async () => {
      const s1 = await schedule();
      const s2 = await schedule();
      const all = await channel(['execution.failed']);
      const onlyS2 = await channel(['execution.failed', 'execution.succeeded'], [s2.id]);
      const successes = await channel(['execution.succeeded']);
      const claimed = await claimAt(T0);
      expect(claimed).toHaveLength(2);
      for (const c of claimed) await finish(c, 'Failed');
      const rows = await outbox();
      expect(summary(rows)).toEqual(
        [`${all.id}:execution.failed:${s1.id}`, `${all.id}:execution.failed:${s2.id}`, `${onlyS2.id}:execution.failed:${s2.id}`].sort(),
      );
      const row = rows.find((r) => r.jobId === s1.id)!;
      const c1 = claimed.find((c) => c.jobId === s1.id)!;
      expect(row).toEqual({
        seq: row.seq,
        channelId: all.id,
        eventType: 'execution.failed',
        jobType: 'schedule',
        jobId: s1.id,
        executionId: c1.executionId,
        reason: null,
        occurredAt: T0 + 13,
        attempts: 0,
        digest: false,
      });
      expect(successes.events).toEqual(['execution.succeeded']);
    });

    it('a retry causes nothing; a success causes execution.succeeded only for channels that ask', async () => {
      await schedule();
      const ch = await channel(['execution.succeeded']);
      await channel(['execution.failed']);
      const [c] = await claimAt(T0);
      await finish(c!, 'Retrying');
      expect(await outbox()).toEqual([]);
      const [again] = await claimAt(T0 + 2000);
      await finish(again!, 'Succeeded', T0 + 2000);
      const rows = await outbox();
      expect(summary(rows)).toEqual([`${ch.id}:execution.succeeded:${c!.jobId}`]);
      expect(rows[0]!.occurredAt).toBe(T0 + 2013);
    });

    it('job.recovered: the first success after a failure, by occurrence; not a success after a success', async () => {
      const job = await cron();
      const ch = await channel(['job.recovered']);
      const run = async (minute: number, status: AttemptOutcome['status']) => {
        const [c] = await claimAt(T0 + minute * 60_000);
        expect(c!.jobId).toBe(job.id);
        await finish(c!, status);
      };
      await run(0, 'Succeeded');
      expect(await outbox()).toEqual([]);
      await run(1, 'Failed');
      await run(2, 'Failed');
      expect(await outbox()).toEqual([]);
      await run(3, 'Succeeded');
      const rows = await outbox();
      expect(summary(rows)).toEqual([`${ch.id}:job.recovered:${job.id}`]);
      expect(rows[0]!.jobType).toBe('cron');
      await store().notificationsSettle({ nodeId: 'reader', done: rows.map((r) => r.seq), later: [] });
      await run(4, 'Succeeded');
      expect(await outbox()).toEqual([]);
    });

    it('cron.auto_paused: written for the channels that want it, with the reason', async () => {
      const job = await cron();
      const other = newId();
      const ch = await channel(['cron.auto_paused'], [job.id]);
      await channel(['execution.failed']);
      const executionId = newId();
      const n = await store().notificationsRecordPaused({
        paused: [
          { jobId: job.id, reason: '410 Gone', executionId },
          { jobId: other, reason: '5 consecutive failures' },
        ],
        now: T0 + 5,
      });
      expect(n).toBe(1);
      const rows = await outbox();
      expect(rows).toEqual([
        {
          seq: rows[0]!.seq,
          channelId: ch.id,
          eventType: 'cron.auto_paused',
          jobType: 'cron',
          jobId: job.id,
          executionId,
          reason: '410 Gone',
          occurredAt: T0 + 5,
          attempts: 0,
          digest: false,
        },
      ]);
      expect(await store().notificationsRecordPaused({ paused: [], now: T0 })).toBe(0);
    });

    it('claims lease rows: due ones only, one holder at a time, until settled or expired', async () => {
      const job = await cron();
      const ch = await channel(['cron.auto_paused']);
      await store().notificationsRecordPaused({ paused: [{ jobId: job.id, reason: 'a' }], now: T0 });
      await store().notificationsRecordPaused({ paused: [{ jobId: job.id, reason: 'b' }], now: T0 + 10 });
      expect(await store().notificationsClaim({ nodeId: 'n1', now: T0 - 1, limit: 10, leaseMs: LEASE })).toEqual([]);
      const first = await store().notificationsClaim({ nodeId: 'n1', now: T0, limit: 10, leaseMs: LEASE });
      expect(first.map((r) => r.reason)).toEqual(['a']);
      const both = await store().notificationsClaim({ nodeId: 'n2', now: T0 + 10, limit: 10, leaseMs: LEASE });
      expect(both.map((r) => r.reason)).toEqual(['b']); // 'a' is leased to n1
      // A settle by a node that does not hold the lease changes nothing.
      await store().notificationsSettle({ nodeId: 'n2', done: [first[0]!.seq], later: [] });
      // n1's lease expires: another node takes 'a' over.
      const taken = await store().notificationsClaim({ nodeId: 'n3', now: T0 + LEASE, limit: 10, leaseMs: LEASE });
      expect(taken.map((r) => r.reason)).toEqual(['a']);
      await store().notificationsSettle({ nodeId: 'n1', done: [first[0]!.seq], later: [] }); // n1 lost it: nothing
      await store().notificationsSettle({
        nodeId: 'n3',
        done: [],
        later: [{ seq: taken[0]!.seq, dueAt: T0 + 100_000, attempts: 1, digest: true }],
      });
      await store().notificationsSettle({ nodeId: 'n2', done: [both[0]!.seq], later: [] });
      expect(await store().notificationsClaim({ nodeId: 'n4', now: T0 + 99_999, limit: 10, leaseMs: LEASE })).toEqual([]);
      const again = await store().notificationsClaim({ nodeId: 'n4', now: T0 + 100_000, limit: 10, leaseMs: LEASE });
      expect(again).toEqual([{ ...taken[0]!, attempts: 1, digest: true }]);
      expect(again[0]!.channelId).toBe(ch.id);
    });

    it('deleting a channel deletes its notifications not yet sent', async () => {
      const job = await cron();
      const gone = await channel(['cron.auto_paused']);
      const kept = await channel(['cron.auto_paused']);
      await store().notificationsRecordPaused({ paused: [{ jobId: job.id, reason: 'r' }], now: T0 });
      expect(await store().channelDelete({ id: gone.id })).toBe(true);
      expect((await outbox()).map((r) => r.channelId)).toEqual([kept.id]);
    });
  });
}
