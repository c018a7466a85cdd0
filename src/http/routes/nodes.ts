/** `GET /nodes`: the live nodes of the cluster, behind a key with `metrics:read` (docs/multinode.md, "Node liveness"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { NodeRecord } from '../../store/contract/nodes.js';
import { NoQuery, Timestamp } from '../schemas/common.js';
import { AUTHENTICATED, jsonResponse, problemResponses } from '../schemas/operations.js';
import { operationHead } from './operations.js';

/** Options of {@link nodeRoutes}. */
export interface NodeRouteDeps {
  /** The live nodes of the cluster (`Store.nodesLive`), oldest registration first. */
  liveNodes: () => Promise<NodeRecord[]>;
}

const NodeSchema = Type.Object(
  {
    nodeId: Type.String({ description: 'The node’s id (a UUID made at its start; the owner of its leases).' }),
    role: Type.String({ description: 'The node’s role: `all`, `api` or `dispatcher`.' }),
    startedAt: Timestamp('When the node registered: its start, or its return after it was taken for dead.'),
    heartbeatAt: Timestamp('Its last heartbeat, on the store’s clock.'),
  },
  { additionalProperties: false, title: 'Node', description: 'A live node of the cluster.' },
);

const NodeListSchema = Type.Object(
  {
    size: Type.Integer({ minimum: 0, description: 'How many nodes are live.' }),
    nodes: Type.Array(NodeSchema, {
      description:
        'The nodes whose last heartbeat is within `PUNCTUAL_NODE_TIMEOUT` (default 10 s) on this store, oldest registration first; ' +
        'a node silent longer is dead and its calls in progress are taken over.',
    }),
  },
  { additionalProperties: false, title: 'NodeList', description: 'The live nodes.' },
);

/** GET /nodes (`metrics:read`). */
export const nodeRoutes: FastifyPluginAsyncTypebox<NodeRouteDeps> = async (app, { liveNodes }) => {
  app.get(
    '/nodes',
    {
      schema: {
        ...operationHead({
          operationId: 'listNodes',
          scope: 'metrics:read',
          tags: ['Metrics'],
          summary: 'List the live nodes',
          description:
            'The nodes of the cluster whose heartbeat is recent (ids, roles, registration and last heartbeat), as node liveness ' +
            'sees them on the shared store. Needs `metrics:read`; `GET /readyz` says only whether this node is ready.',
        }),
        querystring: NoQuery,
        response: { 200: jsonResponse('The live nodes, oldest registration first.', NodeListSchema), ...problemResponses(400, ...AUTHENTICATED) },
      },
    },
    async () => {
      const nodes = (await liveNodes()).map((n) => ({
        nodeId: n.nodeId,
        role: n.role,
        startedAt: new Date(n.startedAt).toISOString(),
        heartbeatAt: new Date(n.heartbeatAt).toISOString(),
      }));
      return { size: nodes.length, nodes };
    },
  );
};
