/**
 * The rules of notifications shared by both databases (docs/when-calls-fail.md): which events an
 * outcome causes, how a channel's lists are stored and matched, and the SQL, valid in SQLite and
 * PostgreSQL alike, that writes the outbox inside the transaction of the outcome. Pure: no clock,
 * no connection.
 *
 * Which events an outcome causes ({@link outcomeEvents}):
 * - an execution that ends `Failed` causes `execution.failed`;
 * - one that ends `Succeeded` causes `execution.succeeded`, and `job.recovered` when the job's
 *   previous finished execution — the newest of its executions before this one in occurrence order
 *   (`scheduledFor`, then id) that ended `Succeeded` or `Failed`; `Skipped` ones and those not
 *   finished are passed over — ended `Failed`;
 * - `Retrying` and `Skipped` cause nothing;
 * - a cron job paused by Punctual causes `cron.auto_paused` ({@link pausedOutboxSql}).
 * A channel receives an event when it lists it in `events` and its `jobIds` is null or holds the job.
 * The SQL of {@link finishedOutboxSql} is the same rule; the conformance suite holds both stores to it.
 */
import { NOTIFICATION_EVENTS, type ChannelType, type NotificationChannel, type NotificationEvent, type OutboxNotification } from '../../domain/notifications.js';
import type { ExecutionStatus } from '../../domain/types.js';

/**
 * The events an execution's outcome causes (see above).
 * @param status the status the execution ended with
 * @param previous the status of the job's previous finished execution (`Succeeded` or `Failed`), or null
 */
export function outcomeEvents(status: ExecutionStatus, previous: 'Succeeded' | 'Failed' | null): NotificationEvent[] {
  if (status === 'Failed') return ['execution.failed'];
  if (status !== 'Succeeded') return [];
  return previous === 'Failed' ? ['execution.succeeded', 'job.recovered'] : ['execution.succeeded'];
}

/**
 * A list stored as one text, each item between commas (`,a,b,`), so that "holds x" is
 * `column LIKE '%,x,%'` in both databases. Items never contain a comma (events are a closed list,
 * job ids are UUIDs).
 */
export function listToColumn(items: readonly string[]): string {
  return `,${items.join(',')},`;
}

/** The items of a {@link listToColumn} text. */
export function columnToList(text: string): string[] {
  return text.split(',').filter((s) => s !== '');
}

/** The events of a channel as stored: once each, in {@link NOTIFICATION_EVENTS} order. */
export function normalEvents(events: readonly NotificationEvent[]): NotificationEvent[] {
  return NOTIFICATION_EVENTS.filter((e) => events.includes(e));
}

/** Columns of `notification_channels`, in the order of {@link ChannelRow}. */
export const CHANNEL_COLUMNS = 'id, name, type, url, events, job_ids, created_at';

/** A row of `notification_channels`. */
export interface ChannelRow {
  id: string;
  name: string;
  type: ChannelType;
  url: string;
  events: string;
  job_ids: string | null;
  created_at: number | string;
}

/** The channel of a row (PostgreSQL's bigint may arrive as a string). */
export function channelFromRow(r: ChannelRow): NotificationChannel {
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    url: r.url,
    events: columnToList(r.events) as NotificationEvent[],
    jobIds: r.job_ids === null ? null : columnToList(r.job_ids),
    createdAt: Number(r.created_at),
  };
}

/** Columns of `notification_outbox` read by a claim, in the order of {@link OutboxRow}. */
export const OUTBOX_COLUMNS = 'seq, channel_id, event_type, job_type, job_id, execution_id, reason, occurred_at, attempts, digest';

/** A row of `notification_outbox` (bigints may arrive as strings from PostgreSQL). */
export interface OutboxRow {
  seq: number | string;
  channel_id: string;
  event_type: NotificationEvent;
  job_type: 'schedule' | 'cron';
  job_id: string;
  execution_id: string | null;
  reason: string | null;
  occurred_at: number | string;
  attempts: number;
  digest: number;
}

