/**
 * `Idempotency-Key` on the POSTs that create or trigger (docs/interface.md, "Idempotency-Key"; the
 * IETF httpapi draft "The Idempotency-Key HTTP Header Field"). A route opts in with
 * `config: { idempotent: true }`; {@link idempotencyOnRoute}, an `onRoute` hook, then gives it:
 *  - in its schema, the optional header (so the OpenAPI document lists it) and the 409 and 422 problems;
 *  - a `preValidation` hook, first of the route's: the body is parsed, nothing is validated or done
 *    yet. It checks the key (400 naming the header), fingerprints the body (SHA-256 of its JSON)
 *    and asks the store (`Store.idempotencyBegin`): a kept answer is replayed (same status and
 *    body, `Idempotent-Replayed: true`), another body is a 422, a request still running a 409;
 *  - an `onSend` hook that keeps the answer (2xx and 4xx: `idempotencyFinish`) or frees the key (5xx:
 *    `idempotencyAbandon`) before the answer leaves.
 * Records are per API key (the authenticated key's id), method and path with its query; kept 24 h
 * (`IDEMPOTENCY_RETENTION_MS`, pruned by main.ts); a record left `running` by a crash is taken
 * over after `IDEMPOTENCY_ABANDON_MS`. A request without the header is untouched.
 *
 * Not for answers holding a secret (POST /api-keys, POST …/signing-secret): keeping them would
 * keep the secret in plain text in the store.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRouteHookHandler, preValidationAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../domain/clock.js';
import { InvalidInputError } from '../domain/errors.js';
import type { IdempotencyRef } from '../store/contract/idempotency.js';
import type { Store } from '../store/store.js';
import { IDEMPOTENCY_PROBLEMS, PROBLEM_CONTENT_TYPE, sendProblem } from './problem.js';
import { problemResponses } from './schemas/operations.js';

/** The request header (lowercase, as Node gives headers). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The answer header of a replay. */
export const REPLAYED_HEADER = 'idempotent-replayed';


/** A valid key: 1–255 printable ASCII characters (0x20–0x7E), taken as sent (quotes included). */
const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes `Idempotency-Key` (this module). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The record this request runs under (set by the `preValidation` hook of this module), or null. */
    idempotency: (IdempotencyRef & { startedAt: number }) | null;
  }
}

/** The header's schema in the route's `headers`: for the OpenAPI document (the hook checks first). */
const IdempotencyHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'A key of your choice (1–255 printable ASCII characters, e.g. a UUID) that makes a retry safe: the first answer is kept ' +
        '24 h for this API key, method and path, and the same key with the same body replays it (same status and body, with ' +
        '`Idempotent-Replayed: true`) instead of doing the work again. The same key with another body is a 422; while the first ' +
        'request is still running, a 409. 5xx answers are not kept. See docs/interface.md, "Idempotency-Key".',
    }),
  ),
});

/**
 * The `onRoute` hook that equips routes with `config.idempotent` (see the module's description).
 * Register it in the context of the authenticated routes: the key's id is `request.apiKey`.
 */
export function idempotencyOnRoute(store: Store, clock: Clock): onRouteHookHandler {
  const begin = beginHook(store, clock);
  const keep = keepHook(store);
  return (route) => {
    if (route.config?.idempotent !== true) return;
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    route.schema = {
      ...schema,
      headers: IdempotencyHeaders,
      response: { ...(schema.response as object), ...problemResponses(409, 422) },
    };
    route.preValidation = [begin, ...asList(route.preValidation)];
    route.onSend = [...asList(route.onSend), keep];
  };
}

function asList<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

/** SHA-256 (lowercase hex) of the JSON of a parsed body; no body counts as `null`. */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body ?? null)).digest('hex');
}

/** The key of the request, or null without the header. @throws InvalidInputError for an invalid value */
function keyOf(request: FastifyRequest): string | null {
  const value = request.headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return null;
  if (typeof value === 'string' && KEY_PATTERN.test(value)) return value;
  throw new InvalidInputError(
    [{ path: `/headers/${IDEMPOTENCY_HEADER}`, message: 'must be sent once, with 1 to 255 printable ASCII characters' }],
    'Idempotency-Key must be sent once, with 1 to 255 printable ASCII characters.',
  );
}

function beginHook(store: Store, clock: Clock): preValidationAsyncHookHandler {
  return async function idempotencyBegin(request: FastifyRequest, reply: FastifyReply) {
    request.idempotency = null;
    const key = keyOf(request);
    if (key === null || request.apiKey === null) return;
    const ref: IdempotencyRef = { apiKeyId: request.apiKey.id, method: request.method, path: request.url, key };
    const found = await store.idempotencyBegin({ ...ref, fingerprint: bodyFingerprint(request.body), now: clock.now() });
    switch (found.state) {
      case 'new':
        request.idempotency = { ...ref, startedAt: found.startedAt };
        return;
      case 'done':
        return reply
          .code(found.status)
          .header(REPLAYED_HEADER, 'true')
          .type(found.status >= 400 ? PROBLEM_CONTENT_TYPE : 'application/json; charset=utf-8')
          .send(found.body);
      case 'mismatch':
        return sendProblem(reply, IDEMPOTENCY_PROBLEMS.idempotency_key_reused);
      case 'running':
        return sendProblem(reply, IDEMPOTENCY_PROBLEMS.idempotency_key_in_use);
    }
  };
}

/**
 * Keeps a final answer (2xx, 4xx) before it is sent, or frees the key (5xx). A store that fails
 * here does not change the answer: the failure is logged and the record, left `running`, is taken
 * over after `IDEMPOTENCY_ABANDON_MS`.
 */
function keepHook(store: Store) {
  return async function idempotencyKeep(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const run = request.idempotency;
    if (run === null) return payload;
    request.idempotency = null;
    const status = reply.statusCode;
    try {
      if (status < 500 && typeof payload === 'string') await store.idempotencyFinish({ ...run, status, body: payload });
      else await store.idempotencyAbandon(run);
    } catch (err) {
      request.log.error({ err }, 'could not keep the answer of an Idempotency-Key');
    }
    return payload;
  };
}
