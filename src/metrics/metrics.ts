/**
 * The metrics of one running server, with prom-client: one `Registry` per server
 * (never prom-client's global one), so several servers in one process (the tests) keep their
 * series apart. The series, their labels and units are listed in docs/metrics.md; names
 * follow the Prometheus conventions (`punctual_` prefix, base units: seconds, `_total` counters).
 *
 * Where the values come from, without touching the code that makes them:
 *  - dispatch: the dispatcher's typed events (`dispatch:delivered`, `dispatch:error`,
 *    `dispatch:secret-failed`) and its
 *    `callsInFlight` and `hungCallsInFlight` getters ({@link ServerMetrics.watchDispatcher});
 *  - due work: `Store.dueCount`, asked at each scrape ({@link ServerMetrics.watchDueWork});
 *  - executions waiting for a retry: `Store.executionRetryingCount`, asked at each scrape
 *    ({@link ServerMetrics.watchRetrying});
 *  - HTTP: `observeRequest`, called by the HTTP layer's `onResponse` hook (src/http/metrics.ts);
 *  - store: `observeStoreOperation`, called by the timing decorator (store-timing.ts);
 *  - process: prom-client's default metrics (process-metrics.ts), shared by the process.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { flowControlDeliveries } from './flow-control.js';
import { JOB_TYPES } from '../domain/enums.js';
import type { DeliveredEvent, DispatcherEvents } from '../dispatch/events.js';
import type { NotifierEvents } from '../dispatch/notify/notifier.js';
import type { EventEmitter } from 'node:events';
import type { SecretDecryptError, SecretFailureReason } from '../secrets/errors.js';
import type { AutoPause, AutoPauseKind } from '../store/rules/outcome.js';
import type { DueCounts, RetryingCounts } from '../store/store.js';
import { attemptLabels } from './attempts.js';
import { processRegistry } from './process-metrics.js';

/** Buckets of the lateness histogram (s): 1 ms to 60 s. */
export const LATENESS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Buckets of HTTP request and store operation durations (s): 0.5 ms to 10 s. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Buckets of outgoing call durations (s): 5 ms to 15 min (the longest `timeoutMs`). */
export const ATTEMPT_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

/**
 * Each source of `punctual_due_unclaimed` is counted up to this many items, so a scrape costs
 * at most four bounded index reads however large the backlog (`Store.dueCount`).
 */
export const DUE_COUNT_LIMIT = 10_000;

const DUE_SOURCES: readonly (keyof DueCounts)[] = ['schedule', 'cron', 'waiting', 'lease'];

const SECRET_FAILURE_REASONS: readonly SecretFailureReason[] = ['key_missing', 'tampered'];

/** What {@link ServerMetrics.watchNotifier} reads of the notifier (src/dispatch/notify/notifier.ts). */
export interface WatchedNotifier {
  events: Pick<EventEmitter<NotifierEvents>, 'on' | 'off'>;
}

/** What {@link ServerMetrics.watchDispatcher} reads of the dispatcher. */
export interface WatchedDispatcher {
  readonly events: DispatcherEvents;
  readonly callsInFlight: number;
  /** Of those, the calls to hung endpoints, sent from the slow lane's thread (slow-lane.ts). */
  readonly hungCallsInFlight: number;
}

/** What {@link ServerMetrics.watchDueWork} asks of the store. */
export interface DueWorkSource {
  dueCount(p: { now: number; limit: number }): Promise<DueCounts>;
}

/** What {@link ServerMetrics.watchRetrying} asks of the store. */
export interface RetryingSource {
  executionRetryingCount(p: { limit: number }): Promise<RetryingCounts>;
}

/** Options of {@link ServerMetrics}. */
export interface ServerMetricsOptions {
  /** The service's version, for `punctual_build_info`. */
  version: string;
  /** The node's role (`all`, `api`, `dispatcher`), for `punctual_build_info`. */
  role: string;
}

/**
 * The metrics of one server. Implements the HTTP layer's `MetricsExposition` (render,
 * observeRequest). Recording methods never throw.
 */
