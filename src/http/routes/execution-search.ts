/**
 * Routes of executions across jobs (docs/interface.md, "Executions across jobs" and "Replay"):
 * GET /executions, POST /executions/{id}/replay, POST /executions/replay.
 */
import { auditContext } from '../request-id.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { replayExecution, replayExecutions } from '../../service/execution-search.js';
import { searchExecutions } from '../../service/execution-search.js';
import { IdParams, NoQuery } from '../schemas/common.js';
import { ExecutionPageSchema, ExecutionSchema, executionToWire } from '../schemas/executions.js';
import { ExecutionSearchQuery, ExecutionsReplayBody, ExecutionsReplayedSchema } from '../schemas/execution-search.js';
import { AUTHENTICATED, jsonResponse, problemResponses, WITH_BODY } from '../schemas/operations.js';
import { bearer } from '../scopes.js';
import type { RouteDeps } from './deps.js';
import { pageReply, queryNumber, readSchema } from './operations.js';
import { repeatable } from './query.js';

const REPLAY_SEMANTICS =
  'The execution becomes `Retrying`, due now, with a fresh attempt budget from its job\'s current retry policy: its attempt ' +
  'numbers continue (the next attempt is N+1 of the same execution) and its calls keep the same `webhook-id` (the ' +
  'execution\'s id). A schedule\'s execution puts the schedule back to `Running` until the new outcome.';

/** GET /executions, POST /executions/{id}/replay, POST /executions/replay. */
export const executionSearchRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, metrics }) => {
  app.get(
    '/executions',
    {
      schema: readSchema(
        {
          operationId: 'listExecutions',
          scope: 'jobs:read',
          tags: ['Executions'],
          summary: 'List executions across jobs',
          description:
            'Newest first (by `scheduledFor`, then id), `limit` at a time; pass `nextCursor` as `cursor` for the next page ' +
            '(null on the last one). Filters combine: `status` (repeatable: any of them), `jobType`, `jobId`, `from` ' +
            '(inclusive) and `to` (exclusive) on `scheduledFor`. A page costs the same however many executions are stored ' +
            '(index-backed; with `jobId` and `status` together, statuses are checked among that job\'s executions).',
        },
        ExecutionSearchQuery,
        'A page of executions, newest first.',
        ExecutionPageSchema,
      ),
      // `?status=a` parses to a string and `?status=a&status=b` to an array: always an array for the schema.
      preValidation: async (req) => repeatable(req.query as Record<string, unknown>, 'status'),
    },
    async (req) => {
      const { limit, cursor, status, jobType, jobId, from, to } = req.query;
      const page = await searchExecutions(ctx, { limit: queryNumber(limit), cursor, status, jobType, jobId, from, to }, '/query');
      return pageReply('executions', page, executionToWire);
    },
  );

  app.post(
    '/executions/:id/replay',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'replayExecution',
        tags: ['Executions'],
        security: bearer('jobs:write'),
        summary: 'Replay a failed execution',
        description:
          `Reopens a \`Failed\` execution and answers it (202); follow it with GET /executions/{id}. ${REPLAY_SEMANTICS} ` +
          '409 when it is not `Failed` or its job was deleted; 404 for an unknown id. Takes no body.',
        params: IdParams,
        querystring: NoQuery,
        response: {
          202: jsonResponse('The execution, `Retrying` and due now.', ExecutionSchema),
          ...problemResponses(400, 404, 409, ...AUTHENTICATED),
        },
      },
    },
    async (req, reply) => {
      const execution = await replayExecution(ctx, req.params.id, auditContext(req));
      metrics?.countReplayed?.(1);
      return reply.code(202).send(executionToWire(execution));
    },
  );

  app.post(
    '/executions/replay',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'replayExecutions',
        tags: ['Executions'],
        security: bearer('jobs:write'),
        summary: 'Replay the failed executions matching a filter',
        description:
          'Replays, in one transaction, the `Failed` executions matching every field of the filter (`jobType`, `jobId`, ' +
          '`from` inclusive and `to` exclusive on `scheduledFor`) whose job still exists, newest first, at most 10,000 at ' +
          `once, and answers how many (202). Each as POST /executions/{id}/replay: ${REPLAY_SEMANTICS} ` +
          'The filter must have at least one field (400 otherwise).',
        querystring: NoQuery,
        body: ExecutionsReplayBody,
        response: {
          202: jsonResponse('How many executions were replayed.', ExecutionsReplayedSchema),
          ...problemResponses(400, ...WITH_BODY, ...AUTHENTICATED),
        },
      },
    },
    async (req, reply) => {
      const count = await replayExecutions(ctx, req.body, '', auditContext(req));
      if (count > 0) metrics?.countReplayed?.(count);
      return reply.code(202).send({ count });
    },
  );
};
