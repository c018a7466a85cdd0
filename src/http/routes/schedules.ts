/** Routes of /schedules (spec §4; DELETE from issue #2 §2). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, updateSchedule } from '../../service/schedules.js';
import { IdParams, NoQuery } from '../schemas/common.js';
import {
  ScheduleCreateBody,
  ScheduleListSchema,
  ScheduleOrNullSchema,
  SchedulePatchBody,
  ScheduleSchema,
  scheduleToWire,
} from '../schemas/schedules.js';
import type { RouteDeps } from './deps.js';

/** POST/GET /schedules, GET/PATCH/DELETE /schedules/{id}. */
export const scheduleRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.post(
    '/schedules',
    {
      schema: {
        summary: 'Create a schedule',
        description: 'The endpoint is called once, at `scheduledAt` (at once when it is past).',
        querystring: NoQuery,
        body: ScheduleCreateBody,
        response: { 201: ScheduleSchema },
      },
    },
    async (req, reply) => reply.code(201).send(scheduleToWire(await createSchedule(ctx, req.body))),
  );

  app.get(
    '/schedules',
    { schema: { summary: 'List schedules', querystring: NoQuery, response: { 200: ScheduleListSchema } } },
    async () => {
      const list = await listSchedules(ctx);
      return { size: list.length, schedules: list.map(scheduleToWire) };
    },
  );

  app.get(
    '/schedules/:id',
    {
      schema: {
        summary: 'Retrieve a schedule',
        description: 'Answers null when no schedule has this id.',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: ScheduleOrNullSchema },
      },
    },
    async (req) => {
      const schedule = await getSchedule(ctx, req.params.id);
      return schedule && scheduleToWire(schedule);
    },
  );

  app.patch(
    '/schedules/:id',
    {
      schema: {
        summary: 'Update a schedule',
        description: 'Partial update; only a Pending schedule can change (409 otherwise).',
        params: IdParams,
        querystring: NoQuery,
        body: SchedulePatchBody,
        response: { 200: ScheduleSchema },
      },
    },
    async (req) => scheduleToWire(await updateSchedule(ctx, req.params.id, req.body)),
  );

  app.delete(
    '/schedules/:id',
    {
      schema: {
        summary: 'Delete a schedule',
        description: 'A deleted schedule never fires.',
        params: IdParams,
        querystring: NoQuery,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (req, reply) => {
      await deleteSchedule(ctx, req.params.id);
      return reply.code(204).send(null);
    },
  );
};