export class ServerMetrics {
  /** This server's registry (prom-client's global registry is never used). */
  readonly registry = new Registry();
  /** `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string = Registry.PROMETHEUS_CONTENT_TYPE;

  private readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  private readonly storeDuration: Histogram<'operation' | 'result'>;
  private readonly secretFailures: Counter<'reason'>;
  private readonly replayed: Counter;
  private readonly backfilled: Counter;

  constructor(opts: ServerMetricsOptions) {
    processRegistry(); // the process's collectors (event-loop lag, GC) start with the first server
    const registers = [this.registry];
    new Gauge({
      name: 'punctual_build_info',
      help: 'Version and role of this node; always 1.',
      labelNames: ['version', 'role'] as const,
      registers,
    }).set({ version: opts.version, role: opts.role }, 1);
    this.httpDuration = new Histogram({
      name: 'punctual_http_request_duration_seconds',
      help: 'Duration of HTTP requests answered by this node, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.storeDuration = new Histogram({
      name: 'punctual_store_operation_duration_seconds',
      help: 'Duration of store operations on this node, by operation (Store method) and result (ok, error).',
      labelNames: ['operation', 'result'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.secretFailures = new Counter({
      name: 'punctual_secret_decrypt_failures_total',
      help: 'Job secrets this node could not decrypt, by reason (key_missing: the key that sealed it is not configured; tampered: changed, or copied from another job or field).',
      labelNames: ['reason'] as const,
      registers,
    });
    // Both reasons exist from the start (at 0), so an alert on increase() sees the first failure.
    for (const reason of SECRET_FAILURE_REASONS) this.secretFailures.inc({ reason }, 0);
    this.replayed = new Counter({
      name: 'punctual_executions_replayed_total',
      help: 'Failed executions replayed through the API (POST /executions/{id}/replay and POST /executions/replay) on this node.',
      registers,
    });
    this.backfilled = new Counter({
      name: 'punctual_executions_backfilled_total',
      help: 'Executions created by backfills of cron jobs through the API (POST /cron/{id}/backfill) on this node.',
      registers,
    });
  }

  /** Every series of this server, then the process's, in the Prometheus text format 0.0.4. */
  render(): Promise<string> {
    return Registry.merge([this.registry, processRegistry()]).metrics();
  }

  /** Records one answered HTTP request (`punctual_http_request_duration_seconds`). */
  observeRequest(r: { method: string; route: string; statusCode: number; seconds: number }): void {
    this.httpDuration.observe({ method: r.method, route: r.route, status_code: String(r.statusCode) }, Math.max(0, r.seconds));
  }

  /** Counts `n` executions replayed through the API (`punctual_executions_replayed_total`). */
  readonly countReplayed = (n: number): void => {
    if (n > 0) this.replayed.inc(n);
  };

  /** Counts `n` executions created by backfills (`punctual_executions_backfilled_total`). */
  readonly countBackfilled = (n: number): void => {
    if (n > 0) this.backfilled.inc(n);
  };

  /** Records one store operation (`punctual_store_operation_duration_seconds`); see store-timing.ts. */
  readonly observeStoreOperation = (operation: string, seconds: number, ok: boolean): void => {
    this.storeDuration.observe({ operation, result: ok ? 'ok' : 'error' }, Math.max(0, seconds));
  };

  /**
   * Counts one job secret that could not be decrypted (`punctual_secret_decrypt_failures_total`,
   * labelled by the error's `reason`). Called for the dispatcher's `dispatch:secret-failed`
   * events ({@link watchDispatcher}); any other code that opens secrets may call it too.
   */
  readonly countSecretDecryptFailure = (error: Pick<SecretDecryptError, 'reason'>): void => {
    this.secretFailures.inc({ reason: error.reason });
  };

