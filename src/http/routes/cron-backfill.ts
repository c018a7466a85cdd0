/** Route of the backfill of a cron job: POST /cron/{id}/backfill (docs/cron.md, "Backfill"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BACKFILL_MAX, backfillCron } from '../../service/cron-backfill.js';
import { IdParams, NoQuery } from '../schemas/common.js';
import { CronBackfillBody, CronBackfilledSchema } from '../schemas/cron-backfill.js';
import { executionToWire } from '../schemas/executions.js';
import { AUTHENTICATED, jsonResponse, problemResponses, WITH_BODY } from '../schemas/operations.js';
import { bearer } from '../scopes.js';
import type { RouteDeps } from './deps.js';
import { auditContext } from '../request-id.js';

/** POST /cron/{id}/backfill. */
export const cronBackfillRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, metrics }) => {
  app.post(
    '/cron/:id/backfill',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'backfillCronJob',
        tags: ['Cron jobs'],
        security: bearer('jobs:write'),
        summary: 'Run the past occurrences that have no execution',
        description:
          'Creates, in one transaction, an execution (`backfill: true`, `Pending`) for each occurrence of the job\'s expression in ' +
          `[from, to) (in its time zone) that has none yet, and answers them (202). At most ${BACKFILL_MAX.toLocaleString('en')} ` +
          'occurrences per request (400 naming `to` otherwise: narrow the range); `from` before `to`, `to` not after now, `from` ' +
          'within the execution retention of now (400 naming the field). They run oldest first at the pace of `overlap`: all at ' +
          'once with `allow`, one at a time with `skip` (the next starts when the previous one ends). Occurrences that ran, ' +
          'failed or were Skipped are left alone (replay failed ones with POST /executions/replay); a second call over the ' +
          'same range creates nothing. A Paused job is backfilled too. Backfilled executions do not count in `invocations`. ' +
          '404 for an unknown id.',
        params: IdParams,
        querystring: NoQuery,
        body: CronBackfillBody,
        response: {
          202: jsonResponse('The executions created.', CronBackfilledSchema),
          ...problemResponses(400, 404, ...WITH_BODY, ...AUTHENTICATED),
        },
      },
    },
    async (req, reply) => {
      const created = await backfillCron(ctx, req.params.id, req.body, '', auditContext(req));
      if (created.length > 0) metrics?.countBackfilled?.(created.length);
      return reply.code(202).send({ count: created.length, executions: created.map(executionToWire) });
    },
  );
};
