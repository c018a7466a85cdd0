/**
 * Traces exported with OpenTelemetry (docs/metrics.md, "Traces"): on when an OTLP endpoint is
 * configured, off otherwise. This module is all that `punctual serve` loads of tracing when it is
 * off: it imports nothing of OpenTelemetry (types only), and `otel.ts`, which does, is imported
 * dynamically, only when traces are exported. Every attempt carries a `traceparent` either way
 * (domain/trace-context.ts); exporting adds the spans.
 */
import type { Tracing, TracingOptions } from './types.js';
export type { Tracing, TracingOptions } from './types.js';

/**
 * Whether spans are exported: `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
 * is set (not empty), and `OTEL_SDK_DISABLED` is not `true` (OpenTelemetry's own switch).
 */
export function tracesExported(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts exporting spans over OTLP/HTTP when {@link tracesExported} says so, else returns null
 * without loading anything of OpenTelemetry. The exporter reads its settings from the standard
 * variables of `process.env` itself (`OTEL_EXPORTER_OTLP_ENDPOINT`, `…_TRACES_ENDPOINT`,
 * `…_HEADERS`, `…_TIMEOUT`, `…_COMPRESSION`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_BSP_*`).
 * @param env where the switch is read (`process.env` in `punctual serve`)
 */
export async function startTracing(env: Readonly<Record<string, string | undefined>>, opts: TracingOptions): Promise<Tracing | null> {
  if (!tracesExported(env)) return null;
  const { startOtelTracing } = await import('./otel.js');
  return startOtelTracing(opts);
}
