/** Routes of /api-keys (spec §4; GET/PATCH/DELETE /api-keys/{id} from issue #2 §2). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createApiKey, deleteApiKey, getApiKey, listApiKeys, updateApiKey } from '../../service/api-keys.js';
import { ruleContext } from '../../service/rules.js';
import {
  ApiKeyCreateBody,
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  ApiKeyOrNullSchema,
  ApiKeyPatchBody,
  ApiKeySchema,
  apiKeyToWire,
} from '../schemas/api-keys.js';
import { IdParams, NoQuery } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

/** POST/GET /api-keys, GET/PATCH/DELETE /api-keys/{id}. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, recorder }) => {
  const { store, clock } = ctx;
  const rules = ruleContext(ctx);

  app.post(
    '/api-keys',
    {
      schema: {
        summary: 'Create an API key',
        description: 'The answer holds the token; it is shown only this once.',
        querystring: NoQuery,
        body: ApiKeyCreateBody,
        response: { 201: ApiKeyCreatedSchema },
      },
    },
    async (req, reply) => {
      const { apiKey, token } = await createApiKey(store, clock, req.body, rules);
      return reply.code(201).send({ ...apiKeyToWire(apiKey), token });
    },
  );

  app.get(
    '/api-keys',
    { schema: { summary: 'List API keys', querystring: NoQuery, response: { 200: ApiKeyListSchema } } },
    async () => {
      const keys = await listApiKeys(store, recorder);
      return { size: keys.length, apiKeys: keys.map(apiKeyToWire) };
    },
  );

  app.get(
    '/api-keys/:id',
    {
      schema: {
        summary: 'Retrieve an API key',
        description: 'Answers null when no key has this id.',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: ApiKeyOrNullSchema },
      },
    },
    async (req) => {
      const key = await getApiKey(store, req.params.id, recorder);
      return key && apiKeyToWire(key);
    },
  );

  app.patch(
    '/api-keys/:id',
    {
      schema: {
        summary: 'Update an API key',
        description: 'Rename it, or disable / enable it (applies from the next request).',
        params: IdParams,
        querystring: NoQuery,
        body: ApiKeyPatchBody,
        response: { 200: ApiKeySchema },
      },
    },
    async (req) => apiKeyToWire(await updateApiKey(store, req.params.id, req.body, recorder, rules)),
  );

  app.delete(
    '/api-keys/:id',
    {
      schema: {
        summary: 'Delete an API key',
        description: 'Requests with its token are refused from the next one on.',
        params: IdParams,
        querystring: NoQuery,
        response: { 204: Type.Null({ description: 'Deleted.' }) },
      },
    },
    async (req, reply) => {
      await deleteApiKey(store, req.params.id);
      return reply.code(204).send(null);
    },
  );
};
