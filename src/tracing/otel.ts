/**
 * The OpenTelemetry side of tracing (tracing.ts): a tracer provider of @opentelemetry/sdk-trace-base
 * whose spans a batch processor hands to the OTLP/HTTP exporter (JSON), configured by the standard
 * `OTEL_*` variables. Imported only when traces are exported.
 *
 * Spans (docs/metrics.md, "Traces"):
 * - each attempt: an HTTP CLIENT span (spans.ts), made on the main thread once its outcome is
 *   recorded (`dispatch:delivered`), from its recorded start and duration, with exactly the trace
 *   id and span id of the `traceparent` it sent: the call itself may have gone out from the slow
 *   lane's thread, which knows nothing of spans. Those ids are set through {@link PinnedIds}, the
 *   provider's id generator, which hands out the pinned ids during one synchronous `startSpan`;
 * - each API request: an HTTP SERVER span (Fastify hooks), child of the caller's `traceparent`
 *   when it sent a valid one;
 * - each claim that took work, and each write of outcomes (one per flushed batch, with a link to
 *   each attempt it records): INTERNAL spans around the dispatch store's operations.
 *
 * Every span is sampled (AlwaysOn), since every attempt's `traceparent` says so.
 */
import { diag, DiagLogLevel, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type HrTime, type Link, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { DeliveredEvent } from '../dispatch/events.js';
import { parseTraceparent, TRACEPARENT, type AttemptTraceIds } from '../domain/trace-context.js';
import { requestSummary } from '../http/app.js';
import type { DispatchStore } from '../store/contract/dispatch.js';
import { attemptAttributes, requestAttributes, requestSpanName, responseAttributes } from './spans.js';
import type { Tracing, TracingOptions } from './types.js';

/** The instrumentation scope of Punctual's spans. */
const SCOPE = 'punctual';
/** Longest wait for the last export at shutdown (ms): a collector that does not answer must not hold the stop. */
const SHUTDOWN_MS = 5_000;
/** Routes whose requests make no span: the probes and the scrapes, which come every few seconds. */
const UNTRACED_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The provider's id generator: random ids (the SDK's), except during a `startSpan` made by
 * {@link PinnedIds.start}, which gets the pinned trace id and span id.
 */
class PinnedIds implements IdGenerator {
  private pinned: AttemptTraceIds | null = null;
  private readonly random = new RandomIdGenerator();

  generateTraceId(): string {
    return this.pinned?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.pinned?.spanId ?? this.random.generateSpanId();
  }

  /** Runs `start` (one synchronous root `startSpan`) with `ids` pinned. */
  start<T>(ids: AttemptTraceIds, start: () => T): T {
    this.pinned = ids;
    try {
      return start();
    } finally {
      this.pinned = null;
    }
  }
}

/** Epoch ms (fractions kept) → OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** `error.type` of a thrown error: its `code` when it has one, else its name. */
function errorType(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.name : 'Error';
}

