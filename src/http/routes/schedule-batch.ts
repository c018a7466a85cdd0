/** POST /schedules/batch (docs/interface.md, "Batch create"). */
import { auditContext } from '../request-id.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DEFAULT_LIMITS } from '../../service/limits.js';
import { createSchedules } from '../../service/schedule-batch.js';
import { ScheduleBatchBody, ScheduleBatchSchema, scheduleToWire } from '../schemas/schedules.js';
import type { RouteDeps } from './deps.js';
import { createRoute } from './operations.js';

/** A batch may be this many times larger than `PUNCTUAL_MAX_BODY_BYTES` (16 MiB by default). */
export const BATCH_BODY_FACTOR = 16;

/** POST /schedules/batch. */
export const scheduleBatchRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  const limits = ctx.limits ?? DEFAULT_LIMITS;
  createRoute(app, {
    path: '/schedules/batch',
    text: {
      operationId: 'createSchedules',
      scope: 'jobs:write',
      tags: ['Schedules'],
      summary: 'Create many schedules at once',
      description:
        `Creates 1 to \`PUNCTUAL_MAX_BATCH\` (${DEFAULT_LIMITS.batch} by default) schedules in one transaction: all, or none. ` +
        'Each item follows the rules of POST /schedules; a faulty item is a 400 whose `errors` name it by its index ' +
        '(`/schedules/17/endpoint`), and nothing is created. The body may be up to ' +
        `${BATCH_BODY_FACTOR} times \`PUNCTUAL_MAX_BODY_BYTES\`. Answers the schedules in the order of the request.`,
    },
    body: ScheduleBatchBody,
    answer: 'The new schedules, `Pending`, in the order of the request.',
    schema: ScheduleBatchSchema,
    create: (body, req) => createSchedules(ctx, body.schedules, auditContext(req)),
    toWire: (created) => ({ size: created.length, schedules: created.map(scheduleToWire) }),
    idempotent: true,
    bodyLimit: limits.bodyBytes * BATCH_BODY_FACTOR,
  });
};
