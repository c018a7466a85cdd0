/**
 * The HTTP API as a Fastify instance, built by `buildApp(deps)`: routes by resource, schemas in
 * their own modules, one error handler (docs/architecture.md). Knows nothing of SQL: everything goes through the
 * services and the `Store` interface.
 */
import { auditRoutes } from './routes/audit.js';
import { requestIdOf, sendRequestIds } from './request-id.js';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { STRICT_POLICY, type EndpointPolicy } from '../net/ssrf.js';
import type { TrustProxy } from '../net/trust-proxy.js';
import type { Clock } from '../domain/clock.js';
import { DEFAULT_NODE_TIMEOUT_MS } from '../store/rows/nodes.js';
import type { NodeRecord } from '../store/contract/nodes.js';
import type { DeliverySettings } from '../domain/types.js';
import type { JobServiceContext } from '../service/context.js';
import { DEFAULT_DELIVERY } from '../service/delivery.js';
import { LastUsedRecorder } from '../service/last-used.js';
import { DEFAULT_LIMITS, type InputLimits } from '../service/limits.js';
import { ruleContext } from '../service/rules.js';
import { KeyRing } from '../secrets/key-ring.js';
import type { Store } from '../store/store.js';
import { AJV_OPTIONS, ruleKeywordsFor } from './ajv.js';
import { authHook } from './auth.js';
import { scopeOnRoute } from './scopes.js';
import { errorHandler, notFoundHandler } from './problem.js';
import { createRequestLimiter, DEFAULT_RATE_LIMIT, type RateLimitSettings } from './rate-limit.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { cronJobRoutes } from './routes/cron-jobs.js';
import type { RouteDeps } from './routes/deps.js';
import { cronBackfillRoutes } from './routes/cron-backfill.js';
import { executionSearchRoutes } from './routes/execution-search.js';
import { executionRoutes } from './routes/executions.js';
import { notificationChannelRoutes, type ChannelRouteDeps } from './routes/notification-channels.js';
import { flowControlRoutes } from './routes/flow-control.js';
import { consoleRoutes } from './console.js';
import { openApiRoutes, registerOpenApiGenerator } from './openapi.js';
import { schemaRoutes } from './routes/schemas.js';
import { healthRoutes } from './routes/health.js';
import { nodeRoutes } from './routes/nodes.js';
import { idempotencyOnRoute } from './idempotency.js';
import { metricsRoute, observeRequests, type MetricsExposition } from './metrics.js';
import { jobBulkRoutes } from './routes/job-bulk.js';
import { scheduleBatchRoutes } from './routes/schedule-batch.js';
import { scheduleRoutes } from './routes/schedules.js';

/** Characters of a token (`pk_` + 43 base64url), wherever a client misplaced one. */
const TOKEN_PATTERN = /pk_[A-Za-z0-9_-]{20,}/g;

/**
 * How a request appears in the logs: its method, its path without the query string (a client may
 * put anything there, a token included), with anything shaped like a token replaced, its host and
 * the client's address. Never its headers or body.
 */
export function requestSummary(req: { method: string; url: string; host?: string; ip?: string }): Record<string, unknown> {
  const path = req.url.split('?')[0]!.replace(TOKEN_PATTERN, 'pk_[redacted]');
  return { method: req.method, url: path, host: req.host, remoteAddress: req.ip };
}

