/** The shapes of tracing (tracing.ts starts it, otel.ts implements it with OpenTelemetry). Types only. */
import type { FastifyInstance } from 'fastify';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { DispatchStore } from '../store/contract/dispatch.js';

/** The exporter of a running server's spans (`startTracing` of tracing.ts). */
export interface Tracing {
  /**
   * Adds the hooks that make a SERVER span of each API request to `app` (a root instance, before
   * its routes are registered). The probes and `/metrics` are not traced.
   */
  traceRequests(app: FastifyInstance): void;
  /**
   * `store` with a span around each claim that took work (`claimDue`) and each write of
   * outcomes (`executionsFinish`, one span per flushed batch, linked to the attempts it records);
   * every other operation as it is.
   */
  traceStore<S extends DispatchStore>(store: S): S;
  /** Makes a CLIENT span of each attempt `dispatcher` records, with the ids of its `traceparent`. */
  traceDispatcher(dispatcher: Dispatcher): void;
  /** Exports the spans still waiting and stops the exporter (at most a few seconds); idempotent. */
  shutdown(): Promise<void>;
}

/** What the spans' resource says of this node. */
export interface TracingOptions {
  /** Punctual's version (`service.version`). */
  version: string;
  /** This node's id (`service.instance.id`, as in leases and logs). */
  nodeId: string;
  /** The role of `punctual serve` (`punctual.role`). */
  role: string;
  /** Told of the exporter's own warnings and errors (an unreachable collector, refused spans). */
  logger: { warn(obj: object, msg?: string): void };
}
