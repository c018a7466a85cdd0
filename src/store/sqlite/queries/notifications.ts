/**
 * SQLite's notification channels and outbox (src/store/contract/notifications.ts); the rules and the
 * outbox inserts shared with PostgreSQL are in store/rules/notifications.ts.
 */
import type { NotificationChannel, OutboxNotification } from '../../../domain/notifications.js';
import * as rules from '../../rules/notifications.js';
import type { ChannelCreateParams, ChannelUpdateParams, OutboxLater, PausedJob } from '../../contract/notifications.js';
import type Database from 'better-sqlite3';
import type { Db } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** The parameters of {@link finishedOutboxStatement}: one execution as it ended. */
export interface FinishedRow {
  id: string;
  job_type: string;
  job_id: string;
  status: string;
  finished_at: number | null;
  scheduled_for: number;
}

/**
 * The statement that writes the notifications caused by one finished execution
 * (`finishedOutboxSql` on a one-row relation of named parameters), run by the finish transaction
 * (executions.ts) for each outcome that is not a retry. With no channel it reads an empty table.
 */
export function finishedOutboxStatement(db: Db): Database.Statement<[FinishedRow]> {
  return db.prepare<[FinishedRow]>(
    rules.finishedOutboxSql(
      '(SELECT :id AS id, :job_type AS job_type, :job_id AS job_id, :status AS status, :finished_at AS finished_at, :scheduled_for AS scheduled_for)',
    ),
  );
}

/**
 * The statement that writes `cron.auto_paused` notifications (`pausedOutboxSql`) for `:items`, a
 * JSON array of `{jobId, reason, executionId}`, paused at `:now`. An auto-pause may run it inside
 * its own transaction; {@link NotificationQueries.recordPaused} runs it alone.
 */
export function pausedOutboxStatement(db: Db): Database.Statement<[{ items: string; now: number }]> {
  return db.prepare<[{ items: string; now: number }]>(
    rules.pausedOutboxSql(
      `(SELECT json_extract(value, '$.jobId') AS job_id, json_extract(value, '$.reason') AS reason,
               json_extract(value, '$.executionId') AS execution_id, :now AS occurred_at
          FROM json_each(:items))`,
    ),
  );
}

/** The JSON of {@link pausedOutboxStatement}'s `:items`. */
export function pausedItems(paused: readonly PausedJob[]): string {
  return JSON.stringify(paused.map((p) => ({ jobId: p.jobId, reason: p.reason, executionId: p.executionId ?? null })));
}

/** The `notification_channels` and `notification_outbox` tables: statements prepared once. */
export class NotificationQueries {
  private readonly insert;
  private readonly byId;
  private readonly all;
  private readonly patch;
  private readonly remove;
  private readonly removeOutbox;
  private readonly removeTx;
  private readonly paused;
  private readonly claimStmt;
  private readonly anyDue;
  private readonly doneOne;
  private readonly laterOne;
  private readonly settleTx;

  constructor(db: Db) {
    const C = rules.CHANNEL_COLUMNS;
    this.insert = db.prepare<[rules.ChannelRow], rules.ChannelRow>(
      `INSERT INTO notification_channels (${C}) VALUES (:id, :name, :type, :url, :events, :job_ids, :created_at) RETURNING ${C}`,
    );
    this.byId = db.prepare<[string], rules.ChannelRow>(`SELECT ${C} FROM notification_channels WHERE id = ?`);
    this.all = db.prepare<[], rules.ChannelRow>(`SELECT ${C} FROM notification_channels ORDER BY created_at, id`);
    this.patch = db.prepare<[Record<string, unknown>], rules.ChannelRow>(
      `UPDATE notification_channels SET name = coalesce(:name, name), type = coalesce(:type, type), url = coalesce(:url, url),
              events = coalesce(:events, events), job_ids = CASE WHEN :setJobIds = 1 THEN :job_ids ELSE job_ids END
        WHERE id = :id RETURNING ${C}`,
    );
    this.remove = db.prepare<[string]>('DELETE FROM notification_channels WHERE id = ?');
    this.removeOutbox = db.prepare<[string]>('DELETE FROM notification_outbox WHERE channel_id = ?');
    this.removeTx = db.transaction((id: string) => {
      this.removeOutbox.run(id);
      return this.remove.run(id).changes > 0;
    });
    this.paused = pausedOutboxStatement(db);
    this.claimStmt = db.prepare<[{ node: string; now: number; until: number; limit: number }], rules.OutboxRow>(
      `UPDATE notification_outbox SET lease_owner = :node, lease_expires_at = :until
        WHERE seq IN (SELECT seq FROM notification_outbox
                       WHERE due_at <= :now AND (lease_expires_at IS NULL OR lease_expires_at <= :now)
                       ORDER BY due_at, seq LIMIT :limit)
       RETURNING ${rules.OUTBOX_COLUMNS}`,
    );
    // A read first: the claim is a write, and would take the file's write lock every pass of the
    // notifier even with nothing to send (readers never wait in WAL mode).
    this.anyDue = db.prepare<[{ now: number }], { one: number }>(
      `SELECT 1 AS one FROM notification_outbox
        WHERE due_at <= :now AND (lease_expires_at IS NULL OR lease_expires_at <= :now) LIMIT 1`,
    );
    this.doneOne = db.prepare<[number, string]>('DELETE FROM notification_outbox WHERE seq = ? AND lease_owner = ?');
    this.laterOne = db.prepare<[number, number, number, number, string]>(
      `UPDATE notification_outbox SET due_at = ?, attempts = ?, digest = ?, lease_owner = NULL, lease_expires_at = NULL
        WHERE seq = ? AND lease_owner = ?`,
    );
    this.settleTx = db.transaction((nodeId: string, done: readonly number[], later: readonly OutboxLater[]) => {
      for (const seq of done) this.doneOne.run(seq, nodeId);
      for (const l of later) this.laterOne.run(Math.ceil(l.dueAt), l.attempts, l.digest ? 1 : 0, l.seq, nodeId);
    });
  }

