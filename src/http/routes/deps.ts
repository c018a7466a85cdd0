import type { JobServiceContext } from '../../service/context.js';
import type { LastUsedRecorder } from '../../service/last-used.js';
import type { MetricsExposition } from '../metrics.js';

/** What the resource routes are registered with. */
export interface RouteDeps {
  ctx: JobServiceContext;
  recorder: LastUsedRecorder;
  /** The server's metrics, when it has them (counters the routes update, e.g. replays). */
  metrics?: MetricsExposition;
}
