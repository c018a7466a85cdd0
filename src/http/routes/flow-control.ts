/**
 * Routes of /flow-control-keys: PUT, GET and DELETE /flow-control-keys/{key}, POST
 * /flow-control-keys/{key}/pause and …/resume, and the list (docs/flow-control.md). Changes need
 * `jobs:write`, reads `jobs:read`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  deleteFlowControlKey,
  getFlowControlKey,
  listFlowControlKeys,
  putFlowControlKey,
  setFlowControlKeyPaused,
} from '../../service/flow-control.js';
import { NoQuery, Nullable } from '../schemas/common.js';
import {
  FlowControlKeyBody,
  FlowControlKeyListSchema,
  FlowControlKeyParams,
  FlowControlKeySchema,
  flowControlKeyToWire,
} from '../schemas/flow-control.js';
import { AUTHENTICATED, jsonResponse, problemResponses, WITH_BODY } from '../schemas/operations.js';
import type { RouteDeps } from './deps.js';
import { operationHead, readSchema } from './operations.js';

const TAGS = ['Flow control' as const];

/** The routes of flow-control keys. */
export const flowControlRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.put(
    '/flow-control-keys/:key',
    {
      schema: {
        ...operationHead({
          operationId: 'putFlowControlKey',
          scope: 'jobs:write',
          tags: TAGS,
          summary: 'Configure a flow-control key',
          description:
            'Creates the key or replaces all its limits (absent limits are null). Calls already waiting take the new limits within a second. ' +
            'At least one of `parallelism` and `rate` unless `paused`. 201 when it created the key, 200 when it replaced its limits.',
        }),
        params: FlowControlKeyParams,
        querystring: NoQuery,
        body: FlowControlKeyBody,
        response: {
          200: jsonResponse('The key, its limits replaced.', FlowControlKeySchema),
          201: jsonResponse('The key, created.', FlowControlKeySchema),
          ...problemResponses(400, ...WITH_BODY, ...AUTHENTICATED),
        },
      },
    },
    async (req, reply) => {
      const { view, created } = await putFlowControlKey(ctx, req.params.key, req.body);
      return reply.code(created ? 201 : 200).send(flowControlKeyToWire(view));
    },
  );

  app.get(
    '/flow-control-keys',
    {
      schema: readSchema(
        {
          scope: 'jobs:read',
          operationId: 'listFlowControlKeys',
          tags: TAGS,
          summary: 'List flow-control keys',
          description: 'Every key in use, in byte order of their names: the configured ones and those named by jobs, each with its live state.',
        },
        NoQuery,
        'Every key.',
        FlowControlKeyListSchema,
      ),
    },
    async () => {
      const keys = await listFlowControlKeys(ctx);
      return { size: keys.length, flowControlKeys: keys.map(flowControlKeyToWire) };
    },
  );

  app.get(
    '/flow-control-keys/:key',
    {
      schema: {
        ...operationHead({
          scope: 'jobs:read',
          operationId: 'getFlowControlKey',
          tags: TAGS,
          summary: 'Retrieve a flow-control key',
          description: 'The key with its limits and live state; `null` (with 200) when no job, execution or configuration names it.',
        }),
        params: FlowControlKeyParams,
        querystring: NoQuery,
        response: { 200: jsonResponse('The key, or null.', Nullable(FlowControlKeySchema)), ...problemResponses(400, ...AUTHENTICATED) },
      },
    },
    async (req) => {
      const view = await getFlowControlKey(ctx, req.params.key);
      return view && flowControlKeyToWire(view);
    },
  );

  app.delete(
    '/flow-control-keys/:key',
    {
      schema: {
        ...operationHead({
          scope: 'jobs:write',
          operationId: 'deleteFlowControlKey',
          tags: TAGS,
          summary: 'Remove a flow-control key',
          description: 'Removes the key\'s limits: its waiting calls start at once (a key named by jobs stays listed, without limits). 404 when it is not configured.',
        }),
        params: FlowControlKeyParams,
        querystring: NoQuery,
        response: { 204: Type.Null({ description: 'Removed; no body.' }), ...problemResponses(400, 404, ...AUTHENTICATED) },
      },
    },
    async (req, reply) => {
      await deleteFlowControlKey(ctx, req.params.key);
      return reply.code(204).send(null);
    },
  );

  for (const [action, paused] of [['pause', true], ['resume', false]] as const) {
    app.post(
      `/flow-control-keys/:key/${action}`,
      {
        schema: {
          ...operationHead({
            scope: 'jobs:write',
            operationId: `${action}FlowControlKey`,
            tags: TAGS,
            summary: paused ? 'Pause a flow-control key' : 'Resume a flow-control key',
            description: paused
              ? 'The key starts no call until resumed; its calls wait, none is dropped. 404 for a key not configured ' +
                '(a PUT with `paused: true` configures one paused, without limits).'
              : 'The key starts its waiting calls again, within its limits. 404 for a key not configured.',
          }),
          params: FlowControlKeyParams,
          querystring: NoQuery,
          response: { 200: jsonResponse('The key.', FlowControlKeySchema), ...problemResponses(400, 404, ...AUTHENTICATED) },
        },
      },
      async (req) => flowControlKeyToWire(await setFlowControlKeyPaused(ctx, req.params.key, paused)),
    );
  }
};
