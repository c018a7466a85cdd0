/**
 * The HTTP side of the metrics (docs/metrics.md): `GET /metrics` in the Prometheus text format, and
 * the duration of every answered request by route pattern and status. What the metrics are and
 * how they are gathered lives in `src/metrics/` (prom-client), wired by `main.ts`; this module
 * only needs the small {@link MetricsExposition} interface, so the HTTP layer does not depend on
 * it.
 *
 * Where `/metrics` is served (docs/metrics.md):
 *  - without `PUNCTUAL_METRICS_PORT`: on the API's port, behind an API key with `metrics:read`
 *    (rate limit and failed-authentication guard included, like every API route);
 *  - with it: only on that port, by {@link buildMetricsApp}, without authentication (operators
 *    firewall that port); the API's port then answers 404 for `/metrics`, so there is one place
 *    to scrape and Prometheus needs no API key.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { AJV_OPTIONS, ruleKeywordPlugin } from './ajv.js';
import { errorHandler, notFoundHandler } from './problem.js';
import { NoQuery } from './schemas/common.js';
import { AUTHENTICATED, OPEN, problemResponses } from './schemas/operations.js';
import { bearer } from './scopes.js';

/** Where the metrics are served. */
export const METRICS_PATH = '/metrics';

/** The route label of a request that matched no route (404s, malformed URLs). */
export const UNMATCHED_ROUTE = 'unmatched';

/** One answered request, as {@link MetricsExposition.observeRequest} records it. */
export interface RequestObservation {
  /** `GET`, `POST`, … */
  method: string;
  /** The route's pattern (`/schedules/:id`), never the raw URL; {@link UNMATCHED_ROUTE} for none. */
  route: string;
  statusCode: number;
  /** From the request's arrival to the end of the answer, in seconds. */
  seconds: number;
}

/** What the HTTP layer needs of the metrics (implemented by `src/metrics/metrics.ts`). */
export interface MetricsExposition {
  /** Content type of {@link render}'s text: `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  /** Every metric of this server in the Prometheus text exposition format 0.0.4. */
  render(): Promise<string>;
  /** Records one answered request. Never throws. */
  observeRequest(r: RequestObservation): void;
  /** Counts `n` executions replayed through the API (`punctual_executions_replayed_total`). Never throws. */
  countReplayed?(n: number): void;
  /** Counts `n` executions created by backfills (`punctual_executions_backfilled_total`). Never throws. */
  countBackfilled?(n: number): void;
}

/**
 * The route label of a request: the pattern of the route that answered it (`/schedules/:id`), or
 * {@link UNMATCHED_ROUTE}. Never the URL itself, which holds ids (unbounded label values) and may
 * hold anything a client put there.
 */
export function routeLabel(request: FastifyRequest): string {
  if (request.is404) return UNMATCHED_ROUTE;
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}

/** Adds an `onResponse` hook to `app` (a root instance: every route, 404s included) that records each answer. */
export function observeRequests(app: FastifyInstance, metrics: MetricsExposition): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest({
      method: request.method,
      route: routeLabel(request),
      statusCode: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
  });
}

/** Options of {@link metricsRoute}. */
export interface MetricsRouteOptions {
  metrics: MetricsExposition;
  /** True when the route sits behind the API key (documented with the bearer scheme and its problems). */
  authenticated: boolean;
}

/** `GET /metrics`. Authentication, when wanted, comes from the instance it is registered on. */
export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, { metrics, authenticated }) => {
  app.get(
    METRICS_PATH,
    {
      schema: {
        operationId: 'getMetrics',
        summary: 'Metrics (Prometheus)',
        description:
          'The service\'s metrics in the Prometheus text format 0.0.4, for a Prometheus scraper: executions and attempts ' +
          'by outcome, lateness, calls in flight, due work not yet claimed, HTTP request and store operation durations, ' +
          'process metrics. Served here, behind an API key, unless `PUNCTUAL_METRICS_PORT` is set: then only on that ' +
          'port, without authentication, and this path is a 404. The series are listed in docs/metrics.md.',
        tags: ['Metrics'],
        security: authenticated ? bearer('metrics:read') : OPEN,
        querystring: NoQuery,
        response: {
          200: {
            description: 'The metrics, one sample a line (`# HELP` and `# TYPE` lines before each metric).',
            content: {
              'text/plain; version=0.0.4': {
                schema: { type: 'string' },
                example:
                  '# HELP punctual_calls_in_flight Calls to endpoints in flight on this node.\n' +
                  '# TYPE punctual_calls_in_flight gauge\npunctual_calls_in_flight 0\n',
              },
            },
          },
          ...problemResponses(400, ...(authenticated ? AUTHENTICATED : ([503] as const))),
        },
      },
    },
    async (_request, reply) => {
      const text = await metrics.render();
      return reply.header('cache-control', 'no-store').type(metrics.contentType).send(text);
    },
  );
};

/** Options of {@link buildMetricsApp}. */
export interface MetricsAppOptions {
  metrics: MetricsExposition;
  logger: Logger;
}

/**
 * The listener of `PUNCTUAL_METRICS_PORT`: `GET /metrics` without authentication, nothing else
 * (any other path is a 404 problem). Scrapes are not logged (one every few seconds would drown
 * the logs); errors are. Ready for `listen`.
 */
export async function buildMetricsApp(opts: MetricsAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    ajv: { customOptions: AJV_OPTIONS, plugins: [ruleKeywordPlugin] },
    return503OnClosing: true,
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  await app.register(metricsRoute, { metrics: opts.metrics, authenticated: false });
  await app.ready();
  return app;
}
