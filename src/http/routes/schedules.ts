/** Routes of /schedules, DELETE included (docs/interface.md). */
import { auditContext } from '../request-id.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, updateSchedule } from '../../service/schedules.js';
import {
  ScheduleCreateBody,
  ScheduleList,
  SchedulePatchBody,
  ScheduleSchema,
  scheduleToWire,
} from '../schemas/schedules.js';
import type { RouteDeps } from './deps.js';
import { createRoute, deleteRoute, getByIdRoute, updateRoute } from './operations.js';
import { jobListRoute } from './job-list.js';

/** POST/GET /schedules, GET/PATCH/DELETE /schedules/{id}. */
export const scheduleRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  createRoute(app, {
    path: '/schedules',
    text: {
      operationId: 'createSchedule',
      scope: 'jobs:write',
      tags: ['Schedules'],
      summary: 'Create a schedule',
      description:
        'The endpoint is called once, at `scheduledAt` (at once when it is past), with `method` (POST), `headers`, and `data` as ' +
        'the JSON body (or `body` as text; none for GET and HEAD), signed with [Standard Webhooks](https://www.standardwebhooks.com) ' +
        'headers. Absent fields take the defaults: `data` `{}`, `tags` `[]`, the service\'s retry policy and timeout, method POST, ' +
        'no headers, no `body`. The schedule starts `Pending`.',
    },
    body: ScheduleCreateBody,
    answer: 'The new schedule, `Pending`.',
    schema: ScheduleSchema,
    create: (body, req) => createSchedule(ctx, body, auditContext(req)),
    toWire: scheduleToWire,
    idempotent: true,
  });

  jobListRoute(app, ctx, {
    path: '/schedules',
    operationId: 'listSchedules',
    tags: ['Schedules'],
    schemas: ScheduleList,
    list: listSchedules,
    toWire: scheduleToWire,
  });

  getByIdRoute(
    app,
    '/schedules/:id',
    {
      operationId: 'getSchedule',
      scope: 'jobs:read',
      tags: ['Schedules'],
      summary: 'Retrieve a schedule',
      description: 'The schedule; `null` (with 200) when no schedule has this id, also for an id that is not a UUID.',
    },
    'The schedule, or null when no schedule has this id.',
    ScheduleSchema,
    (id) => getSchedule(ctx, id),
    scheduleToWire,
  );

  updateRoute(app, {
    path: '/schedules/:id',
    text: {
      operationId: 'updateSchedule',
      scope: 'jobs:write',
      tags: ['Schedules'],
      summary: 'Update a schedule',
      description:
        'Partial update: absent fields keep their values; the fields of `retry` given replace those of the stored policy. ' +
        'Only a `Pending` schedule can change (409 otherwise). A new `scheduledAt` in the past runs it at once.',
    },
    body: SchedulePatchBody,
    answer: 'The schedule as updated.',
    schema: ScheduleSchema,
    update: (id, body, req) => updateSchedule(ctx, id, body, auditContext(req)),
    toWire: scheduleToWire,
    conflict: true,
  });

  deleteRoute(
    app,
    '/schedules/:id',
    {
      operationId: 'deleteSchedule',
      scope: 'jobs:write',
      tags: ['Schedules'],
      summary: 'Delete a schedule',
      description:
        'Deletes the schedule, whatever its status. A deleted schedule never fires again: an execution waiting for a retry ' +
        'ends `Failed` with the error `job deleted`.',
    },
    (id, req) => deleteSchedule(ctx, id, auditContext(req)),
  );
};