/** The notification of a row. */
export function outboxFromRow(r: OutboxRow): OutboxNotification {
  return {
    seq: Number(r.seq),
    channelId: r.channel_id,
    eventType: r.event_type,
    jobType: r.job_type,
    jobId: r.job_id,
    executionId: r.execution_id,
    reason: r.reason,
    occurredAt: Number(r.occurred_at),
    attempts: Number(r.attempts),
    digest: Number(r.digest) === 1,
  };
}

/** The columns an outbox insert gives (the others take their defaults). */
const OUTBOX_INSERT = 'INSERT INTO notification_outbox (channel_id, event_type, job_type, job_id, execution_id, reason, occurred_at, due_at)';

/** `c` (a channel) wants `event` for the job `jobId` (an SQL expression). */
function wants(event: NotificationEvent, jobId: string): string {
  return `c.events LIKE '%,${event},%' AND (c.job_ids IS NULL OR c.job_ids LIKE '%,' || ${jobId} || ',%')`;
}

/**
 * The INSERT that writes the notifications caused by finished executions (the rule above), valid
 * in both dialects. `finished` is a relation (a table name or a parenthesised SELECT) with the
 * columns `id`, `job_type`, `job_id`, `status`, `finished_at` and `scheduled_for` of executions as
 * they ended; rows still `Retrying` cause nothing. Each branch is a join with
 * `notification_channels`, all under a one-time check that a channel exists: with no channel, the
 * statement reads one empty table once and writes nothing (the cost of the finish is unchanged).
 * The previous finished execution of `job.recovered` is a backward walk of `executions_by_job`,
 * only for a channel that wants the event.
 */
export function finishedOutboxSql(finished: string): string {
  const from = `FROM notification_channels c, ${finished} f`;
  const values = (event: NotificationEvent) =>
    `SELECT c.id, '${event}', f.job_type, f.job_id, f.id, CAST(NULL AS TEXT), f.finished_at, f.finished_at`;
  // The uncorrelated EXISTS is a one-time filter (evaluated once per statement in both
  // databases): with no channel, no branch runs at all, not even a scan of the finished rows.
  return `${OUTBOX_INSERT}
SELECT * FROM (
${values('execution.failed')} ${from}
 WHERE f.status = 'Failed' AND ${wants('execution.failed', 'f.job_id')}
UNION ALL
${values('execution.succeeded')} ${from}
 WHERE f.status = 'Succeeded' AND ${wants('execution.succeeded', 'f.job_id')}
UNION ALL
${values('job.recovered')} ${from}
 WHERE f.status = 'Succeeded' AND ${wants('job.recovered', 'f.job_id')}
   AND (SELECT p.status FROM executions p
         WHERE p.job_type = f.job_type AND p.job_id = f.job_id AND (p.scheduled_for, p.id) < (f.scheduled_for, f.id)
           AND p.status IN ('Succeeded', 'Failed')
         ORDER BY p.scheduled_for DESC, p.id DESC LIMIT 1) = 'Failed'
) x WHERE EXISTS (SELECT 1 FROM notification_channels)`;
}

/**
 * The INSERT that writes `cron.auto_paused` notifications, valid in both dialects. `paused` is a
 * relation with the columns `job_id`, `reason`, `execution_id` (or null) and `occurred_at` (epoch
 * ms), one row per cron job paused; an auto-pause inside the finish transaction runs it on the jobs
 * it paused. A join with `notification_channels`, as {@link finishedOutboxSql}.
 */
export function pausedOutboxSql(paused: string): string {
  return `${OUTBOX_INSERT}
SELECT c.id, 'cron.auto_paused', 'cron', p.job_id, p.execution_id, p.reason, p.occurred_at, p.occurred_at
  FROM notification_channels c, ${paused} p
 WHERE ${wants('cron.auto_paused', 'p.job_id')}`;
}

