/** Open (unauthenticated) probes. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DomainError } from '../../domain/errors.js';
import type { NodeRecord } from '../../store/store-nodes.js';
import type { Store } from '../../store/store.js';
import { NoQuery, Timestamp } from '../schemas/common.js';
import { jsonResponse, OPEN, problemResponses } from '../schemas/operations.js';

/** Options of {@link healthRoutes}. */
export interface HealthDeps {
  store: Store;
  /** False while the node is draining (SIGTERM). */
  isReady: () => boolean;
  /** The live nodes of the cluster (`Store.nodesLive`), oldest registration first. */
  liveNodes: () => Promise<NodeRecord[]>;
}

/** The answer of `GET /readyz`: readiness, and the live nodes (docs/multinode.md, "Node liveness"). */
const Ready = Type.Object(
  {
    status: Type.String({ description: '`ready`.', examples: ['ready'] }),
    nodes: Type.Array(
      Type.Object(
        {
          nodeId: Type.String({ description: 'The node’s id (a UUID made at its start; the owner of its leases).' }),
          role: Type.String({ description: 'The node’s role: `all`, `api` or `dispatcher`.' }),
          startedAt: Timestamp('When the node registered: its start, or its return after it was taken for dead.'),
          heartbeatAt: Timestamp('Its last heartbeat, on the store’s clock.'),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'The nodes whose last heartbeat is within `PUNCTUAL_NODE_TIMEOUT` (default 10 s) on this store, oldest registration first; ' +
          'a node silent longer is dead and its calls in progress are taken over.',
      },
    ),
  },
  { additionalProperties: false },
);

const Status = (value: string) =>
  Type.Object({ status: Type.String({ description: `\`${value}\`.`, examples: [value] }) }, { additionalProperties: false });

/**
 * `GET /healthz` (liveness: the process answers; 200 always) and `GET /readyz` (readiness: 200
 * when not draining and the store answers a ping, with the live nodes of the cluster; else a 503
 * problem).
 */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, { store, isReady, liveNodes }) => {
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
          '200 when the node takes work and its store answers a ping, with the live nodes of the cluster; a 503 problem while ' +
          'the store is unreachable or the node is shutting down (SIGTERM), so load balancers send requests elsewhere. No authentication.',
        querystring: NoQuery,
        response: {
          200: jsonResponse('The node is ready.', Ready),
          ...problemResponses(400, 503),
        },
      },
    },
    async () => {
      if (!isReady()) throw new DomainError('store_unavailable', 'The service is shutting down.');
      await store.ping();
      const nodes = (await liveNodes()).map((n) => ({
        nodeId: n.nodeId,
        role: n.role,
        startedAt: new Date(n.startedAt).toISOString(),
        heartbeatAt: new Date(n.heartbeatAt).toISOString(),
      }));
      return { status: 'ready', nodes };
    },
  );
};
