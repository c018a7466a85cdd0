/**
 * Process metrics (docs/metrics.md): prom-client's default metrics (`process_cpu_seconds_total`,
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
 *
 * CPU from the process's start: prom-client's `process_cpu_*_seconds_total` counters add the CPU
 * used between two scrapes, starting from the moment they were registered, so a registry made at
 * the first scrape reported ~0 s (exactly 0 when `process.cpuUsage()` had not moved, which failed
 * CI once). Prometheus defines these counters as the total since the process started (as the Go
 * client reads /proc/self/stat), so the CPU used before registration is added once, here.
 */
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

let shared: Registry | null = null;

/**
 * The process's registry of default metrics, created (and its collectors started) on first call.
 * Its `process_cpu_user_seconds_total`, `process_cpu_system_seconds_total` and
 * `process_cpu_seconds_total` count from the process's start (seconds of CPU, user and system as
 * `process.cpuUsage()` reports them).
 */
export function processRegistry(): Registry {
  if (shared === null) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
    // Read after registration: prom-client took its own reading during it, so the counters may
    // run ahead by the microseconds of registering, never behind the process's real total.
    const used = process.cpuUsage(); // µs since the process started
    addCpu(shared, 'process_cpu_user_seconds_total', used.user);
    addCpu(shared, 'process_cpu_system_seconds_total', used.system);
    addCpu(shared, 'process_cpu_seconds_total', used.user + used.system);
  }
  return shared;
}

/** Adds `micros` µs, as seconds, to the counter `name` of `registry` (a no-op if prom-client renamed it). */
function addCpu(registry: Registry, name: string, micros: number): void {
  const metric = registry.getSingleMetric(name);
  if (metric instanceof Counter) metric.inc(micros / 1e6);
}
