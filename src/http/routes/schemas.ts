/**
 * `GET /schemas/punctual-file.json`: the JSON Schema of `punctual apply`'s file (docs/apply.md),
 * open like `/openapi.json` (an editor fetches it without a key) and, like it, not in the document.
 */
import type { FastifyPluginAsync } from 'fastify';
import { PUNCTUAL_FILE_SCHEMA_PATH, punctualFileJsonSchema } from '../schemas/punctual-file.js';

/** Registers the route; the schema is built once. */
export const schemaRoutes: FastifyPluginAsync = async (app) => {
  const body = JSON.stringify(punctualFileJsonSchema());
  app.get(PUNCTUAL_FILE_SCHEMA_PATH, { schema: { hide: true } }, async (_req, reply) =>
    reply.header('cache-control', 'no-cache').type('application/schema+json').send(body),
  );
};