  /**
   * Registers the dispatch series and follows `dispatcher`'s events:
   * - `punctual_executions_finished_total{outcome}`: executions this node brought to their end
   *   by an attempt, `succeeded` or `failed` (once per execution, at its last attempt; an attempt
   *   that leads to a retry finishes nothing);
   * - `punctual_attempts_total{result, status_class}`: every call this node made (attempts.ts);
   * - `punctual_attempt_duration_seconds{result}`: how long each call took;
   * - `punctual_execution_lateness_seconds`: first attempts only, their start − the moment they
   *   became due to the service (`dueAt`, else `scheduledFor`; docs/interface.md, "Past instants");
   * - `punctual_calls_in_flight`: calls under way, read at scrape;
   * - `punctual_dispatch_store_errors_total`: claims or outcome writes the store failed (the
   *   dispatcher tries again);
   * - `punctual_cron_skipped_occurrences_total`: cron occurrences this node's claims dropped under
   *   misfire `skip` (the jobs' `skippedOccurrences` grow by as much; docs/cron.md);
   * - `punctual_cron_auto_paused_total{reason}`: cron jobs this node's outcome writes paused, by
   *   `gone` (a 410 answer) or `failures` (`pauseAfterFailures` reached; src/store/rules/outcome.ts);
   * - `punctual_secret_decrypt_failures_total{reason}` (registered by the constructor) grows with
   *   each `dispatch:secret-failed` event.
   * Call once, for a node that dispatches.
   * @returns a function that stops following the events
   */
  watchDispatcher(dispatcher: WatchedDispatcher): () => void {
    const registers = [this.registry];
    const executions = new Counter({
      name: 'punctual_executions_finished_total',
      help: 'Executions this node finished by an attempt, by outcome (succeeded, failed).',
      labelNames: ['outcome'] as const,
      registers,
    });
    const attempts = new Counter({
      name: 'punctual_attempts_total',
      help: 'Calls to endpoints made by this node, by result (success, http_error, timeout, connection_error, refused) and status class.',
      labelNames: ['result', 'status_class'] as const,
      registers,
    });
    const attemptDuration = new Histogram({
      name: 'punctual_attempt_duration_seconds',
      help: 'Duration of calls to endpoints made by this node, by result.',
      labelNames: ['result'] as const,
      buckets: ATTEMPT_DURATION_BUCKETS,
      registers,
    });
    const lateness = new Histogram({
      name: 'punctual_execution_lateness_seconds',
      help: 'Start of the first attempt of an execution minus the moment it became due (its instant, or when a schedule with a past instant was stored), in seconds.',
      buckets: LATENESS_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'punctual_calls_in_flight',
      help: 'Calls to endpoints in flight on this node.',
      registers,
      collect() {
        this.set(dispatcher.callsInFlight);
      },
    });
    new Gauge({
      name: 'punctual_hung_calls_in_flight',
      help: 'Calls in flight on this node to hung endpoints (a call to their origin timed out, none answered since).',
      registers,
      collect() {
        this.set(dispatcher.hungCallsInFlight);
      },
    });
    const storeErrors = new Counter({
      name: 'punctual_dispatch_store_errors_total',
      help: 'Claims and outcome writes of this node that the store failed (they are tried again).',
      registers,
    });
    const skipped = new Counter({
      name: 'punctual_cron_skipped_occurrences_total',
      help: 'Cron occurrences dropped by this node\'s claims under misfire skip (each counted once; at most 1,000 per job and claim).',
      registers,
    });
    const autoPaused = new Counter({
      name: 'punctual_cron_auto_paused_total',
      help: 'Cron jobs paused by the outcomes this node wrote, by reason (gone: a 410 answer; failures: pauseAfterFailures reached).',
      labelNames: ['reason'] as const,
      registers,
    });
    for (const reason of ['gone', 'failures'] satisfies AutoPauseKind[]) autoPaused.inc({ reason }, 0);
    // Both outcomes exist from the start (at 0), so a success ratio is defined before the first failure.
    for (const outcome of ['succeeded', 'failed']) executions.inc({ outcome }, 0);

    const keyed = flowControlDeliveries(this.registry);
    const delivered = ({ claim, outcome }: DeliveredEvent): void => {
      keyed(claim, outcome);
      const labels = attemptLabels(outcome);
      attempts.inc({ ...labels });
      attemptDuration.observe({ result: labels.result }, Math.max(0, outcome.durationMs) / 1000);
      if (outcome.status === 'Succeeded') executions.inc({ outcome: 'succeeded' });
      else if (outcome.status === 'Failed') executions.inc({ outcome: 'failed' });
      if (claim.attempt === 1) lateness.observe(Math.max(0, outcome.startedAt - claim.dueAt) / 1000);
    };
    const failed = (): void => storeErrors.inc();
    const dropped = (n: number): void => skipped.inc(n);
    const paused = (pause: AutoPause): void => autoPaused.inc({ reason: pause.kind });
    dispatcher.events.on('dispatch:delivered', delivered);
    dispatcher.events.on('dispatch:error', failed);
    dispatcher.events.on('dispatch:skipped', dropped);
    dispatcher.events.on('dispatch:auto-paused', paused);
    dispatcher.events.on('dispatch:secret-failed', this.countSecretDecryptFailure);
    return () => {
      dispatcher.events.off('dispatch:secret-failed', this.countSecretDecryptFailure);
      dispatcher.events.off('dispatch:delivered', delivered);
      dispatcher.events.off('dispatch:error', failed);
      dispatcher.events.off('dispatch:skipped', dropped);
      dispatcher.events.off('dispatch:auto-paused', paused);
    };
  }

