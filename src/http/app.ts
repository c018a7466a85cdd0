/**
 * The HTTP API as a Fastify instance (design.md: `buildApp(deps)`, routes by resource, schemas in
 * their own modules, one error handler). Knows nothing of SQL: everything goes through the
 * services and the `Store` interface.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { DeliverySettings } from '../domain/types.js';
import type { JobServiceContext } from '../service/context.js';
import { DEFAULT_DELIVERY } from '../service/delivery.js';
import { LastUsedRecorder } from '../service/last-used.js';
import type { Store } from '../store/store.js';
import { AJV_OPTIONS, ruleKeywordPlugin } from './ajv.js';
import { authHook } from './auth.js';
import { errorHandler, notFoundHandler } from './problem.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { cronJobRoutes } from './routes/cron-jobs.js';
import type { RouteDeps } from './routes/deps.js';
import { executionRoutes } from './routes/executions.js';
import { healthRoutes } from './routes/health.js';
import { scheduleRoutes } from './routes/schedules.js';

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
   * Delivery settings of new jobs for the fields they do not give (issue #3 §2; the timeout from
   * `PUNCTUAL_REQUEST_TIMEOUT_MS`). Default: 5 attempts, 1,000 ms, 3,600,000 ms; 30,000 ms.
   */
  defaults?: DeliverySettings;
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
 * Interface routes (spec §4 and the additions of issues #2 §2 and #3) require `Authorization: Bearer`;
 * `GET /healthz` and `GET /readyz` are open.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { store, clock } = deps;
  const app = Fastify({
    loggerInstance: (deps.logger || pino({ level: 'silent' })) as FastifyBaseLogger,
    // Request logs: Fastify's serializer logs method, url, host and remote address, never headers.
    ajv: { customOptions: AJV_OPTIONS, plugins: [ruleKeywordPlugin] },
    // Bodies: 1 MiB (Fastify's default, stated here; issue #5 makes it configurable).
    bodyLimit: 1_048_576,
    // Refuse `__proto__` / `constructor.prototype` keys in JSON bodies (400) instead of stripping them.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
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
  app.addHook('onClose', async () => {
    await recorder.close();
  });

  // JSON is the only media type taken (issue #2 §4); any other body is a 415.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  await app.register(healthRoutes, { store, isReady: deps.isReady ?? (() => true) });

  // A failing wake-up must not fail a request whose work is already stored: the dispatcher also
  // looks at the store on its own.
  const wake = deps.wake;
  const ctx: JobServiceContext = {
    store,
    clock,
    defaults: deps.defaults ?? DEFAULT_DELIVERY,
    wake: (dueAtMs) => {
      try {
        wake?.(dueAtMs);
      } catch (err) {
        app.log.error({ err }, 'could not wake the dispatcher');
      }
    },
  };
  const routeDeps: RouteDeps = { ctx, recorder };
  await app.register(async (api) => {
    api.addHook('onRequest', authHook(store, clock, recorder));
    await api.register(apiKeyRoutes, routeDeps);
    await api.register(scheduleRoutes, routeDeps);
    await api.register(cronJobRoutes, routeDeps);
    await api.register(executionRoutes, routeDeps);
  });

  await app.ready();
  return app;
}
