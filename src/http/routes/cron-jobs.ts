/** Routes of /cron, DELETE and the preview included (docs/interface.md, docs/cron.md). */
import { auditContext } from '../request-id.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { toIso } from '../../domain/time.js';
import {
  createCronJob,
  deleteCronJob,
  getCronJob,
  listCronJobs,
  previewCron,
  updateCronJob,
} from '../../service/cron-jobs.js';
import {
  CronCreateBody,
  CronJobList,
  CronJobSchema,
  CronPatchBody,
  CronPreviewQuery,
  CronPreviewSchema,
  cronJobToWire,
} from '../schemas/cron-jobs.js';
import type { RouteDeps } from './deps.js';
import { createRoute, deleteRoute, getByIdRoute, queryNumber, readSchema, updateRoute } from './operations.js';
import { jobListRoute } from './job-list.js';

/** POST/GET /cron, GET /cron/preview, GET/PATCH/DELETE /cron/{id}. */
export const cronJobRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  createRoute(app, {
    path: '/cron',
    text: {
      operationId: 'createCronJob',
      scope: 'jobs:write',
      tags: ['Cron jobs'],
      summary: 'Create a cron job',
      description:
        'The job starts `Active`, with `nextInvocation` its next occurrence strictly after now in `timezone` (UTC when null). ' +
        'On each occurrence the endpoint is called with `data` (or `{}`) as the JSON body. Absent fields take the defaults: ' +
        '`name`, `timezone` and `data` null, the service\'s retry policy and timeout, `misfire` `once`, `overlap` `allow`.',
    },
    body: CronCreateBody,
    answer: 'The new cron job, `Active`.',
    schema: CronJobSchema,
    create: (body, req) => createCronJob(ctx, body, auditContext(req)),
    toWire: cronJobToWire,
    idempotent: true,
  });

  jobListRoute(app, ctx, {
    path: '/cron',
    operationId: 'listCronJobs',
    tags: ['Cron jobs'],
    schemas: CronJobList,
    list: listCronJobs,
    toWire: cronJobToWire,
  });

  // A static path: the router prefers it to `/cron/:id` whatever the order of registration.
  app.get(
    '/cron/preview',
    {
      schema: readSchema(
        {
          operationId: 'previewCron',
          scope: 'jobs:read',
          tags: ['Cron jobs'],
          summary: 'Preview occurrences of a cron expression',
          description:
            'The next `count` occurrences of `expression` in `timezone` strictly after `from`, computed by the code that advances ' +
            'real jobs (DST gaps and overlaps included). An `@every` expression counts from `startAt` (default now), as a job ' +
            'counts from its start. Stores nothing.',
        },
        CronPreviewQuery,
        'The occurrences, earliest first (ISO 8601, UTC).',
        CronPreviewSchema,
      ),
    },
    async (req) => {
      const { expression, timezone, from, count, startAt } = req.query;
      const occurrences = previewCron(
        ctx,
        { expression, timezone, from, count: queryNumber(count), startAt },
        '/query',
      );
      return { occurrences: occurrences.map(toIso) };
    },
  );

  getByIdRoute(
    app,
    '/cron/:id',
    {
      operationId: 'getCronJob',
      scope: 'jobs:read',
      tags: ['Cron jobs'],
      summary: 'Retrieve a cron job',
      description: 'The cron job; `null` (with 200) when no cron job has this id, also for an id that is not a UUID.',
    },
    'The cron job, or null when no cron job has this id.',
    CronJobSchema,
    (id) => getCronJob(ctx, id),
    cronJobToWire,
  );

  updateRoute(app, {
    path: '/cron/:id',
    text: {
      operationId: 'updateCronJob',
      scope: 'jobs:write',
      tags: ['Cron jobs'],
      summary: 'Update a cron job',
      description:
        'Partial update: absent fields keep their values; null sets a nullable field to null; the fields of `retry` given ' +
        'replace those of the stored policy. `status: Paused` pauses the job and `status: Active` resumes it. Changing ' +
        '`expression`, `timezone`, `startAt`, `endAt` or `maxInvocations`, or resuming a `Paused` or `Completed` job, recomputes ' +
        '`nextInvocation` from now within the job\'s window and limit (occurrences missed while paused are not run); any other ' +
        'change keeps the occurrence the job waits for. An Active job left with no occurrence becomes Completed; a Completed job ' +
        'runs again only with `status: Active` (400 on `/status` when it would still have no occurrence).',
    },
    body: CronPatchBody,
    answer: 'The cron job as updated.',
    schema: CronJobSchema,
    update: (id, body, req) => updateCronJob(ctx, id, body, auditContext(req)),
    toWire: cronJobToWire,
  });

  deleteRoute(
    app,
    '/cron/:id',
    {
      operationId: 'deleteCronJob',
      scope: 'jobs:write',
      tags: ['Cron jobs'],
      summary: 'Delete a cron job',
      description:
        'Deletes the cron job. It never fires again: an execution waiting for a retry ends `Failed` with the error `job deleted`.',
    },
    (id, req) => deleteCronJob(ctx, id, auditContext(req)),
  );
};
