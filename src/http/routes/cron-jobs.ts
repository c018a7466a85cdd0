/** Routes of /cron (spec §4; DELETE and the preview from issue #2 §2, §5). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toIso } from '../../domain/time.js';
import {
  createCronJob,
  deleteCronJob,
  getCronJob,
  listCronJobs,
  previewCron,
  updateCronJob,
} from '../../service/cron-jobs.js';
import { IdParams, NoQuery } from '../schemas/common.js';
import {
  CronCreateBody,
  CronJobListSchema,
  CronJobOrNullSchema,
  CronJobSchema,
  CronPatchBody,
  CronPreviewQuery,
  CronPreviewSchema,
  cronJobToWire,
} from '../schemas/cron-jobs.js';
import type { RouteDeps } from './deps.js';

/** POST/GET /cron, GET /cron/preview, GET/PATCH/DELETE /cron/{id}. */
export const cronJobRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.post(
    '/cron',
    {
      schema: {
        summary: 'Create a cron job',
        description: 'The job starts Active, with `nextInvocation` its next occurrence after now.',
        querystring: NoQuery,
        body: CronCreateBody,
        response: { 201: CronJobSchema },
      },
    },
    async (req, reply) => reply.code(201).send(cronJobToWire(await createCronJob(ctx, req.body))),
  );

  app.get(
    '/cron',
    { schema: { summary: 'List cron jobs', querystring: NoQuery, response: { 200: CronJobListSchema } } },
    async () => {
      const list = await listCronJobs(ctx);
      return { size: list.length, cronJobs: list.map(cronJobToWire) };
    },
  );

  // A static path: the router prefers it to `/cron/:id` whatever the order of registration.
  app.get(
    '/cron/preview',
    {
      schema: {
        summary: 'Preview occurrences of a cron expression',
        description: 'The next `count` occurrences strictly after `from`, computed as real jobs are advanced.',
        querystring: CronPreviewQuery,
        response: { 200: CronPreviewSchema },
      },
    },
    async (req) => {
      const { expression, timezone, from, count } = req.query;
      const occurrences = previewCron(
        ctx,
        { expression, timezone, from, count: count === undefined ? undefined : Number(count) },
        '/query',
      );
      return { occurrences: occurrences.map(toIso) };
    },
  );

  app.get(
    '/cron/:id',
    {
      schema: {
        summary: 'Retrieve a cron job',
        description: 'Answers null when no cron job has this id.',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: CronJobOrNullSchema },
      },
    },
    async (req) => {
      const job = await getCronJob(ctx, req.params.id);
      return job && cronJobToWire(job);
    },
  );

  app.patch(
    '/cron/:id',
    {
      schema: {
        summary: 'Update a cron job',
        description:
          'Partial update; null sets a nullable field to null. Changing `expression` or `timezone`, or resuming a Paused job, recomputes `nextInvocation` from now.',
        params: IdParams,
        querystring: NoQuery,
        body: CronPatchBody,
        response: { 200: CronJobSchema },
      },
    },
    async (req) => cronJobToWire(await updateCronJob(ctx, req.params.id, req.body)),
  );

  app.delete(
    '/cron/:id',
    {
      schema: {
        summary: 'Delete a cron job',
        description: 'A deleted job never fires again.',
        params: IdParams,
        querystring: NoQuery,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (req, reply) => {
      await deleteCronJob(ctx, req.params.id);
      return reply.code(204).send(null);
    },
  );
};
