/**
 * PostgreSQL's notification channels and outbox (src/store/contract/notifications.ts); the rules and
 * the outbox inserts shared with SQLite are in store/rules/notifications.ts. The finish statement's
 * own insert is a CTE of `finishSql` (executions.ts).
 */
import type { NotificationChannel, OutboxNotification } from '../../../domain/notifications.js';
import * as rules from '../../rules/notifications.js';
import type { ChannelCreateParams, ChannelUpdateParams, OutboxLater, PausedJob } from '../../contract/notifications.js';
import type { PgContext, Sql } from '../connection.js';
import type { Operations } from '../../sql-store.js';

const C = rules.CHANNEL_COLUMNS;

/**
 * The INSERT of `cron.auto_paused` notifications (`pausedOutboxSql`) for the jobs of the arrays
 * `$1` (job ids), `$2` (reasons), `$3` (execution ids or nulls), paused at `$4` (epoch ms). An
 * auto-pause may run the same SQL as a CTE of its own statement, with its own relation.
 */
export const PAUSED_OUTBOX_SQL = rules.pausedOutboxSql(
  `(SELECT u.job_id, u.reason, u.execution_id, $4::bigint AS occurred_at
      FROM unnest($1::text[], $2::text[], $3::text[]) AS u(job_id, reason, execution_id))`,
);

/** The `notification_channels` and `notification_outbox` tables. Each method is one statement unless said. */
export const notifications = {
  async create(sql: Sql, p: ChannelCreateParams): Promise<NotificationChannel> {
    const [r] = await sql.rows<rules.ChannelRow>(
      `INSERT INTO notification_channels (${C}) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${C}`,
      [p.id, p.name, p.type, p.url, rules.listToColumn(rules.normalEvents(p.events)), p.jobIds === null ? null : rules.listToColumn(p.jobIds), Math.floor(p.now)],
    );
    return rules.channelFromRow(r!);
  },

  async get(sql: Sql, id: string): Promise<NotificationChannel | null> {
    const [r] = await sql.rows<rules.ChannelRow>(`SELECT ${C} FROM notification_channels WHERE id = $1`, [id]);
    return r ? rules.channelFromRow(r) : null;
  },

  async list(sql: Sql): Promise<NotificationChannel[]> {
    return (await sql.rows<rules.ChannelRow>(`SELECT ${C} FROM notification_channels ORDER BY created_at, id`)).map(rules.channelFromRow);
  },

  async update(sql: Sql, p: ChannelUpdateParams): Promise<NotificationChannel | null> {
    const [r] = await sql.rows<rules.ChannelRow>(
      `UPDATE notification_channels SET name = coalesce($2, name), type = coalesce($3, type), url = coalesce($4, url),
              events = coalesce($5, events), job_ids = CASE WHEN $6::boolean THEN $7::text ELSE job_ids END
        WHERE id = $1 RETURNING ${C}`,
      [
        p.id,
        p.name ?? null,
        p.type ?? null,
        p.url ?? null,
        p.events === undefined ? null : rules.listToColumn(rules.normalEvents(p.events)),
        p.jobIds !== undefined,
        p.jobIds == null ? null : rules.listToColumn(p.jobIds),
      ],
    );
    return r ? rules.channelFromRow(r) : null;
  },

  /** The channel and its outbox rows, in one statement. */
  async delete(sql: Sql, id: string): Promise<boolean> {
    const [r] = await sql.rows<{ n: string }>(
      `WITH o AS (DELETE FROM notification_outbox WHERE channel_id = $1)
       , c AS (DELETE FROM notification_channels WHERE id = $1 RETURNING 1)
       SELECT count(*) AS n FROM c`,
      [id],
    );
    return Number(r?.n ?? 0) > 0;
  },

  async recordPaused(sql: Sql, paused: readonly PausedJob[], now: number): Promise<number> {
    if (paused.length === 0) return 0;
    return sql.count(PAUSED_OUTBOX_SQL, [
      paused.map((p) => p.jobId),
      paused.map((p) => p.reason),
      paused.map((p) => p.executionId ?? null),
      Math.floor(now),
    ]);
  },

  /** SKIP LOCKED: claimers on several nodes never wait for one another nor take the same row. */
  async claim(sql: Sql, p: { nodeId: string; now: number; limit: number; leaseMs: number }): Promise<OutboxNotification[]> {
    const now = Math.floor(p.now);
    const rows = await sql.rows<rules.OutboxRow>(
      `UPDATE notification_outbox SET lease_owner = $1, lease_expires_at = $3
        WHERE seq IN (SELECT seq FROM notification_outbox
                       WHERE due_at <= $2 AND (lease_expires_at IS NULL OR lease_expires_at <= $2)
                       ORDER BY due_at, seq LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING ${rules.OUTBOX_COLUMNS}`,
      [p.nodeId, now, now + Math.ceil(p.leaseMs), Math.max(1, Math.floor(p.limit))],
      'punctual_notifications_claim',
    );
    return rows.map(rules.outboxFromRow).sort((a, b) => a.seq - b.seq);
  },

  /** One statement: the deletes and the updates as CTEs. */
  async settle(sql: Sql, nodeId: string, done: readonly number[], later: readonly OutboxLater[]): Promise<void> {
    if (done.length + later.length === 0) return;
    await sql.rows(
      `WITH d AS (DELETE FROM notification_outbox WHERE seq = ANY($2::bigint[]) AND lease_owner = $1),
       u AS (
         UPDATE notification_outbox o SET due_at = l.due_at, attempts = l.attempts, digest = l.digest,
                lease_owner = NULL, lease_expires_at = NULL
           FROM unnest($3::bigint[], $4::bigint[], $5::int[], $6::int[]) AS l(seq, due_at, attempts, digest)
          WHERE o.seq = l.seq AND o.lease_owner = $1)
       SELECT 1`,
      [
        nodeId,
        done,
        later.map((l) => l.seq),
        later.map((l) => Math.ceil(l.dueAt)),
        later.map((l) => l.attempts),
        later.map((l) => (l.digest ? 1 : 0)),
      ],
      'punctual_notifications_settle',
    );
  },
};

/** The store operations of notification channels and the outbox (store/sql-store.ts). */
export const notificationOperations = {
  channelCreate: (c, p) => notifications.create(c.sql, p),
  channelGet: (c, p) => notifications.get(c.sql, p.id),
  channelList: (c) => notifications.list(c.sql),
  channelUpdate: (c, p) => notifications.update(c.sql, p),
  channelDelete: (c, p) => notifications.delete(c.sql, p.id),
  notificationsRecordPaused: (c, p) => notifications.recordPaused(c.sql, p.paused, p.now),
  notificationsClaim: (c, p) => notifications.claim(c.sql, p),
  notificationsSettle: async (c, p) => {
    await notifications.settle(c.sql, p.nodeId, p.done, p.later);
  },
} satisfies Partial<Operations<PgContext>>;
