import { watchFlowControlKeys } from './metrics/flow-control.js';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config, Role } from './config.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { NodeLiveness } from './dispatch/maintenance/liveness.js';
import { CLAIM_AHEAD_MS } from './dispatch/held-calls.js';
import { NotificationSender } from './dispatch/notify/sender.js';
import { Notifier } from './dispatch/notify/notifier.js';
import { Pruner, type PrunerOptions } from './dispatch/maintenance/pruner.js';
import { resolveSigningSecrets, WebhookSigner } from './dispatch/call/signing.js';
import { offsetClock, systemClock, type Clock } from './domain/clock.js';
import { newId } from './domain/ids.js';
import { AJV_OPTIONS, ruleKeywordPlugin } from './http/ajv.js';
import { buildApp } from './http/app.js';
import { drainConnections } from './http/drain.js';
import { buildMetricsApp } from './http/metrics.js';
import { errorHandler, notFoundHandler } from './http/problem.js';
import { healthRoutes } from './http/routes/health.js';
import { NOTIFICATION_WIRE } from './http/schemas/notification-channels.js';
import { createLogger } from './logger.js';
import { ServerMetrics } from './metrics/metrics.js';
import { ensureBootstrapKey } from './service/api-keys.js';
import type { KeyRing } from './secrets/key-ring.js';
import { buildServeKeyRing, buildServeStore } from './serve-store.js';
import { IDEMPOTENCY_RETENTION_MS } from './store/rules/idempotency.js';
import type { Store } from './store/store.js';
import { startTracing } from './tracing/tracing.js';
import { VERSION } from './version.js';

/** A started `punctual serve`: the HTTP API and/or the dispatcher on one store, by role. */
export interface RunningServer {
  /**
   * The HTTP server: the whole API (roles `all`, `api`), or only `GET /healthz` and `GET /readyz`
   * (role `dispatcher`).
   */
  app: FastifyInstance;
  /** The dispatcher, or null on an `api` node. */
  dispatcher: Dispatcher | null;
  /** The notifier (the outbox of notifications, dispatch/notify/notifier.ts), or null on an `api` node. */
  notifier: Notifier | null;
  store: Store;
  role: Role;
  /** Base URL the HTTP server listens on, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** This server's metrics (Prometheus; see src/metrics/metrics.ts). */
  metrics: ServerMetrics;
  /**
   * The keys that seal job secrets (`PUNCTUAL_ENCRYPTION_KEYS`, or on SQLite the key file beside
   * the database), or null (PostgreSQL without keys: secrets are refused). See `buildServeKeyRing`.
   */
  keyRing: KeyRing | null;
  /**
   * Base URL of the metrics listener (`PUNCTUAL_METRICS_PORT`: `GET /metrics` there, without
   * authentication), or null when there is none (then `/metrics` is on `url`, behind an API key,
   * except on a `dispatcher` node, which then exposes no metrics).
   */
  metricsUrl: string | null;
  /**
   * Graceful stop (SIGTERM): refuses new requests and waits for those in flight, lets calls in
   * flight finish within `config.shutdownGraceMs`, then closes the store.
   */
  close(): Promise<void>;
}

/** Overrides for tests (an injected clock or logger), and `serve --new-key`. */
export interface StartOptions {
  clock?: Clock;
  logger?: Logger;
  /**
   * `punctual serve --new-key`: start even when the keys at hand do not open the stored job
   * secrets, making a new key file on SQLite when there is none (`buildServeKeyRing`).
   */
  newKey?: boolean;
}

/** Thrown by {@link startServer} for a role the store cannot serve (`api`/`dispatcher` on SQLite). */
export class RoleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RoleError';
  }
}

