/**
 * Schema building blocks shared by the resources. TypeBox schemas are the single source of truth
 * for validation, for the types of handlers (`Static<>`) and, later, for the OpenAPI document
 * (issue #6), so each carries a description.
 */
import { Type, type Static, type TSchema } from 'typebox';
import type { JsonObject } from '../../domain/types.js';
import { MAX_DATA_DEPTH, type RuleName } from '../../service/rules.js';
import { MAX_DEPTH_KEYWORD, RULE_KEYWORD } from '../ajv.js';

/** A string checked by a rule of `service/rules.ts` (see `http/ajv.ts`). */
export function RuleString(rule: RuleName, description: string, extra: Record<string, unknown> = {}) {
  return Type.String({ description, [RULE_KEYWORD]: rule, ...extra });
}

/**
 * `T` or null, written as a type union (`type: ['string', 'null']`, JSON Schema / OpenAPI 3.1)
 * rather than `anyOf`, so a wrong value gets one clear error instead of one per branch.
 * `T` must be a schema with a single `type`.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, ...rest } = schema as unknown as { type: string; enum?: unknown[] } & Record<string, unknown>;
  if (typeof type !== 'string') throw new TypeError('Nullable() needs a schema with a single type');
  const nullable: Record<string, unknown> = { ...rest, type: [type, 'null'] };
  if (rest.enum !== undefined) nullable.enum = [...rest.enum, null];
  return Type.Unsafe<Static<T> | null>(nullable);
}

/** One of `values` (a string enum with `type: 'string'`, so it can be made {@link Nullable}). */
export function StringEnum<const V extends readonly string[]>(values: V, description: string) {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], description });
}

/** `data` in a response: any JSON object. */
export function JsonObjectSchema(description: string) {
  return Type.Unsafe<JsonObject>({ type: 'object', additionalProperties: true, description });
}

/** `data` in a request: a JSON object (not an array, not null) nested at most 64 levels deep. */
export function JsonObjectInput(description: string) {
  return Type.Unsafe<JsonObject>({
    type: 'object',
    additionalProperties: true,
    [MAX_DEPTH_KEYWORD]: MAX_DATA_DEPTH,
    description: `${description} Objects and arrays nest at most ${MAX_DATA_DEPTH} levels deep.`,
  });
}

/** A resource identifier on the wire (UUID v7 when made by Punctual). */
export const Id = Type.String({ description: 'Identifier in UUID format, assigned by the service.', format: 'uuid' });

/** An instant in a response: ISO 8601 UTC with milliseconds, e.g. `2026-11-21T10:00:00.000Z`. */
export function Timestamp(description: string) {
  return Type.String({ format: 'date-time', description });
}

/** Path parameters `{id}`. Any string: an id that is not a UUID names no resource (GET answers null). */
export const IdParams = Type.Object(
  { id: Type.String({ description: 'Identifier of the resource.' }) },
  { additionalProperties: false },
);
export type IdParams = Static<typeof IdParams>;

/** The query string of a route that takes no query parameters: any parameter is an error. */
export const NoQuery = Type.Object({}, { additionalProperties: false, description: 'No query parameters.' });

/** `endpoint` in a request. */
export const Endpoint = RuleString('endpoint', 'Absolute http or https URL called on execution.');

/** A problem with one input field (RFC 9457 extension member `errors`). */
export const FieldProblemSchema = Type.Object(
  {
    path: Type.String({ description: 'JSON Pointer to the field, e.g. `/scheduledAt` or `/query/count`.' }),
    message: Type.String({ description: 'What is wrong with it.' }),
  },
  { additionalProperties: false },
);

/** RFC 9457 problem details, as every error is answered (`application/problem+json`). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI identifying the kind of problem.' }),
    title: Type.String({ description: 'Short summary of the kind of problem.' }),
    status: Type.Integer({ description: 'HTTP status code.' }),
    detail: Type.String({ description: 'Explanation of this occurrence.' }),
    errors: Type.Optional(Type.Array(FieldProblemSchema, { description: 'Every faulty field (validation problems only).' })),
  },
  { description: 'RFC 9457 problem details.' },
);
export type Problem = Static<typeof ProblemSchema>;