/** What {@link buildApp} needs. */
export interface AppDeps {
  store: Store;
  clock: Clock;
  /** Request and error logging; `false` or absent: none. Tokens and Authorization headers are never logged. */
  logger?: Logger | false;
  /** Told the instant (epoch ms, UTC) at which created or patched work is due (the dispatcher's `wake`). */
  wake?: (dueAtMs: number) => void;
  /** False while the node drains; `GET /readyz` then answers 503. Default: always true. */
  isReady?: () => boolean;
  /**
   * The live nodes that `GET /nodes` lists (`Store.nodesLive` with `PUNCTUAL_NODE_TIMEOUT`).
   * Default: the store's, at `clock`'s time, with the default timeout.
   */
  liveNodes?: () => Promise<NodeRecord[]>;
  /**
   * Delivery settings of new jobs for the fields they do not give (the retry policy from
   * `PUNCTUAL_RETRY_DELAYS` / `PUNCTUAL_RETRY_MAX_ATTEMPTS`, the timeout from
   * `PUNCTUAL_REQUEST_TIMEOUT_MS`). Default: DEFAULT_DELIVERY (8 attempts after steps of
   * 5 s … 10 h; 30,000 ms).
   */
  defaults?: DeliverySettings;
  /**
   * Which endpoint hosts are accepted at create and patch (`PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS`,
   * `PUNCTUAL_ALLOWED_NETWORKS`): an IP literal that is not public, or `localhost`, is a 400
   * naming `/endpoint` unless the policy allows it. Default: `STRICT_POLICY` (safe by default).
   */
  endpointPolicy?: EndpointPolicy;
  /**
   * Size limits (`PUNCTUAL_MAX_*`): the body (413 past it) and the fields (400 naming
   * the field). Fields not given take `DEFAULT_LIMITS` (1 MiB body, 256 KiB data, 256-character
   * names, 32 tags of 64 characters, 2,048-character endpoints, 256-character expressions).
   */
  limits?: Partial<InputLimits>;
  /**
   * The per-API-key token bucket (`PUNCTUAL_RATE_LIMIT_PER_SECOND`,
   * `PUNCTUAL_RATE_LIMIT_BURST`); `perSecond` 0 turns it off. Fields not given take
   * `DEFAULT_RATE_LIMIT` (1,000 per second, burst 2,000). The guard against repeated failed
   * authentications (50 a minute per address) is always on.
   */
  rateLimit?: Partial<RateLimitSettings>;
  /**
   * Which peers may name the client in `X-Forwarded-For` (`PUNCTUAL_TRUST_PROXY`, Fastify's
   * `trustProxy`): `request.ip`, which the lockout after failed authentications, the logs and the
   * traces use, is then the forwarded address when the peer is trusted. Default: false (the
   * socket's address, whatever the headers say).
   */
  trustProxy?: TrustProxy;
  /**
   * Metrics (see `metrics.ts`): every answered request is recorded (method, route
   * pattern, status, duration), and `GET /metrics` serves them behind the API key unless
   * `metricsOnOwnPort`. Absent: neither.
   */
  metrics?: MetricsExposition;
  /** True when `PUNCTUAL_METRICS_PORT` serves the metrics: this app then has no `/metrics` (a 404). */
  metricsOnOwnPort?: boolean;
  /**
   * The keys that seal job secrets, or null when there are none (secrets are refused; see
   * `JobServiceContext.keyRing`). Absent: a random key of this app's lifetime
   * (`KeyRing.ephemeral()`), for tests; `startServer` always passes the configured one or null.
   */
  keyRing?: KeyRing | null;
  /** `PUNCTUAL_EXECUTION_RETENTION` in ms (`JobServiceContext.executionRetentionMs`). Absent: 7 days. */
  executionRetentionMs?: number;
  /**
   * Adds the hooks that trace each request (a SERVER span; src/tracing/), called on the root
   * instance before any route is registered. Absent: requests are not traced.
   */
  traceRequests?: (app: FastifyInstance) => void;
  /**
   * Sends the test message of `POST /notification-channels/{id}/test` (the server's notification
   * sender, src/dispatch/notify/sender.ts). Absent: that route answers 404.
   */
  testChannel?: ChannelRouteDeps['testChannel'];
}

/** The app with its `LastUsedRecorder`, exposed for tests (flush instead of sleeping). */
export interface AppInternals {
  lastUsed: LastUsedRecorder;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Parts of the app that tests and the server wiring reach into. */
    punctual: AppInternals;
  }
}