/**
 * Wires configuration → store → dispatcher → HTTP API and starts serving, as `config.role` says:
 *  - `all`: the HTTP API and the dispatcher (with the pruner);
 *  - `api`: the HTTP API only; creating work wakes no local dispatcher (the store's hint, NOTIFY
 *    on PostgreSQL, reaches the dispatchers);
 *  - `dispatcher`: the dispatcher and the pruner, and on `PORT` only `GET /healthz` and
 *    `GET /readyz`, for orchestrators and load balancers.
 * `api` and `dispatcher` need a store shared by several nodes (one whose `now()` is not null):
 * with the embedded SQLite store, an `api` node's work would wait for a dispatcher that nothing
 * wakes, so those roles are refused there.
 *
 * Opens the store, applies migrations, finds the key ring of job secrets (on SQLite without
 * `PUNCTUAL_ENCRYPTION_KEYS`, creating the key file at the first start) and checks that it opens
 * the stored secrets (`buildServeKeyRing`), makes sure the bootstrap
 * key exists when configured, then listens and starts the dispatcher.
 * @throws RoleError for `api`/`dispatcher` on a store not shared by nodes
 * @throws KeyFileError when the SQLite key file cannot be read or created
 * @throws SealingKeyMissingError when the store holds secrets sealed with a key the node lacks
 *   (and not `opts.newKey`)
 * @throws when the store cannot be opened or migrated, or the port cannot be bound
 */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const role = config.role;
  const clock = opts.clock ?? (config.testClockOffsetMs !== 0 ? offsetClock(config.testClockOffsetMs) : systemClock);
  const logger = opts.logger ?? createLogger(config.logLevel);
  if (config.testClockOffsetMs !== 0) {
    logger.warn({ offsetMs: config.testClockOffsetMs }, 'PUNCTUAL_TEST_CLOCK_OFFSET_MS is set: this process reads a skewed clock (for tests only)');
  }
  const metrics = new ServerMetrics({ version: VERSION, role });
  const dispatches = role !== 'api';
  // Every store operation of this server is timed (punctual_store_operation_duration_seconds); on
  // SQLite the dispatcher's transactions run on a thread of their own (store/sqlite/dispatch-thread.ts).
  const stores = await buildServeStore(config.databaseUrl, { logger, dispatches, observe: metrics.observeStoreOperation });
  const { store } = stores;
  let signer: WebhookSigner | null = null;
  let keyRing: KeyRing | null = null;
  try {
    await store.migrate();
    keyRing = await buildServeKeyRing(config.encryptionKeys, config.databaseUrl, logger, { store, newKey: opts.newKey });
    if (role !== 'all' && (await store.now()) === null) {
      throw new RoleError(
        `role "${role}" needs a store shared by several nodes (a postgres:// DATABASE_URL); ` +
          'the embedded SQLite store serves one node: use the role "all".',
      );
    }
    if (config.bootstrapToken !== null) {
      await ensureBootstrapKey(store, clock, config.bootstrapToken);
      logger.info({}, 'bootstrap key is in place');
    }
    // Through the main store: the dispatch side's store thread (SQLite) may still be loading, and
    // nothing before `listen` waits for it. Every role signs: calls where dispatching runs, and
    // notifications everywhere (an `api` node sends the test messages of channels).
    signer = new WebhookSigner(await resolveSigningSecrets(store, config.signingSecrets));
  } catch (err) {
    await stores.close();
    throw err;
  }

  // Every node heartbeats its row and reaps dead nodes (dispatch/maintenance/liveness.ts); a dispatcher claims
  // only while its node is registered and heartbeating.
  const nodeId = newId();
  // Traces (tracing/tracing.ts): with an OTLP endpoint set, spans of requests, claims, attempts
  // and outcome writes are exported; without one, nothing of OpenTelemetry is loaded.
  const tracing = await startTracing(process.env, { version: VERSION, nodeId, role, logger: logger.child({ component: 'tracing' }) }).catch(
    async (err: unknown) => {
      await stores.close();
      throw err;
    },
  );
  const dispatchStore = tracing ? tracing.traceStore(stores.dispatchStore) : stores.dispatchStore;
  const liveness: NodeLiveness = new NodeLiveness({
    store: dispatchStore,
    clock,
    logger: logger.child({ component: 'liveness' }),
    nodeId,
    role,
    heartbeatMs: config.nodeHeartbeatMs,
    timeoutMs: config.nodeTimeoutMs,
    claimAheadMs: CLAIM_AHEAD_MS,
    now: () => (dispatcher ? dispatcher.now() : clock.now()),
    onRegistered: () => dispatcher?.wake(dispatcher.now()),
    onReleased: () => dispatcher?.wake(dispatcher.now()),
  });
  const dispatcher: Dispatcher | null =
    !dispatches
      ? null
      : new Dispatcher({
          store: dispatchStore,
          clock,
          nodeId,
          mayClaim: () => liveness.mayClaim(),
          logger: logger.child({ component: 'dispatch' }),
          userAgent: `Punctual/${VERSION}`,
          signer,
          misfireThresholdMs: config.misfireThresholdMs,
          maxInFlight: config.maxInFlight,
          policy: config.endpointPolicy,
          // Calls to slow origins go out from a thread of their own (dispatch/slow-lane.ts).
          slowLane: true,
          keyRing,
          tracesSampled: tracing !== null,
        });
  if (dispatcher) metrics.watchDispatcher(dispatcher);
  if (dispatcher) tracing?.traceDispatcher(dispatcher);
  const storeNow = () => (dispatcher ? dispatcher.now() : clock.now());
  // Notifications (dispatch/notify/notifier.ts): sent where dispatching runs, from the outbox of the main
  // store; test messages from any node that serves the API.
  const sender = new NotificationSender({
    signer,
    policy: config.endpointPolicy,
    userAgent: `Punctual/${VERSION}`,
    timeoutMs: config.notifyTimeoutMs,
    now: () => clock.now(),
  });
  const notifier = dispatcher
    ? new Notifier({
        store,
        sender,
        wire: NOTIFICATION_WIRE,
        nodeId,
        now: storeNow,
        logger: logger.child({ component: 'notify' }),
        maxPerMinute: config.notifyMaxPerMinute,
        publicUrl: config.publicUrl,
      })
    : null;
  if (notifier) metrics.watchNotifier(notifier);
  metrics.watchDueWork(store, storeNow);
  metrics.watchRetrying(store);
  watchFlowControlKeys(metrics.registry, store, storeNow);
  const liveNodes = () => store.nodesLive({ now: storeNow(), timeoutMs: config.nodeTimeoutMs });
  metrics.watchNodes(liveNodes);
  // Pruning runs where dispatching does; the store serialises it across the cluster.
  const pruner = dispatches
    ? new Pruner({
        prune: (p) => dispatchStore.executionsPrune(p),
        what: 'executions',
        clock,
        logger: logger.child({ component: 'prune' }),
        retentionMs: config.executionRetentionMs,
      })
    : null;
  // What the API writes is pruned where the API runs: at most 10,000 rows a pass in batches of 500.
  const apiPruner = (what: string, prune: PrunerOptions['prune'], retentionMs: number) =>
    role === 'dispatcher'
      ? null
      : new Pruner({
          prune,
          what,
          clock,
          logger: logger.child({ component: 'prune' }),
          retentionMs,
          batchSize: 500,
          maxPerPass: 10_000,
        });
  // Idempotency records (http/idempotency.ts) after 24 h.
  const idempotencyPruner = apiPruner('idempotency records', (p) => store.idempotencyPrune(p), IDEMPOTENCY_RETENTION_MS);
  // Audit events (docs/keys-and-audit.md) after PUNCTUAL_AUDIT_RETENTION.
  const auditPruner = apiPruner('audit events', (p) => store.auditPrune(p), config.auditRetentionMs);
  let draining = false;
  const isReady = () => !draining;
  const app =
    role === 'dispatcher'
      ? await buildProbeApp(store, logger, isReady)
      : await buildApp({
          store,
          clock,
          logger,
          wake: dispatcher ? (dueAt) => dispatcher.wake(dueAt) : () => undefined,
          isReady,
          liveNodes,
          defaults: { retry: config.retry, timeoutMs: config.requestTimeoutMs },
          endpointPolicy: config.endpointPolicy,
          executionRetentionMs: config.executionRetentionMs,
          limits: config.limits,
          rateLimit: config.rateLimit,
          trustProxy: config.trustProxy,
          metrics,
          metricsOnOwnPort: config.metricsPort !== null,
          keyRing,
          ...(tracing && { traceRequests: (root: FastifyInstance) => tracing.traceRequests(root) }),
          testChannel: (channel) => sender.test(channel),
        });
  const metricsApp = config.metricsPort === null ? null : await buildMetricsApp({ metrics, logger });
  // At the stop, connections with no request in flight (kept alive, or opened and never used) are
  // ended, so that neither a client's pool nor a scraper holds the stop (http/drain.ts).
  const appDrain = drainConnections(app.server);
  const metricsDrain = metricsApp ? drainConnections(metricsApp.server) : null;
  try {
    await app.listen({ port: config.port, host: config.host });
    await metricsApp?.listen({ port: config.metricsPort!, host: config.host });
  } catch (err) {
    await metricsApp?.close();
    await app.close();
    await stores.close();
    await tracing?.shutdown();
    throw err;
  }
  await liveness.start();
  dispatcher?.start();
  notifier?.start();
  pruner?.start();
  idempotencyPruner?.start();
  auditPruner?.start();
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const urlOf = (server: FastifyInstance, fallbackPort: number): string => {
    const address = server.server.address();
    return `http://${host}:${typeof address === 'object' && address !== null ? address.port : fallbackPort}`;
  };
  const url = urlOf(app, config.port);
  const metricsUrl = metricsApp ? urlOf(metricsApp, config.metricsPort!) : null;
  logger.info({ url, metricsUrl, version: VERSION, role, nodeId }, 'punctual is serving');

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      appDrain.start();
      await app.close();
      await pruner?.stop();
      await idempotencyPruner?.stop();
      await auditPruner?.stop();
      if (dispatcher) {
        const { unfinished } = await dispatcher.stop(config.shutdownGraceMs);
        if (unfinished > 0) logger.warn({ unfinished }, 'calls still in flight at shutdown; they will be attempted again');
      }
      await notifier?.stop(); // unsent notifications stay in the outbox
      await sender.close();
      await liveness.stop(); // after the leases were handed back: nothing of this node is left to reap
      metricsDrain?.start();
      await metricsApp?.close(); // last: scrapes keep working while the node drains
      await stores.close();
      await tracing?.shutdown(); // last: the spans of the stop are exported too
      logger.info({}, 'punctual stopped');
    })();
    return closing;
  };
  return { app, dispatcher, notifier, store, role, url, metrics, metricsUrl, keyRing, close };
}

/**
 * The HTTP server of a `dispatcher` node: the open probes `GET /healthz` and `GET /readyz` (as on
 * every node) and nothing else; any other path is a 404 problem.
 */
async function buildProbeApp(
  store: Store,
  logger: Logger,
  isReady: () => boolean,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    ajv: { customOptions: AJV_OPTIONS, plugins: [ruleKeywordPlugin] },
    return503OnClosing: true,
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  await app.register(healthRoutes, { store, isReady });
  await app.ready();
  return app;
}
