/**
 * The request id (docs/keys-and-audit.md, "Request ids"): Fastify's `request.id`, which pino logs as
 * `reqId`, every answer carries as `X-Request-Id`, and the audit event of a change records as
 * `requestId`. A client's own `X-Request-Id` is kept when it is 1–128 characters of
 * `[A-Za-z0-9._:-]`; otherwise (absent, too long, other characters) the service makes one, a UUID v7.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditContext } from '../domain/audit.js';
import { newId } from '../domain/ids.js';

/** The header, in both directions. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The form of a request id a client may choose. */
export const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's `genReqId`: the client's id when valid ({@link CLIENT_REQUEST_ID}), else a new UUID v7. */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : newId();
}

/** Puts `X-Request-Id` on every answer of `app`, errors and 404s included. */
export function sendRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
}

/**
 * Who makes a change through this request, for its audit event: the key that authenticated it
 * (its id and name), the request id and the client's address (`request.ip`).
 */
export function auditContext(request: FastifyRequest): AuditContext {
  const key = request.apiKey;
  return {
    actor: key ? { keyId: key.id, keyName: key.name } : 'system',
    requestId: request.id,
    sourceAddress: request.ip,
  };
}