  /**
   * Registers the notification series (docs/metrics.md) and follows the notifier's events:
   * `punctual_notifications_sent_total` (messages delivered), `punctual_notifications_failed_total`
   * (messages dropped after their last attempt) and `punctual_notifications_grouped_total`
   * (notifications grouped into a digest instead of sent alone), each by `channel_type`. Call once,
   * for a node that dispatches.
   * @returns a function that stops following the events
   */
  watchNotifier(notifier: WatchedNotifier): () => void {
    const registers = [this.registry];
    const labelNames = ['channel_type'] as const;
    const sent = new Counter({ name: 'punctual_notifications_sent_total', help: 'Notification messages (events, digests) this node delivered, by channel type.', labelNames, registers });
    const failed = new Counter({
      name: 'punctual_notifications_failed_total',
      help: 'Notification messages this node dropped after their last attempt, by channel type.',
      labelNames,
      registers,
    });
    const grouped = new Counter({
      name: 'punctual_notifications_grouped_total',
      help: 'Notifications this node grouped into a digest (past PUNCTUAL_NOTIFY_MAX_PER_MINUTE), by channel type.',
      labelNames,
      registers,
    });
    for (const channel_type of ['webhook', 'slack']) for (const c of [sent, failed, grouped]) c.inc({ channel_type }, 0);
    const onSent = (e: { channelType: string }) => sent.inc({ channel_type: e.channelType });
    const onFailed = (e: { channelType: string }) => failed.inc({ channel_type: e.channelType });
    const onGrouped = (e: { channelType: string; notifications: number }) => grouped.inc({ channel_type: e.channelType }, e.notifications);
    notifier.events.on('notify:sent', onSent);
    notifier.events.on('notify:failed', onFailed);
    notifier.events.on('notify:grouped', onGrouped);
    return () => {
      notifier.events.off('notify:sent', onSent);
      notifier.events.off('notify:failed', onFailed);
      notifier.events.off('notify:grouped', onGrouped);
    };
  }

  /**
   * Registers `punctual_nodes_live`: the nodes of the cluster whose heartbeat is within
   * `PUNCTUAL_NODE_TIMEOUT` (`Store.nodesLive`, docs/multinode.md), asked at each scrape. Absent
   * from a scrape when the store cannot answer.
   * @param liveNodes the live nodes, as the store says
   */
  watchNodes(liveNodes: () => Promise<readonly unknown[]>): void {
    const gauge = new Gauge({
      name: 'punctual_nodes_live',
      help: 'Nodes whose heartbeat is within PUNCTUAL_NODE_TIMEOUT, as the store says (the same on every node).',
      registers: [this.registry],
      async collect() {
        try {
          gauge.set((await liveNodes()).length);
        } catch {
          gauge.reset();
        }
      },
    });
  }

  /**
   * Registers `punctual_due_unclaimed{source}`: work due now and not yet claimed, by claim source
   * (`schedule`, `cron`, `waiting`, `lease`; see `Store.dueCount`), each counted up to
   * {@link DUE_COUNT_LIMIT}, asked of `store` at each scrape. The store's view, so every node of a
   * cluster reports the same backlog. When the store cannot answer, the series are absent from
   * that scrape (and the failed `dueCount` shows in the store operation series).
   * @param now epoch ms (UTC) that decides what is due (a store with a clock of its own uses its own)
   */
  watchDueWork(store: DueWorkSource, now: () => number): void {
    const gauge: Gauge<'source'> = new Gauge({
      name: 'punctual_due_unclaimed',
      help: `Work due now and not yet claimed, by source (schedule, cron, waiting, lease), each counted up to ${DUE_COUNT_LIMIT}.`,
      labelNames: ['source'] as const,
      registers: [this.registry],
      async collect() {
        try {
          const counts = await store.dueCount({ now: now(), limit: DUE_COUNT_LIMIT });
          for (const source of DUE_SOURCES) gauge.set({ source }, counts[source]);
        } catch {
          gauge.reset();
        }
      },
    });
  }

  /**
   * Registers `punctual_executions_retrying{job_type}`: executions in status `Retrying`, each
   * waiting for its next attempt (its `nextAttemptAt`, due or not), by job type (`schedule`,
   * `cron`), each counted up to {@link DUE_COUNT_LIMIT}, asked of `store` at each scrape. The
   * store's view, the same on every node. When the store cannot answer, the series are absent
   * from that scrape.
   */
  watchRetrying(store: RetryingSource): void {
    const gauge: Gauge<'job_type'> = new Gauge({
      name: 'punctual_executions_retrying',
      help: `Executions waiting for a retry (status Retrying), by job type, each counted up to ${DUE_COUNT_LIMIT}.`,
      labelNames: ['job_type'] as const,
      registers: [this.registry],
      async collect() {
        try {
          const counts = await store.executionRetryingCount({ limit: DUE_COUNT_LIMIT });
          for (const jobType of JOB_TYPES) gauge.set({ job_type: jobType }, counts[jobType]);
        } catch {
          gauge.reset();
        }
      },
    });
  }
}
