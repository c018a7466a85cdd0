/** Open (unauthenticated) probes. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DomainError } from '../../domain/errors.js';
import type { Store } from '../../store/store.js';
import { NoQuery } from '../schemas/common.js';
import { jsonResponse, OPEN, problemResponses } from '../schemas/operations.js';

/** Options of {@link healthRoutes}. */
export interface HealthDeps {
  store: Store;
  /** False while the node is draining (SIGTERM). */
  isReady: () => boolean;
}

const Status = (value: string) =>
  Type.Object({ status: Type.String({ description: `\`${value}\`.`, examples: [value] }) }, { additionalProperties: false });

/**
 * `GET /healthz` (liveness: the process answers; 200 always) and `GET /readyz` (readiness: 200
 * when not draining and the store answers a ping; else a 503 problem). Neither says anything
 * about the cluster: its live nodes are `GET /nodes`, behind a key (routes/nodes.ts).
 */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, { store, isReady }) => {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['Health'],
        security: OPEN,
        summary: 'Liveness',
        description: 'Always 200 while the process serves; for liveness probes. No authentication.',
        querystring: NoQuery,
        response: {
          200: jsonResponse('The process serves.', Status('ok')),
          ...problemResponses(400),
        },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['Health'],
        security: OPEN,
        summary: 'Readiness',
        description:
          '200 when the node takes work and its store answers a ping; a 503 problem while the store is unreachable or the node is ' +
          'shutting down (SIGTERM), so load balancers send requests elsewhere. No authentication, and nothing about the cluster ' +
          '(its live nodes are `GET /nodes`, with `metrics:read`).',
        querystring: NoQuery,
        response: {
          200: jsonResponse('The node is ready.', Status('ready')),
          ...problemResponses(400, 503),
        },
      },
    },
    async () => {
      if (!isReady()) throw new DomainError('store_unavailable', 'The service is shutting down.');
      await store.ping();
      return { status: 'ready' };
    },
  );
};
