/**
 * Process metrics (issue #6 §5): prom-client's default metrics (`process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `process_open_fds`, `nodejs_eventloop_lag_seconds`,
 * `nodejs_heap_size_used_bytes`, `nodejs_gc_duration_seconds`, …), under their standard names so
 * that existing Node.js dashboards work.
 *
 * One registry for the whole process, made on first use and merged into each server's answer
 * (ServerMetrics.render), rather than `collectDefaultMetrics` into every server's registry: these
 * series describe the process, not a server, and prom-client installs a GC observer and an
 * event-loop delay monitor (a 10 ms timer) per call that are never removed — one per server would
 * pile up in a process that starts many (the test suites). Not prom-client's global registry
 * either, so nothing else in the process can collide with it.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | null = null;

/** The process's registry of default metrics, created (and its collectors started) on first call. */
export function processRegistry(): Registry {
  if (shared === null) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
