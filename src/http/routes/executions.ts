/**
 * Routes of executions (docs/calls.md, "Executions"): the history of a schedule or cron job, one
 * execution, and running a job now.
 */
import { auditContext } from '../request-id.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { JobType } from '../../domain/types.js';
import { getExecution, listExecutions, triggerJob } from '../../service/executions.js';
import { newJobSigningSecret } from '../../service/job-signing.js';
import { IdParams, NoQuery } from '../schemas/common.js';
import { AUTHENTICATED, jsonResponse, problemResponses, WITH_BODY } from '../schemas/operations.js';
import { bearer } from '../scopes.js';
import {
  ExecutionPageQuery,
  ExecutionPageSchema,
  ExecutionSchema,
  executionToWire,
} from '../schemas/executions.js';
import type { RouteDeps } from './deps.js';
import { getByIdRoute, pageReply, queryNumber } from './operations.js';

/**
 * The body a trigger accepts: none at all, or an empty JSON object. Declared per media type, so
 * that Fastify validates a JSON body and lets a request without one through; any other media
 * type is refused (415) by the content type parser.
 */
const TriggerBody = {
  content: {
    'application/json': {
      schema: Type.Object({}, { additionalProperties: false, description: 'An empty object; no fields are taken.' }),
    },
  },
};

/** The answer of POST …/{id}/signing-secret. */
const SigningSecretSchema = Type.Object(
  { signingSecret: Type.String({ description: 'The new secret, `whsec_` + base64 of 32 bytes; shown only this once.' }) },
  { additionalProperties: false, title: 'SigningSecret', description: "A job's own signing secret." },
);

const JOBS: ReadonlyArray<{ jobType: JobType; prefix: string; noun: string; tag: 'Schedules' | 'Cron jobs'; name: string }> = [
  { jobType: 'schedule', prefix: '/schedules', noun: 'schedule', tag: 'Schedules', name: 'Schedule' },
  { jobType: 'cron', prefix: '/cron', noun: 'cron job', tag: 'Cron jobs', name: 'CronJob' },
];

/**
 * GET /schedules/{id}/executions, GET /cron/{id}/executions, POST /schedules/{id}/trigger,
 * POST /cron/{id}/trigger, POST /schedules/{id}/signing-secret, POST /cron/{id}/signing-secret,
 * GET /executions/{id}.
 */
export const executionRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  for (const { jobType, prefix, noun, tag, name } of JOBS) {
    app.get(
      `${prefix}/:id/executions`,
      {
        schema: {
          operationId: `list${name}Executions`,
          tags: [tag, 'Executions'],
          security: bearer('jobs:read'),
          summary: `List the executions of a ${noun}`,
          description:
            `Newest first (by \`scheduledFor\`), \`limit\` at a time; pass \`nextCursor\` as \`cursor\` for the next page. ` +
            `An unknown ${noun}, or one without executions, gives an empty page (not a 404), as a GET of an unknown id gives null. ` +
            'A cursor that was not made by this service is a 400.',
          params: IdParams,
          querystring: ExecutionPageQuery,
          response: {
            200: jsonResponse('A page of executions, newest first.', ExecutionPageSchema),
            ...problemResponses(400, ...AUTHENTICATED),
          },
        },
      },
      async (req) => {
        const { limit, cursor } = req.query;
        const page = await listExecutions(
          ctx,
          jobType,
          req.params.id,
          { limit: queryNumber(limit), cursor },
          '/query',
        );
        return pageReply('executions', page, executionToWire);
      },
    );

    app.post(
      `${prefix}/:id/trigger`,
      {
        config: { idempotent: true },
        schema: {
          operationId: `trigger${name}`,
          tags: [tag],
          security: bearer('jobs:write'),
          summary: `Run a ${noun} now`,
          description:
            `Makes an execution due now (\`triggered: true\`), outside the ${noun}'s own timing, and answers it (202); ` +
            'follow it with GET /executions/{id}. ' +
            (jobType === 'schedule'
              ? 'The schedule must be Pending (409 otherwise); it becomes Running and does not run again at `scheduledAt`. '
              : 'A Paused job runs too; `nextInvocation` does not change. ') +
            'Takes no body, or an empty JSON object. 404 for an unknown id.',
          params: IdParams,
          querystring: NoQuery,
          body: TriggerBody,
          // In the document the body is optional (it is: no body at all is accepted).
          'x-body-optional': true,
          response: {
            202: jsonResponse('The new execution (`triggered: true`), due now.', ExecutionSchema),
            ...problemResponses(400, 404, ...(jobType === 'schedule' ? [409 as const] : []), ...WITH_BODY, ...AUTHENTICATED),
          },
        },
      },
      async (req, reply) => reply.code(202).send(executionToWire(await triggerJob(ctx, jobType, req.params.id, auditContext(req)))),
    );

    app.post(
      `${prefix}/:id/signing-secret`,
      {
        schema: {
          operationId: `new${name}SigningSecret`,
          tags: [tag],
          security: bearer('jobs:write'),
          summary: `Give a ${noun} its own signing secret`,
          description:
            `Generates a new Standard Webhooks signing secret for this ${noun} (\`whsec_\` + base64 of 32 random bytes), stores it ` +
            `encrypted, and answers it: this is the only time it is shown. The ${noun}'s next calls are signed with it instead of the ` +
            "deployment's secret (`signingSecretSet` becomes true); a second call replaces it. " +
            (jobType === 'schedule' ? 'The schedule must be Pending (409 otherwise). ' : '') +
            'Takes no body, or an empty JSON object. 404 for an unknown id; 400 when the service has no encryption key.',
          params: IdParams,
          querystring: NoQuery,
          body: TriggerBody,
          'x-body-optional': true,
          response: {
            200: jsonResponse('The new secret, shown once.', SigningSecretSchema),
            ...problemResponses(400, 404, ...(jobType === 'schedule' ? [409 as const] : []), ...WITH_BODY, ...AUTHENTICATED),
          },
        },
      },
      async (req) => newJobSigningSecret(ctx, jobType, req.params.id),
    );
  }

  getByIdRoute(
    app,
    '/executions/:id',
    {
      operationId: 'getExecution',
      scope: 'jobs:read',
      tags: ['Executions'],
      summary: 'Retrieve an execution',
      description:
        'The execution with its attempts; `null` (with 200) when no execution has this id, or it was pruned ' +
        '(`PUNCTUAL_EXECUTION_RETENTION` after it finished, 7 days by default). Its id is the `webhook-id` of its calls.',
    },
    'The execution, or null when no execution has this id.',
    ExecutionSchema,
    (id) => getExecution(ctx, id),
    executionToWire,
  );
};
