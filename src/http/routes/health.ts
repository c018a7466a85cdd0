/** Open (unauthenticated) probes. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DomainError } from '../../domain/errors.js';
import type { Store } from '../../store/store.js';
import { NoQuery } from '../schemas/common.js';

/** Options of {@link healthRoutes}. */
export interface HealthDeps {
  store: Store;
  /** False while the node is draining (SIGTERM). */
  isReady: () => boolean;
}

const Status = (description: string) =>
  Type.Object({ status: Type.String({ description }) }, { additionalProperties: false });

/**
 * `GET /healthz` (liveness: the process answers; 200 always) and `GET /readyz` (readiness: 200
 * when not draining and the store answers a ping, else a 503 problem).
 */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, { store, isReady }) => {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness',
        description: 'Always 200 while the process serves. No authentication.',
        querystring: NoQuery,
        response: { 200: Status('`ok`') },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness',
        description: '200 when the node takes work and its store answers; 503 problem otherwise. No authentication.',
        querystring: NoQuery,
        response: { 200: Status('`ready`') },
      },
    },
    async () => {
      if (!isReady()) throw new DomainError('store_unavailable', 'The service is shutting down.');
      await store.ping();
      return { status: 'ready' };
    },
  );
};
