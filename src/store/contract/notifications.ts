/**
 * The notification operations of a store (docs/when-calls-fail.md): notification channels, and the
 * outbox of notifications. Part of the `Store` contract (store.ts extends
 * {@link NotificationsStore}); the rules shared by both databases are in store/rules/notifications.ts.
 *
 * The outbox is filled inside the transactions that cause its rows (`executionsFinish`; the
 * auto-pause of a cron job through {@link NotificationsStore.notificationsRecordPaused} or the
 * same SQL inside its own transaction), and emptied by the notifier (src/dispatch/notify/notifier.ts),
 * which claims rows with a lease as the dispatcher claims executions, so at most one node sends a
 * row at a time and a node that dies loses nothing: its leases expire. Instants are epoch ms (UTC).
 */
import type { AuditRecord } from '../../domain/audit.js';
import type { ChannelType, NotificationChannel, NotificationEvent, OutboxNotification } from '../../domain/notifications.js';

/**
 * Params of {@link NotificationsStore.channelCreate}: the channel without its `createdAt`, which is
 * `now` (epoch ms, UTC). `events` must not be empty; duplicates are kept once.
 */
export type ChannelCreateParams = Omit<NotificationChannel, 'createdAt'> & { now: number; audit?: AuditRecord };

/** Params of {@link NotificationsStore.channelUpdate}: absent fields keep their values; `jobIds: null` means every job. */
export interface ChannelUpdateParams {
  /** When given, the change writes this audit event in its transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
  id: string;
  name?: string;
  type?: ChannelType;
  url?: string;
  events?: NotificationEvent[];
  jobIds?: string[] | null;
}

/** A cron job paused by Punctual, for {@link NotificationsStore.notificationsRecordPaused}. */
export interface PausedJob {
  jobId: string;
  /** Why (e.g. `5 consecutive failures`, `410 Gone`); shown in the notification. */
  reason: string;
  /** The execution whose outcome paused it, or null. */
  executionId?: string | null;
}

/** What the notifier decides for one claimed row that stays in the outbox. */
export interface OutboxLater {
  seq: number;
  /** Epoch ms (UTC): when it may be claimed again. */
  dueAt: number;
  /** Attempts made so far. */
  attempts: number;
  /** True: grouped into its channel's digest. */
  digest: boolean;
}

export interface NotificationsStore {
  /** Stores a new channel. */
  channelCreate(p: ChannelCreateParams): Promise<NotificationChannel>;
  /** The channel, or null. */
  channelGet(p: { id: string }): Promise<NotificationChannel | null>;
  /** Every channel, oldest first. */
  channelList(): Promise<NotificationChannel[]>;
  /** Partial update; null when no channel has that id. */
  channelUpdate(p: ChannelUpdateParams): Promise<NotificationChannel | null>;
  /** Deletes the channel and its notifications not yet sent; false when no channel had that id. */
  channelDelete(p: { id: string; audit?: AuditRecord }): Promise<boolean>;
  /**
   * Writes a `cron.auto_paused` notification for every channel that wants it for each job of
   * `paused` (the same SQL an auto-pause runs inside its own transaction: store/rules/notifications.ts
   * `pausedOutboxSql`).
   * @param p.now epoch ms (UTC): when the jobs were paused
   * @returns the number of notifications written
   */
  notificationsRecordPaused(p: { paused: PausedJob[]; now: number }): Promise<number>;
  /**
   * Claims up to `limit` notifications due by `now` (`dueAt <= now`) whose lease is free or
   * expired, oldest due first, leasing them to `nodeId` until `now + leaseMs`.
   */
  notificationsClaim(p: { nodeId: string; now: number; limit: number; leaseMs: number }): Promise<OutboxNotification[]>;
  /**
   * Settles claimed notifications still leased to `nodeId`: `done` (sent, or dropped after their
   * last attempt) are deleted; `later` stay, unleased, due again at their `dueAt`. Rows whose
   * lease was taken over are left alone.
   */
  notificationsSettle(p: { nodeId: string; done: number[]; later: OutboxLater[] }): Promise<void>;
}
