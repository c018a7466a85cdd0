/**
 * What the resource routes share: the schemas of a read (200 with a JSON body), of a create and of
 * an update, the whole POST (create), GET, PATCH and DELETE by id routes, and the JSON of a page
 * of a list (docs/interface.md, "Lists").
 */
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static, type TSchema } from 'typebox';
import { IdParams, NoQuery, Nullable } from '../schemas/common.js';
import type { ApiKeyScope } from '../../domain/enums.js';
import { bearer } from '../scopes.js';
import { AUTHENTICATED, jsonResponse, problemResponses, WITH_BODY, type TagName } from '../schemas/operations.js';

/** The application a resource plugin registers its routes on. */
export type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** The text of an operation in the OpenAPI document (docs/openapi.json). */
export interface OperationText {
  operationId: string;
  tags: TagName[];
  summary: string;
  description: string;
  /** The scope a key needs for the operation (src/http/scopes.ts): its `security` in the document. */
  scope: ApiKeyScope;
}

/** The fields every authenticated operation starts with: its text and the bearer requirement with its scope. */
export function operationHead(text: OperationText) {
  const { operationId, tags, summary, description, scope } = text;
  return { operationId, tags, security: bearer(scope), summary, description };
}

/**
 * Schema of an authenticated read: `querystring`, and a 200 answer of `schema` described by
 * `answer`; problems 400 and those of every authenticated operation.
 */
export function readSchema<Q extends TSchema, T extends TSchema>(text: OperationText, querystring: Q, answer: string, schema: T) {
  return { ...operationHead(text), querystring, response: readResponses(answer, schema) };
}

function readResponses<T extends TSchema>(answer: string, schema: T) {
  return { 200: jsonResponse(answer, schema), ...problemResponses(400, ...AUTHENTICATED) };
}

/**
 * Schema of POST /{resource}: a JSON `body`, no query, a 201 answer of `schema` (the new resource)
 * described by `answer`; problems 400, those of a body and those of every authenticated operation.
 */
export function createSchema<B extends TSchema, T extends TSchema>(text: OperationText, body: B, answer: string, schema: T) {
  return postSchema(text, body, { 201: jsonResponse(answer, schema) });
}

/**
 * Schema of a POST that acts on existing resources (e.g. POST /cron/bulk): a JSON `body`, no
 * query, a 200 answer of `schema` described by `answer`; problems 400, those of a body and those
 * of every authenticated operation.
 */
export function actionSchema<B extends TSchema, T extends TSchema>(text: OperationText, body: B, answer: string, schema: T) {
  return postSchema(text, body, { 200: jsonResponse(answer, schema) });
}

/**
 * Schema of a POST with a JSON `body` and no query: the answers of `success` (by status), then
 * the problems 400, those of a body and those of every authenticated operation.
 */
function postSchema<B extends TSchema, S extends object>(text: OperationText, body: B, success: S) {
  return {
    ...operationHead(text),
    querystring: NoQuery,
    body,
    response: { ...success, ...problemResponses(400, ...WITH_BODY, ...AUTHENTICATED) },
  };
}

/**
 * Schema of PATCH /{resource}/{id}: a JSON `body`, no query, a 200 answer of `schema` (the resource
 * as updated); problems 400, 404 (unknown id), 409 when `conflict` (a change the resource's status
 * forbids), those of a body and those of every authenticated operation.
 */
export function updateSchema<B extends TSchema, T extends TSchema>(
  text: OperationText,
  body: B,
  answer: string,
  schema: T,
  conflict = false,
) {
  const problems = problemResponses(400, 404, ...(conflict ? [409 as const] : []), ...WITH_BODY, ...AUTHENTICATED);
  return { ...operationHead(text), params: IdParams, querystring: NoQuery, body, response: { 200: jsonResponse(answer, schema), ...problems } };
}

/** What a route with a JSON body is registered with: POST (create) or PATCH (update). */
interface BodyRoute<B extends TSchema, R, T extends TSchema> {
  /** Its path (ending in `/:id` for an update). */
  path: string;
  text: OperationText;
  /** The schema of the body. */
  body: B;
  /** The description of the answer. */
  answer: string;
  /** The schema of the answer. */
  schema: T;
  /** The wire form of what the route made or changed. */
  toWire: (resource: R) => Static<T>;
}

