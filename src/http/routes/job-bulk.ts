/** POST /schedules/bulk and POST /cron/bulk (docs/interface.md, "Bulk actions"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { bulkCronJobs, bulkSchedules } from '../../service/job-bulk.js';
import { BulkResultSchema, CronBulkBody, ScheduleBulkBody } from '../schemas/bulk.js';
import type { RouteDeps } from './deps.js';
import { actionSchema } from './operations.js';
import { auditContext } from '../request-id.js';

const ONE_TRANSACTION =
  'Acts on every matching job in one transaction and answers the count; with `"dryRun": true` it answers the count and changes ' +
  'nothing. The filter\'s keys (`tag`, `status`, `ids`) combine with AND; an empty filter is a 400 naming `filter` and changes nothing.';

const ANSWER = 'How many jobs the action changed (or, with `dryRun`, would change).';

/** POST /schedules/bulk, POST /cron/bulk. */
export const jobBulkRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.post(
    '/schedules/bulk',
    {
      schema: actionSchema(
        {
          operationId: 'bulkSchedules',
          scope: 'jobs:write',
          tags: ['Schedules'],
          summary: 'Delete the schedules a filter matches',
          description: `${ONE_TRANSACTION} \`delete\` removes every matching schedule whatever its status, as DELETE /schedules/{id} does (a call already under way still ends; executions stay).`,
        },
        ScheduleBulkBody,
        ANSWER,
        BulkResultSchema,
      ),
    },
    async (req) => bulkSchedules(ctx, req.body, auditContext(req)),
  );

  app.post(
    '/cron/bulk',
    {
      schema: actionSchema(
        {
          operationId: 'bulkCronJobs',
          scope: 'jobs:write',
          tags: ['Cron jobs'],
          summary: 'Pause, resume or delete the cron jobs a filter matches',
          description:
            `${ONE_TRANSACTION} The count is of the jobs changed: \`pause\` counts the Active jobs it paused, \`resume\` the Paused ` +
            'jobs it resumed (each from its next occurrence after now, as a PATCH with `"status": "Active"`), `delete` the jobs deleted.',
        },
        CronBulkBody,
        ANSWER,
        BulkResultSchema,
      ),
    },
    async (req) => bulkCronJobs(ctx, req.body, auditContext(req)),
  );
};
