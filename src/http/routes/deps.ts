import type { JobServiceContext } from '../../service/context.js';
import type { LastUsedRecorder } from '../../service/last-used.js';

/** What the resource routes are registered with. */
export interface RouteDeps {
  ctx: JobServiceContext;
  recorder: LastUsedRecorder;
}
