/**
 * The notifier: a small loop beside the claim loop that empties the outbox of notifications
 * (docs/when-calls-fail.md). Each pass claims due notifications with a lease
 * (`Store.notificationsClaim`), so two nodes never send the same one at once, sends them, and
 * settles them (`Store.notificationsSettle`): sent ones are deleted; failed ones are tried again
 * with backoff, then dropped and logged (a notification's failure is never an event). A node
 * killed mid-pass loses nothing: the rows stay, and their leases expire. At-least-once: a message
 * sent just before a crash is sent again; receivers deduplicate by `webhook-id`.
 *
 * Grouping: at most `maxPerMinute` messages per channel per minute (a window opened by the first
 * message); past that, notifications are grouped, due at the end of the window, and sent then as
 * one digest (at most one a window). The windows are this node's own.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { NotificationChannel, OutboxNotification } from '../../domain/notifications.js';
import type { Store } from '../../store/store.js';
import type { OutboxLater } from '../../store/contract/notifications.js';
import { digestMessage, eventMessage, type EventSubject, type NotificationWire, type OutgoingMessage } from './messages.js';
import type { NotificationSender, SendResult } from './sender.js';
import { TimerLoop } from '../timer-loop.js';

/** The store operations the notifier uses (the main store: the API's connection on SQLite). */
export type NotifierStore = Pick<Store, 'notificationsClaim' | 'notificationsSettle' | 'channelList' | 'executionGet' | 'scheduleGet' | 'cronGet'>;

/** The length of a grouping window (ms). */
export const WINDOW_MS = 60_000;

/** Options of {@link Notifier}. */
export interface NotifierOptions {
  store: NotifierStore;
  sender: NotificationSender;
  wire: NotificationWire;
  /** Lease owner: the node's id. */
  nodeId: string;
  /** Epoch ms now: the dispatcher's time (the store's clock on PostgreSQL). Injected by tests. */
  now: () => number;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** `PUNCTUAL_NOTIFY_MAX_PER_MINUTE`: messages per channel per window (default 10). */
  maxPerMinute?: number;
  /** `PUNCTUAL_PUBLIC_URL` without its trailing slash, for console links, or null. */
  publicUrl?: string | null;
  /** Pause between passes that found less than a full batch (ms; default 1,000). */
  pollMs?: number;
  /** Notifications claimed per pass (default 500): a digest carries at most this many. */
  batch?: number;
  /** Attempts of one message before it is dropped (default 8). */
  maxAttempts?: number;
  /** Backoff: the first retry after about this many ms, doubling, ±20 % jitter (default 5,000). */
  retryBaseMs?: number;
  /** Backoff: at most this many ms between attempts (default 600,000). */
  retryMaxMs?: number;
}

/**
 * What the notifier tells (for metrics): `notify:sent` (a message delivered), `notify:failed` (a
 * message dropped after its last attempt, with how many notifications it carried),
 * `notify:grouped` (notifications grouped into a digest); each with the channel's type.
 */
export interface NotifierEvents {
  'notify:sent': [{ channelType: string }];
  'notify:failed': [{ channelType: string; notifications: number }];
  'notify:grouped': [{ channelType: string; notifications: number }];
}

/** One channel's window: when it opened, messages sent in it, whether its digest went. */
interface Window {
  start: number;
  sent: number;
  digestSent: boolean;
}

/** The notifier loop (see above). */
export class Notifier {
  readonly events = new EventEmitter<NotifierEvents>();
  private readonly windows = new Map<string, Window>();
  private readonly loop = new TimerLoop(() => this.loggedPass());
  private readonly max: number;
  private readonly batch: number;
  private readonly maxAttempts: number;

  constructor(private readonly opts: NotifierOptions) {
    this.max = opts.maxPerMinute ?? 10;
    this.batch = opts.batch ?? 500;
    this.maxAttempts = opts.maxAttempts ?? 8;
  }