/**
 * Builds the HTTP API, ready for `inject` or `listen`. Closing the app (`app.close()`) writes the
 * pending `lastUsed` updates; it does not close the store.
 *
 * Every route of the interface (schedules, cron jobs, executions, API keys) requires `Authorization: Bearer`;
 * `GET /healthz`, `GET /readyz`, `GET /openapi.json` and `GET /schemas/punctual-file.json` are open.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { store, clock } = deps;
  const limits: InputLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  const endpointPolicy = deps.endpointPolicy ?? STRICT_POLICY;
  const rules = ruleContext({ limits, endpointPolicy });
  const app = Fastify({
    // Path parameters up to 200 characters (Fastify's default is 100): a flow-control key may have 128.
    routerOptions: { maxParamLength: 200 },
    // Request logs: method, path, host and remote address; never headers, bodies or query strings.
    loggerInstance: (deps.logger || pino({ level: 'silent' })).child({}, { serializers: { req: requestSummary } }) as FastifyBaseLogger,
    // The rules apply this app's limits and endpoint policy (each Fastify instance has its own Ajv).
    ajv: { customOptions: AJV_OPTIONS, plugins: [ruleKeywordsFor(rules)] },
    // Bodies: 1 MiB by default (`PUNCTUAL_MAX_BODY_BYTES`); larger ones are a 413 problem.
    bodyLimit: limits.bodyBytes,
    // Refuse `__proto__` / `constructor.prototype` keys in JSON bodies (400) instead of stripping them.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // `request.ip` is the forwarded client's address only when the peer is trusted (net/trust-proxy.ts).
    // (Fastify takes a hop count too, though its types omit numbers.)
    trustProxy: (deps.trustProxy ?? false) as boolean | string[],
    // The request id: the client's valid X-Request-Id, else a new one (request-id.ts); logged as reqId.
    genReqId: requestIdOf,
    requestIdHeader: false,
    // Errors raised by the router before any route runs (a badly encoded URL) get problems too.
    frameworkErrors: (err, request, reply) => {
      errorHandler(err, request, reply);
    },
  });

  const recorder = new LastUsedRecorder(store, {
    onError: (err) => app.log.warn({ err }, 'could not record lastUsed of API keys; will retry'),
  });
  app.decorate('punctual', { lastUsed: recorder });
  app.decorateRequest('apiKey', null);
  app.decorateRequest('idempotency', null);
  app.addHook('onClose', async () => {
    await recorder.close();
  });

  // JSON is the only media type taken; any other body is a 415.
  app.removeContentTypeParser('text/plain');

  sendRequestIds(app);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  if (deps.metrics) observeRequests(app, deps.metrics);
  deps.traceRequests?.(app);

  // The OpenAPI generator first: it documents the routes registered after it.
  await registerOpenApiGenerator(app);
  await app.register(healthRoutes, { store, isReady: deps.isReady ?? (() => true) });
  await app.register(consoleRoutes);
  await app.register(openApiRoutes);
  await app.register(schemaRoutes);

  // A failing wake-up must not fail a request whose work is already stored: the dispatcher also
  // looks at the store on its own.
  const wake = deps.wake;
  const ctx: JobServiceContext = {
    store,
    clock,
    defaults: deps.defaults ?? DEFAULT_DELIVERY,
    limits,
    endpointPolicy,
    keyRing: deps.keyRing === undefined ? KeyRing.ephemeral() : deps.keyRing,
    ...(deps.executionRetentionMs !== undefined && { executionRetentionMs: deps.executionRetentionMs }),
    wake: (dueAtMs) => {
      try {
        wake?.(dueAtMs);
      } catch (err) {
        app.log.error({ err }, 'could not wake the dispatcher');
      }
    },
  };
  const routeDeps: RouteDeps = { ctx, recorder, ...(deps.metrics ? { metrics: deps.metrics } : {}) };
  const limiter = createRequestLimiter({ ...DEFAULT_RATE_LIMIT, ...deps.rateLimit });
  await app.register(async (api) => {
    api.addHook('onRequest', authHook(store, clock, recorder, limiter));
    // Every route here declares its scope in `schema.security` (scopes.ts); one that does not stops the start.
    api.addHook('onRoute', scopeOnRoute);
    // Routes with `config: { idempotent: true }` take Idempotency-Key (idempotency.ts).
    api.addHook('onRoute', idempotencyOnRoute(store, clock));
    await api.register(apiKeyRoutes, routeDeps);
    await api.register(scheduleRoutes, routeDeps);
    await api.register(scheduleBatchRoutes, routeDeps);
    await api.register(jobBulkRoutes, routeDeps);
    await api.register(cronJobRoutes, routeDeps);
    await api.register(cronBackfillRoutes, routeDeps);
    await api.register(executionRoutes, routeDeps);
    await api.register(executionSearchRoutes, routeDeps);
    await api.register(nodeRoutes, {
      liveNodes: deps.liveNodes ?? (() => store.nodesLive({ now: clock.now(), timeoutMs: DEFAULT_NODE_TIMEOUT_MS })),
    });
    await api.register(auditRoutes, routeDeps);
    await api.register(notificationChannelRoutes, { ...routeDeps, ...(deps.testChannel && { testChannel: deps.testChannel }) });
    await api.register(flowControlRoutes, routeDeps);
    if (deps.metrics && !deps.metricsOnOwnPort) await api.register(metricsRoute, { metrics: deps.metrics, authenticated: true });
  });

  await app.ready();
  return app;
}