/** A create route ({@link createRoute}). */
export interface CreateRoute<B extends TSchema, R, T extends TSchema> extends BodyRoute<B, R, T> {
  /**
   * Makes the resources of the body.
   * @throws a problem's error for a faulty body (400, 403, 409…)
   */
  create: (body: Static<B>, request: FastifyRequest) => Promise<R>;
  /** The route takes `Idempotency-Key` (idempotency.ts). */
  idempotent?: true;
  /** Largest body in bytes, instead of the server's. */
  bodyLimit?: number;
}

/** An update route ({@link updateRoute}). */
export interface UpdateRoute<B extends TSchema, R, T extends TSchema> extends BodyRoute<B, R, T> {
  /**
   * Changes the resource `id` as the body says.
   * @throws NotFoundError for an unknown id; a problem's error for a faulty body
   */
  update: (id: string, body: Static<B>, request: FastifyRequest) => Promise<R>;
  /** The answers include 409: a change the resource's status forbids. */
  conflict?: boolean;
}

/** Registers POST `route.path` ({@link createSchema}): 201 with the wire form of what `route.create` made. */
export function createRoute<B extends TSchema, R, T extends TSchema>(app: App, route: CreateRoute<B, R, T>): void {
  const { path, text, body, answer, schema, create, toWire, idempotent, bodyLimit } = route;
  const options = { ...(bodyLimit === undefined ? {} : { bodyLimit }), ...(idempotent ? { config: { idempotent } } : {}) };
  app.post(path, { ...options, schema: createSchema(text, body, answer, schema) }, async (req, reply) =>
    reply.code(201).send(toWire(await create(req.body as Static<B>, req))),
  );
}

/** Registers PATCH `route.path` ({@link updateSchema}): 200 with the wire form of the resource as `route.update` changed it. */
export function updateRoute<B extends TSchema, R, T extends TSchema>(app: App, route: UpdateRoute<B, R, T>): void {
  const { path, text, body, answer, schema, update, toWire, conflict } = route;
  app.patch(path, { schema: updateSchema(text, body, answer, schema, conflict) }, async (req) =>
    toWire(await update(req.params.id, req.body as Static<B>, req)),
  );
}

/**
 * Registers GET `path` (a path ending in `/:id`), no query: 200 with the wire form (`toWire`) of
 * the resource `load` finds, or with null when it finds none (never a 404: an unknown id, or one
 * that is not a UUID, answers null). `schema` is the resource's (the answer is it or null),
 * described by `answer`.
 */
export function getByIdRoute<R, T extends TSchema>(
  app: App,
  path: string,
  text: OperationText,
  answer: string,
  schema: T,
  load: (id: string) => Promise<R | null>,
  toWire: (resource: R) => Static<T>,
): void {
  const response = readResponses(answer, Nullable(schema));
  app.get(path, { schema: { ...operationHead(text), params: IdParams, querystring: NoQuery, response } }, async (req) => {
    const found = await load(req.params.id);
    return found && toWire(found);
  });
}

/**
 * Registers DELETE `path` (a path ending in `/:id`): `remove` deletes the resource (rejecting with
 * a 404 problem for an unknown id), and the answer is 204 with no body.
 */
export function deleteRoute(
  app: App,
  path: string,
  text: OperationText,
  remove: (id: string, request: FastifyRequest) => Promise<unknown>,
): void {
  const response = { 204: Type.Null({ description: 'Deleted; no body.' }), ...problemResponses(400, 404, ...AUTHENTICATED) };
  app.delete(path, { schema: { ...operationHead(text), params: IdParams, querystring: NoQuery, response } }, async (req, reply) => {
    await remove(req.params.id, req);
    return reply.code(204).send(null);
  });
}

/** A numeric query parameter (`limit`, `count`) as a number (the query string gives a string), or undefined when absent. */
export function queryNumber(value: string | number | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

/**
 * The JSON of a page of a list: `{ size, [key]: items as wire objects, nextCursor }`, `size` being
 * the length of this page and `nextCursor` null on the last one.
 */
export function pageReply<K extends string, T, W>(
  key: K,
  page: { nextCursor: string | null } & Record<K, T[]>,
  toWire: (item: T) => W,
): { size: number; nextCursor: string | null } & Record<K, W[]> {
  const items = page[key];
  return { size: items.length, [key]: items.map(toWire), nextCursor: page.nextCursor } as { size: number; nextCursor: string | null } & Record<K, W[]>;
}
