/*
 * LISTEN/NOTIFY: hints that wake idle nodes when near-term work appears (docs/multinode.md). Only a
 * hint — claiming stays correct without it: a node also re-reads nextDueAt on its own timer, so a
 * lost notification (a dropped LISTEN connection, a node that subscribes late) costs latency, not
 * work.
 *
 * Sending: the writes that create work or move it earlier (scheduleCreate, scheduleUpdate with a
 * new scheduledAt, cronCreate, cronUpdate leaving the job Active, jobTrigger, executionsFinish with
 * a Retrying outcome) call `pg_notify(channel, '<due epoch ms>')` inside their own statement or
 * transaction, so the notification is delivered at COMMIT and never for work that was rolled back.
 * To keep traffic down, only work due within {@link NOTIFY_WINDOW_MS} of the database clock is
 * announced (with clock 'caller' the store has no clock of its own to judge "soon", so every such
 * write notifies; that mode is for tests). PostgreSQL folds identical notifications of one
 * transaction into one.
 *
 * Receiving: one dedicated connection per store (not from the pool: a pooled connection is
 * shared, and LISTEN belongs to a session), opened when the first listener subscribes. When it
 * fails it is opened again with exponential backoff (250 ms doubling to 30 s, with jitter), for
 * ever, and never throws: the error goes to the logger. After a reconnection the listeners are
 * told the store's nextDueAt, standing for whatever was announced while the connection was down.
 *
 * The channel is per schema (notifications are database-wide): `punctual_work` for the `public`
 * schema, `punctual_work_<schema>` otherwise.
 */
import pg from 'pg';
import type { NotifyContext, Sql } from './connection.js';

/** Work due later than this after the database's now is not announced (ms). */
export const NOTIFY_WINDOW_MS = 60_000;

/** Backoff of the LISTEN connection after a failure: first delay and cap (ms). */
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 30_000;

/** The NOTIFY channel of the Punctual tables in schema `scope`. */
export function channelOf(scope: string): string {
  if (scope === 'public') return 'punctual_work';
  const name = `punctual_work_${scope.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
  return name.slice(0, 63); // NAMEDATALEN - 1
}

/** The dependencies of a {@link WorkListener}. */
export interface WorkListenerDeps {
  /** Settings of the dedicated connection (the pool's, without pool settings). */
  config: pg.ClientConfig;
  /** Resolves the channel (needs the schema, which may need a query). */
  channel: () => Promise<string>;
  /** The store's nextDueAt, told to the listeners after a reconnection. */
  nextDueAt: () => Promise<number | null>;
  logger?: { warn(obj: object, msg?: string): void };
}

/** The LISTEN side: one dedicated connection, reconnected for ever, until {@link WorkListener.close}. */
export class WorkListener {
  private readonly listeners = new Set<(dueAtMs: number) => void>();
  private client: pg.Client | undefined;
  private started = false;
  private closed = false;
  private failures = 0;
  private connectedOnce = false;
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  private listening = false;

  constructor(private readonly deps: WorkListenerDeps) {}

  /** Adds a listener, opening the connection on first use. Returns its unsubscribe function. */
  subscribe(listener: (dueAtMs: number) => void): () => void {
    this.listeners.add(listener);
    if (!this.started && !this.closed) {
      this.started = true;
      void this.connect();
    }
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Resolves once LISTEN is active (at once when it is). For tests and start-up ordering; it
   * never rejects, and waits for ever while the database is unreachable.
   */
  ready(): Promise<void> {
    if (this.listening) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends the connection and stops reconnecting. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const c = this.client;
    this.client = undefined;
    this.listening = false;
    if (c) await c.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.deps.config);
    this.client = client;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      if (this.client === client) this.client = undefined;
      this.listening = false;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.failures++;
      this.deps.logger?.warn(
        { err: err instanceof Error ? { message: err.message, code: (err as { code?: unknown }).code } : err, failures: this.failures },
        'PostgreSQL LISTEN connection lost; reconnecting',
      );
      const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(this.failures - 1, 10));
      this.timer = setTimeout(() => void this.connect(), Math.round(delay * (0.5 + Math.random() / 2)));
      this.timer.unref();
    };
    client.on('error', fail);
    client.on('end', () => fail(new Error('connection ended')));
    try {
      const channel = await this.deps.channel();
      client.on('notification', (msg) => {
        if (msg.channel !== channel) return;
        const due = Number(msg.payload);
        if (Number.isFinite(due)) this.emit(due);
      });
      await client.connect();
      await client.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
    } catch (err) {
      fail(err);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.failures = 0;
    this.listening = true;
    for (const w of this.waiters.splice(0)) w();
    if (this.connectedOnce) {
      // Notifications sent while the connection was down are lost: the next due instant stands for them.
      this.deps
        .nextDueAt()
        .then((due) => {
          if (due !== null) this.emit(due);
        })
        .catch(() => undefined);
    }
    this.connectedOnce = true;
  }

  private emit(dueAtMs: number): void {
    for (const l of [...this.listeners]) {
      try {
        l(dueAtMs);
      } catch (err) {
        this.deps.logger?.warn({ err }, 'a work listener threw');
      }
    }
  }
}

/**
 * SQL of an expression that sends the notification for work due at the bigint SQL expression
 * `due` on the channel in parameter `channelParam`, when it is due within the window (clock
 * 'database') or always (clock 'caller'). Evaluates to the number of notifications sent (0 or 1),
 * so it can sit in a SELECT list, which also makes PostgreSQL evaluate it.
 */
export function notifySql(due: string, channelParam: string, clock: 'database' | 'caller'): string {
  const cond =
    clock === 'database'
      ? `(${due}) IS NOT NULL AND (${due}) <= floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + ${NOTIFY_WINDOW_MS}`
      : `(${due}) IS NOT NULL`;
  return `(SELECT count(*) FROM (SELECT pg_notify(${channelParam}::text, (${due})::text) WHERE ${cond}) AS n)`;
}

/**
 * The schema holding a store's tables: the `schema` URL parameter, else the session's
 * `current_schema()` (asked once, asked again after a failure). It scopes the advisory locks
 * (connection.ts `lockKeySql`) and names the NOTIFY channel ({@link channelOf}).
 */
export class SchemaScope {
  private asked: Promise<string> | undefined;

  constructor(
    private readonly schema: string | null,
    private readonly sql: Sql,
    private readonly clock: 'database' | 'caller',
  ) {}

  /**
   * The schema's name.
   * @throws Error when the search_path names no existing schema (or the database's error)
   */
  scope(): Promise<string> {
    if (this.schema !== null) return Promise.resolve(this.schema);
    this.asked ??= this.sql.rows<{ s: string | null }>('SELECT current_schema() AS s').then(
      ([r]) => {
        if (!r?.s) throw new Error('The PostgreSQL search_path names no existing schema: create it, or use the schema URL parameter.');
        return r.s;
      },
      (err: unknown) => {
        this.asked = undefined; // ask again next time
        throw err;
      },
    );
    return this.asked;
  }

  /** What the statements that write due work need: the NOTIFY channel and the clock mode. */
  async notifyContext(): Promise<NotifyContext> {
    return { channel: channelOf(await this.scope()), clock: this.clock };
  }
}
