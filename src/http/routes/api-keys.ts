/** Routes of /api-keys, with GET/PATCH/DELETE /api-keys/{id} (docs/interface.md). */
import { auditContext } from '../request-id.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
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
import { NoQuery } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';
import { createSchema, deleteRoute, getByIdSchema, readSchema, updateSchema } from './operations.js';

/** POST/GET /api-keys, GET/PATCH/DELETE /api-keys/{id}. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, recorder }) => {
  const { store, clock } = ctx;
  const rules = ruleContext(ctx);

  app.post(
    '/api-keys',
    {
      schema: createSchema(
        {
          operationId: 'createApiKey',
          tags: ['API keys'],
          summary: 'Create an API key',
          description:
            'Creates a key, `Enabled` unless `status` says `Disabled`. The answer holds its token (`pk_…`): it is shown only this ' +
            'once, since only its SHA-256 digest is stored. Every key can do everything, managing keys included.',
        },
        ApiKeyCreateBody,
        'The new key, with its token (shown only in this answer).',
        ApiKeyCreatedSchema,
      ),
    },
    async (req, reply) => {
      const { apiKey, token } = await createApiKey(store, clock, req.body, rules, auditContext(req));
      return reply.code(201).send({ ...apiKeyToWire(apiKey), token });
    },
  );

  app.get(
    '/api-keys',
    {
      schema: readSchema(
        {
          operationId: 'listApiKeys',
          tags: ['API keys'],
          summary: 'List API keys',
          description: 'Every API key, oldest first, never with its token. `lastUsed` is written at most a second after a use.',
        },
        NoQuery,
        'Every API key.',
        ApiKeyListSchema,
      ),
    },
    async () => {
      const keys = await listApiKeys(store, recorder);
      return { size: keys.length, apiKeys: keys.map(apiKeyToWire) };
    },
  );

  app.get(
    '/api-keys/:id',
    {
      schema: getByIdSchema(
        {
          operationId: 'getApiKey',
          tags: ['API keys'],
          summary: 'Retrieve an API key',
          description: 'The key, without its token; `null` (with 200) when no key has this id.',
        },
        'The key, or null when no key has this id.',
        ApiKeyOrNullSchema,
      ),
    },
    async (req) => {
      const key = await getApiKey(store, req.params.id, recorder);
      return key && apiKeyToWire(key);
    },
  );

  app.patch(
    '/api-keys/:id',
    {
      schema: updateSchema(
        {
          operationId: 'updateApiKey',
          tags: ['API keys'],
          summary: 'Update an API key',
          description:
            'Renames the key, or disables or enables it; absent fields keep their values. A change applies from the very next ' +
            'request (a `Disabled` key is refused with 403). A key may disable itself.',
        },
        ApiKeyPatchBody,
        'The key as updated.',
        ApiKeySchema,
      ),
    },
    async (req) => apiKeyToWire(await updateApiKey(store, req.params.id, req.body, recorder, rules, auditContext(req))),
  );

  deleteRoute(
    app,
    '/api-keys/:id',
    {
      operationId: 'deleteApiKey',
      tags: ['API keys'],
      summary: 'Delete an API key',
      description: 'Requests with its token are refused (401) from the very next one on. A key may delete itself.',
    },
    (id, req) => deleteApiKey(store, id, auditContext(req)),
  );
};
