/** GET /audit-events (docs/keys-and-audit.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listAuditEvents } from '../../service/audit.js';
import { AuditEventPageSchema, AuditEventQuery, auditEventToWire } from '../schemas/audit.js';
import type { RouteDeps } from './deps.js';
import { pageReply, queryNumber, readSchema } from './operations.js';

/** GET /audit-events: needs the `keys:manage` scope. */
export const auditRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.get(
    '/audit-events',
    {
      schema: readSchema(
        {
          operationId: 'listAuditEvents',
          scope: 'keys:manage',
          tags: ['Audit log'],
          summary: 'List audit events',
          description:
            'Every change made through the API or the CLI, and by the service itself (auto-pauses, failed sign-ins counted per ' +
            'address and minute), newest first (by `occurredAt`, then id), `limit` at a time; pass `nextCursor` as `cursor` for ' +
            'the next page. Filters combine: `actorKeyId`, `resourceType`, `resourceId`, `action`, `from` (inclusive) and `to` ' +
            '(exclusive) on `occurredAt`. Events are kept `PUNCTUAL_AUDIT_RETENTION` (default 90 days).',
        },
        AuditEventQuery,
        'A page of audit events, newest first.',
        AuditEventPageSchema,
      ),
    },
    async (req) => {
      const { limit, ...filters } = req.query;
      const page = await listAuditEvents(ctx.store, { ...filters, limit: queryNumber(limit) }, '/query');
      return pageReply('events', page, auditEventToWire);
    },
  );
};