  create(p: ChannelCreateParams): NotificationChannel {
    return rules.channelFromRow(
      this.insert.get({
        id: p.id,
        name: p.name,
        type: p.type,
        url: p.url,
        events: rules.listToColumn(rules.normalEvents(p.events)),
        job_ids: p.jobIds === null ? null : rules.listToColumn(p.jobIds),
        created_at: Math.floor(p.now),
      })!,
    );
  }

  get(id: string): NotificationChannel | null {
    const r = this.byId.get(id);
    return r ? rules.channelFromRow(r) : null;
  }

  list(): NotificationChannel[] {
    return this.all.all().map(rules.channelFromRow);
  }

  update(p: ChannelUpdateParams): NotificationChannel | null {
    const r = this.patch.get({
      id: p.id,
      name: p.name ?? null,
      type: p.type ?? null,
      url: p.url ?? null,
      events: p.events === undefined ? null : rules.listToColumn(rules.normalEvents(p.events)),
      setJobIds: p.jobIds === undefined ? 0 : 1,
      job_ids: p.jobIds == null ? null : rules.listToColumn(p.jobIds),
    });
    return r ? rules.channelFromRow(r) : null;
  }

  /** Deletes the channel and its outbox rows, in one IMMEDIATE transaction. */
  delete(id: string): boolean {
    return this.removeTx.immediate(id);
  }

  recordPaused(paused: readonly PausedJob[], now: number): number {
    if (paused.length === 0) return 0;
    return this.paused.run({ items: pausedItems(paused), now: Math.floor(now) }).changes;
  }

  claim(p: { nodeId: string; now: number; limit: number; leaseMs: number }): OutboxNotification[] {
    const now = Math.floor(p.now);
    if (this.anyDue.get({ now }) === undefined) return [];
    const rows = this.claimStmt.all({ node: p.nodeId, now, until: now + Math.ceil(p.leaseMs), limit: Math.max(1, Math.floor(p.limit)) });
    return rows.map(rules.outboxFromRow).sort((a, b) => a.seq - b.seq);
  }

  /** One IMMEDIATE transaction. */
  settle(nodeId: string, done: readonly number[], later: readonly OutboxLater[]): void {
    if (done.length + later.length > 0) this.settleTx.immediate(nodeId, done, later);
  }
}

/** The store operations of notification channels and the outbox (../../sql-store.ts), on the statements of NotificationQueries. */
export const notificationOperations = {
  channelCreate: (q, p) => q.notifications.create(p),
  channelGet: (q, p) => q.notifications.get(p.id),
  channelList: (q) => q.notifications.list(),
  channelUpdate: (q, p) => q.notifications.update(p),
  channelDelete: (q, p) => q.notifications.delete(p.id),
  notificationsRecordPaused: (q, p) => q.notifications.recordPaused(p.paused, p.now),
  notificationsClaim: (q, p) => q.notifications.claim(p),
  notificationsSettle: (q, p) => { q.notifications.settle(p.nodeId, p.done, p.later); },
} satisfies Partial<Operations<{ notifications: NotificationQueries }>>;
