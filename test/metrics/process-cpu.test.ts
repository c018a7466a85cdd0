import { describe, expect, it } from 'vitest';
import { processRegistry } from '../../src/metrics/process-metrics.js';
import { parseExposition, valueOf } from '../support/prometheus.js';

/**
 * The process's CPU counters are totals since the process started, as Prometheus
 * defines `process_cpu_seconds_total`, even though the registry is made late: prom-client alone
 * counts from registration, which gave 0 s at a first scrape. This file's worker has not made the
 * registry before this test, so the first scrape here is the case that failed.
 */
describe('process CPU metrics', () => {
  it('count from the process start at the very first scrape, and only grow', async () => {
    // Burn some CPU first, so that "since start" and "since registration" differ by far more than noise.
    const until = performance.now() + 50;
    let x = 0;
    while (performance.now() < until) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);

    const before = process.cpuUsage();
    const first = parseExposition(await processRegistry().metrics());
    const after = process.cpuUsage();
    const user = valueOf(first, 'process_cpu_user_seconds_total');
    const system = valueOf(first, 'process_cpu_system_seconds_total');
    const total = valueOf(first, 'process_cpu_seconds_total');
    // Within 1 ms of CPU below (rounding) and 10 ms above (prom-client's registration, counted twice).
    expect(user).toBeGreaterThanOrEqual(before.user / 1e6 - 0.001);
    expect(user).toBeLessThanOrEqual(after.user / 1e6 + 0.01);
    expect(system).toBeGreaterThanOrEqual(before.system / 1e6 - 0.001);
    expect(system).toBeLessThanOrEqual(after.system / 1e6 + 0.01);
    expect(total).toBeCloseTo(user + system, 6);

    const second = parseExposition(await processRegistry().metrics());
    expect(valueOf(second, 'process_cpu_seconds_total')).toBeGreaterThanOrEqual(total);
    expect(processRegistry()).toBe(processRegistry()); // one registry for the process
  });
});