  /** Starts the loop. */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for the pass in progress. Unsent notifications stay in the outbox. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * One pass: claims up to a batch of due notifications, sends them, settles them.
   * @returns how many were claimed
   * @throws StoreUnavailableError when the store fails (the loop logs it and tries again)
   */
  async pass(): Promise<number> {
    const { store, nodeId } = this.opts;
    const now = this.opts.now();
    // The sends of a pass run side by side, each within the timeout: twice it plus 5 s covers the pass.
    const leaseMs = 2 * this.opts.sender.timeoutMs + 5_000;
    const rows = await store.notificationsClaim({ nodeId, now, limit: this.batch, leaseMs });
    if (rows.length === 0) return 0;
    const channels = new Map((await store.channelList()).map((c) => [c.id, c]));
    const done: number[] = [];
    const later: OutboxLater[] = [];
    const sends: Promise<void>[] = [];
    const byChannel = new Map<string, OutboxNotification[]>();
    for (const r of rows) byChannel.set(r.channelId, [...(byChannel.get(r.channelId) ?? []), r]);
    for (const [channelId, list] of byChannel) {
      const channel = channels.get(channelId);
      if (!channel) {
        done.push(...list.map((r) => r.seq)); // deleted meanwhile
        continue;
      }
      const w = this.window(channelId, now);
      const grouped = list.filter((r) => r.digest);
      if (grouped.length > 0) {
        if (w.digestSent) later.push(...grouped.map((r) => ({ seq: r.seq, dueAt: w.start + WINDOW_MS, attempts: r.attempts, digest: true })));
        else {
          w.digestSent = true;
          w.sent++;
          sends.push(this.deliver(channel, grouped, digestMessage(channel, grouped, now), now, done, later));
        }
      }
      let newlyGrouped = 0;
      for (const r of list.filter((x) => !x.digest)) {
        if (w.sent < this.max) {
          w.sent++;
          sends.push(this.subject(r).then((s) => this.deliver(channel, [r], eventMessage(channel, s, this.opts.wire, this.opts.publicUrl ?? null), now, done, later)));
        } else {
          later.push({ seq: r.seq, dueAt: w.start + WINDOW_MS, attempts: r.attempts, digest: true });
          newlyGrouped++;
        }
      }
      if (newlyGrouped > 0) this.events.emit('notify:grouped', { channelType: channel.type, notifications: newlyGrouped });
    }
    await Promise.all(sends);
    await store.notificationsSettle({ nodeId, done, later });
    return rows.length;
  }

  /** The channel's window at `now`: a new one once the last is over. */
  private window(channelId: string, now: number): Window {
    let w = this.windows.get(channelId);
    if (!w || now >= w.start + WINDOW_MS) this.windows.set(channelId, (w = { start: now, sent: 0, digestSent: false }));
    return w;
  }

  /** Sends one message carrying `rows`, and says what becomes of them. */
  private async deliver(
    channel: NotificationChannel,
    rows: OutboxNotification[],
    message: OutgoingMessage,
    now: number,
    done: number[],
    later: OutboxLater[],
  ): Promise<void> {
    const result: SendResult = await this.opts.sender.send(channel, message);
    if (result.error === null) {
      done.push(...rows.map((r) => r.seq));
      this.events.emit('notify:sent', { channelType: channel.type });
      return;
    }
    const attempts = Math.max(...rows.map((r) => r.attempts)) + 1;
    if (attempts >= this.maxAttempts) {
      done.push(...rows.map((r) => r.seq));
      this.opts.logger.warn(
        { channelId: channel.id, notificationId: message.id, attempts, statusCode: result.statusCode, error: result.error },
        'notification dropped after its last attempt',
      );
      this.events.emit('notify:failed', { channelType: channel.type, notifications: rows.length });
      return;
    }
    const dueAt = now + this.backoff(attempts);
    for (const r of rows) later.push({ seq: r.seq, dueAt, attempts, digest: r.digest });
  }

  /** The delay before attempt `attempts + 1`: base × 2^(attempts − 1), at most the max, ±20 % jitter. */
  private backoff(attempts: number): number {
    const base = this.opts.retryBaseMs ?? 5_000;
    const capped = Math.min(this.opts.retryMaxMs ?? 600_000, base * 2 ** (attempts - 1));
    return Math.round(capped * (0.8 + 0.4 * Math.random()));
  }

  /** What the notification is about, read now (a deleted job or a pruned execution is null). */
  private async subject(n: OutboxNotification): Promise<EventSubject> {
    const { store } = this.opts;
    const execution = n.executionId === null ? null : await store.executionGet({ id: n.executionId });
    let job: EventSubject['job'] = null;
    if (n.jobType === 'schedule') {
      const value = await store.scheduleGet({ id: n.jobId });
      if (value) job = { type: 'schedule', value };
    } else {
      const value = await store.cronGet({ id: n.jobId });
      if (value) job = { type: 'cron', value };
    }
    return { notification: n, execution, job };
  }

  /** A pass of the loop, its failure logged; the next one at once after a full batch, else after `pollMs`. */
  private async loggedPass(): Promise<number> {
    let next = this.opts.pollMs ?? 1_000;
    try {
      if ((await this.pass()) >= this.batch) next = 0;
    } catch (err) {
      this.opts.logger.error({ err }, 'notifier pass failed; will retry');
    }
    return next;
  }
}
