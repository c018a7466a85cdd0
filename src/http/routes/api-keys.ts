/** Routes of /api-keys, with GET/PATCH/DELETE /api-keys/{id} and POST /api-keys/{id}/rotate (docs/interface.md, docs/keys-and-audit.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { ApiKey } from '../../domain/types.js';
import { rotateApiKey } from '../../service/api-key-rotation.js';
import { createApiKey, deleteApiKey, getApiKey, listApiKeys, updateApiKey } from '../../service/api-keys.js';
import { ruleContext } from '../../service/rules.js';
import {
  ApiKeyCreateBody,
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  ApiKeyPatchBody,
  ApiKeyRotateBody,
  ApiKeySchema,
  apiKeyToWire,
  type ApiKeyCreatedWire,
} from '../schemas/api-keys.js';
import { IdParams, NoQuery } from '../schemas/common.js';
import { AUTHENTICATED, jsonResponse, problemResponses, WITH_BODY } from '../schemas/operations.js';
import type { RouteDeps } from './deps.js';
import { createRoute, deleteRoute, getByIdRoute, operationHead, readSchema, updateRoute } from './operations.js';
import { auditContext } from '../request-id.js';

/** The wire form of a key with its token, as a create and a rotation answer it (the only answers with a token). */
function withToken({ apiKey, token }: { apiKey: ApiKey; token: string }): ApiKeyCreatedWire {
  return { ...apiKeyToWire(apiKey), token };
}

/**
 * POST/GET /api-keys, GET/PATCH/DELETE /api-keys/{id}, POST /api-keys/{id}/rotate; all need
 * `keys:manage`, and the scopes a key creates, patches or rotates in are at most the caller's.
 */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, recorder }) => {
  const { store, clock } = ctx;
  const rules = ruleContext(ctx);

  createRoute(app, {
    path: '/api-keys',
    text: {
      operationId: 'createApiKey',
      scope: 'keys:manage',
      tags: ['API keys'],
      summary: 'Create an API key',
      description:
        'Creates a key, `Enabled` unless `status` says `Disabled`, with `scopes` (absent: the calling key\'s) and an optional ' +
        '`expiresAt`. A key never grants a scope it does not hold: scopes beyond the calling key\'s are a 403 naming them. ' +
        'The answer holds its token (`pk_…`): it is shown only this once, since only its SHA-256 digest is stored.',
    },
    body: ApiKeyCreateBody,
    answer: 'The new key, with its token (shown only in this answer).',
    schema: ApiKeyCreatedSchema,
    create: (body, req) => createApiKey(store, clock, body, rules, req.apiKey!.scopes, auditContext(req)),
    toWire: withToken,
  });

  app.get(
    '/api-keys',
    {
      schema: readSchema(
        {
          operationId: 'listApiKeys',
          scope: 'keys:manage',
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

  getByIdRoute(
    app,
    '/api-keys/:id',
    {
      operationId: 'getApiKey',
      scope: 'keys:manage',
      tags: ['API keys'],
      summary: 'Retrieve an API key',
      description: 'The key, without its token; `null` (with 200) when no key has this id.',
    },
    'The key, or null when no key has this id.',
    ApiKeySchema,
    (id) => getApiKey(store, id, recorder),
    apiKeyToWire,
  );

  updateRoute(app, {
    path: '/api-keys/:id',
    text: {
      operationId: 'updateApiKey',
      scope: 'keys:manage',
      tags: ['API keys'],
      summary: 'Update an API key',
      description:
        'Renames the key, disables or enables it, sets its `scopes` (at most the calling key\'s own: 403 otherwise) or its ' +
        '`expiresAt` (null: never); absent fields keep their values. A change applies from the very next request (a `Disabled` ' +
        'key is refused with 403, an expired one with 401). A key may disable itself.',
    },
    body: ApiKeyPatchBody,
    answer: 'The key as updated.',
    schema: ApiKeySchema,
    update: (id, body, req) => updateApiKey(store, id, body, recorder, rules, { clock, granter: req.apiKey!.scopes, audit: auditContext(req) }),
    toWire: apiKeyToWire,
  });

  app.post(
    '/api-keys/:id/rotate',
    {
      schema: {
        ...operationHead({
          operationId: 'rotateApiKey',
          scope: 'keys:manage',
          tags: ['API keys'],
          summary: 'Rotate an API key\'s token',
          description:
            'Gives the key a new token, answered this once (as at creation), and keeps the token it had valid for ' +
            '`gracePeriodSeconds` (default 3,600; 0 refuses it at once), so that deployments can move to the new token without a ' +
            'gap; after that the old token is a 401. Id, name, scopes, status, expiry and `lastUsed` stay; a token replaced by an ' +
            'earlier rotation is refused at once. The calling key must hold every scope of the key it rotates (403 otherwise). ' +
            'Takes no body, or a JSON object. 404 for an unknown id.',
        }),
        params: IdParams,
        querystring: NoQuery,
        // The content form, as the triggers: no body at all is accepted too.
        body: { content: { 'application/json': { schema: ApiKeyRotateBody } } },
        'x-body-optional': true,
        response: {
          200: jsonResponse('The key with its new token (shown only in this answer).', ApiKeyCreatedSchema),
          ...problemResponses(400, 404, ...WITH_BODY, ...AUTHENTICATED),
        },
      },
    },
    async (req) =>
      withToken(await rotateApiKey(store, clock, req.params.id, (req.body as Static<typeof ApiKeyRotateBody> | undefined) ?? {}, req.apiKey!.scopes, auditContext(req))),
  );

  deleteRoute(
    app,
    '/api-keys/:id',
    {
      operationId: 'deleteApiKey',
      scope: 'keys:manage',
      tags: ['API keys'],
      summary: 'Delete an API key',
      description: 'Requests with its token are refused (401) from the very next one on. A key may delete itself.',
    },
    (id, req) => deleteApiKey(store, id, auditContext(req)),
  );
};