/** Ends `span` as failed by `err` (its type only: a store's message may quote anything). */
function failSpan(span: Span, err: unknown): void {
  span.setAttribute(ATTR_ERROR_TYPE, errorType(err));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Starts exporting (see above); the {@link Tracing} of tracing.ts. */
export function startOtelTracing(opts: TracingOptions): Tracing {
  diag.setLogger(
    {
      error: (message: string) => opts.logger.warn({ component: 'otel' }, message),
      warn: (message: string) => opts.logger.warn({ component: 'otel' }, message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the environment detector) override Punctual's own.
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        [ATTR_SERVICE_NAME]: 'punctual',
        [ATTR_SERVICE_VERSION]: opts.version,
        [ATTR_SERVICE_INSTANCE_ID]: opts.nodeId,
        'punctual.role': opts.role,
      }),
    )
    .merge(detectResources({ detectors: [envDetector] }));
  const ids = new PinnedIds();
  const provider = new BasicTracerProvider({
    resource,
    idGenerator: ids,
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  const tracer = provider.getTracer(SCOPE, opts.version);

  /** An INTERNAL span around one store operation; `attributes` of its result, null: no span. */
  function around<A, R>(
    name: string,
    operation: (arg: A) => Promise<R>,
    links: (arg: A) => Link[],
    attributes: (arg: A, result: R) => Record<string, number> | null,
  ): (arg: A) => Promise<R> {
    return async (arg: A) => {
      const startedAt = Date.now();
      let result: R;
      try {
        result = await operation(arg);
      } catch (err) {
        failSpan(tracer.startSpan(name, { root: true, startTime: hrTime(startedAt), links: links(arg) }, ROOT_CONTEXT), err);
        throw err;
      }
      const attrs = attributes(arg, result);
      if (attrs !== null) tracer.startSpan(name, { root: true, startTime: hrTime(startedAt), attributes: attrs, links: links(arg) }, ROOT_CONTEXT).end();
      return result;
    };
  }

  /** The server span of each request in flight. */
  const requests = new WeakMap<FastifyRequest, Span>();
  const endRequest = (request: FastifyRequest, statusCode: number | null): void => {
    const span = requests.get(request);
    if (!span) return;
    requests.delete(request);
    if (statusCode === null) {
      span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setAttributes(responseAttributes(statusCode));
      if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };

  let stopped: Promise<void> | null = null;
  return {
    traceRequests(app: FastifyInstance): void {
      app.addHook('onRequest', (request, _reply, done) => {
        const route = request.is404 ? undefined : request.routeOptions.url;
        if (route !== undefined && UNTRACED_ROUTES.has(route)) return done();
        const caller = parseTraceparent(headerOf(request, TRACEPARENT));
        const parent = caller
          ? trace.setSpanContext(ROOT_CONTEXT, {
              traceId: caller.traceId,
              spanId: caller.spanId,
              traceFlags: caller.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
              isRemote: true,
            })
          : ROOT_CONTEXT;
        const summary = requestSummary(request);
        const attributes = requestAttributes({
          method: request.method,
          path: String(summary.url),
          route,
          scheme: request.protocol,
          host: request.hostname || undefined,
          port: request.port ?? undefined,
          clientAddress: request.ip || undefined,
          userAgent: headerOf(request, 'user-agent'),
        });
        requests.set(request, tracer.startSpan(requestSpanName({ method: request.method, route }), { kind: SpanKind.SERVER, attributes }, parent));
        done();
      });
      app.addHook('onResponse', (request, reply, done) => {
        endRequest(request, reply.statusCode);
        done();
      });
      app.addHook('onRequestAbort', (request, done) => {
        endRequest(request, null);
        done();
      });
    },

    traceStore<S extends DispatchStore>(store: S): S {
      const claimDue = around(
        'punctual.claim',
        (p: Parameters<DispatchStore['claimDue']>[0]) => store.claimDue(p),
        () => [],
        (p, r) => (r.claimed.length === 0 && r.skippedOccurrences === 0 ? null : { 'punctual.claim.count': r.claimed.length, 'punctual.claim.limit': p.limit, 'punctual.cron.skipped_occurrences': r.skippedOccurrences }),
      );
      const executionsFinish = around(
        'punctual.outcomes.write',
        (p: Parameters<DispatchStore['executionsFinish']>[0]) => store.executionsFinish(p),
        (p) =>
          p.outcomes.flatMap((o) =>
            o.traceId && o.spanId ? [{ context: { traceId: o.traceId, spanId: o.spanId, traceFlags: TraceFlags.SAMPLED } }] : [],
          ),
        (p) => ({ 'punctual.outcomes.count': p.outcomes.length }),
      );
      return new Proxy(store, {
        get(target, key) {
          if (key === 'claimDue') return claimDue;
          if (key === 'executionsFinish') return executionsFinish;
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },

    traceDispatcher(dispatcher: Dispatcher): void {
      dispatcher.events.on('dispatch:delivered', ({ claim, outcome }: DeliveredEvent) => {
        const options = {
          kind: SpanKind.CLIENT,
          root: true,
          startTime: hrTime(outcome.startedAt),
          attributes: attemptAttributes(claim, outcome),
        };
        const start = () => tracer.startSpan(claim.method, options, ROOT_CONTEXT);
        const span = outcome.traceId && outcome.spanId ? ids.start({ traceId: outcome.traceId, spanId: outcome.spanId }, start) : start();
        if (outcome.status !== 'Succeeded') span.setStatus({ code: SpanStatusCode.ERROR, ...(outcome.error !== null && { message: outcome.error }) });
        span.end(hrTime(outcome.startedAt + outcome.durationMs));
      });
    },

    shutdown(): Promise<void> {
      stopped ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), SHUTDOWN_MS);
        });
        try {
          const end = await Promise.race([provider.shutdown().then(() => 'done' as const), late]);
          if (end === 'late') opts.logger.warn({ component: 'otel', waitedMs: SHUTDOWN_MS }, 'traces: the last export did not finish; spans may be lost');
        } catch (err) {
          opts.logger.warn({ component: 'otel', err }, 'traces: the last export failed');
        } finally {
          clearTimeout(timer);
        }
      })();
      return stopped;
    },
  };
}

/** The first value of header `name` (lowercase) of a request. */
function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
