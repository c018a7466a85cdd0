/**
 * Notification channels (docs/when-calls-fail.md): where Punctual tells people that calls fail,
 * succeed again, or that a cron job was paused. Types and closed lists only; the rules of which
 * outcome causes which event are in src/store/rules/notifications.ts.
 */

/**
 * The events a channel may subscribe to:
 * - `execution.failed`: an execution ended `Failed` (retries spent, an answer not retried, or 410);
 * - `execution.succeeded`: an execution ended `Succeeded` (off unless a channel asks for it);
 * - `job.recovered`: a job's execution ended `Succeeded` and the job's previous finished execution
 *   (by occurrence) had ended `Failed`;
 * - `cron.auto_paused`: a cron job was paused by Punctual (failures in a row, or 410 Gone).
 */
export const NOTIFICATION_EVENTS = ['execution.failed', 'execution.succeeded', 'job.recovered', 'cron.auto_paused'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** How a channel is reached: a signed JSON webhook, or a Slack incoming webhook (Mattermost and Discord accept the same). */
export const CHANNEL_TYPES = ['webhook', 'slack'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** The `type` of a digest message: the events grouped past a channel's rate (docs/when-calls-fail.md). */
export const DIGEST_TYPE = 'notifications.digest';
/** The `type` of the message of `POST /notification-channels/{id}/test`. */
export const TEST_TYPE = 'notifications.test';

/** A notification channel as stored. Instants are epoch ms (UTC). */
export interface NotificationChannel {
  id: string;
  name: string;
  type: ChannelType;
  /** The URL notifications are POSTed to (checked by the SSRF guard at create and at call). */
  url: string;
  /** The subscribed events: not empty, no duplicates, in {@link NOTIFICATION_EVENTS} order. */
  events: NotificationEvent[];
  /** Only these jobs (schedule or cron job ids); null: every job. */
  jobIds: string[] | null;
  createdAt: number;
}

/**
 * One notification of the outbox: an event for one channel, written in the transaction of the
 * outcome that caused it and deleted once sent (or dropped after its last attempt).
 */
export interface OutboxNotification {
  /** Sequence number (unique in the store); the wire id is `ntf_<seq>`. */
  seq: number;
  channelId: string;
  eventType: NotificationEvent;
  jobType: 'schedule' | 'cron';
  jobId: string;
  /** The execution that caused it, or null (an auto-pause given without one). */
  executionId: string | null;
  /** Why a cron job was paused (`cron.auto_paused`), else null. */
  reason: string | null;
  /** Epoch ms (UTC): when the outcome happened. */
  occurredAt: number;
  /** Attempts made so far to send it. */
  attempts: number;
  /** True once grouped into the digest of its channel (sent at `dueAt` with the others). */
  digest: boolean;
}
