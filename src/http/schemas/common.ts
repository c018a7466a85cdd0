/**
 * Schema building blocks shared by the resources. TypeBox schemas are the single source of truth
 * for validation, for the types of handlers (`Static<>`) and for the OpenAPI document
 * (docs/openapi.json), so each carries a description.
 */
import { Type, type Static, type TArray, type TInteger, type TProperties, type TSchema } from 'typebox';
import type { JsonObject } from '../../domain/types.js';
import { DEFAULT_LIMITS } from '../../service/limits.js';
import { MAX_DATA_DEPTH, type RuleName } from '../../service/rules.js';
import { CHECK_KEYWORD, MAX_DEPTH_KEYWORD, RULE_KEYWORD } from '../ajv.js';

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

/**
 * `data` in a request: a JSON object (not an array, not null) nested at most 64 levels deep, of at
 * most `PUNCTUAL_MAX_DATA_BYTES` serialised, with finite numbers only.
 */
export function JsonObjectInput(description: string) {
  return Type.Unsafe<JsonObject>({
    type: 'object',
    additionalProperties: true,
    [MAX_DEPTH_KEYWORD]: MAX_DATA_DEPTH,
    [CHECK_KEYWORD]: 'data',
    description:
      `${description} Objects and arrays nest at most ${MAX_DATA_DEPTH} levels deep; ` +
      `at most ${DEFAULT_LIMITS.dataBytes} bytes serialised as JSON by default (\`PUNCTUAL_MAX_DATA_BYTES\`).`,
  });
}

/**
 * `tags` in a request: an array of strings, at most 32 of at most 64 characters by default
 * (`PUNCTUAL_MAX_TAGS`, `PUNCTUAL_MAX_TAG_LENGTH`). Checked as a whole by `x-check` (no `items`
 * schema), so a huge array of wrong items costs one error, not one per item.
 */
export function TagsInput(description: string) {
  return Type.Unsafe<string[]>({
    type: 'array',
    [CHECK_KEYWORD]: 'tags',
    description:
      `${description} An array of strings: at most ${DEFAULT_LIMITS.tags} tags of at most ${DEFAULT_LIMITS.tagLength} ` +
      'characters each by default (`PUNCTUAL_MAX_TAGS`, `PUNCTUAL_MAX_TAG_LENGTH`).',
  });
}

/**
 * The `tag` filter of a job list (GET /schedules, GET /cron): repeatable, every one must match.
 * @param jobs the jobs listed, as the description names them (`schedules`, `cron jobs`)
 */
export function TagQuery(jobs: string) {
  return Type.Unsafe<string[]>({
    type: 'array',
    items: { type: 'string' },
    [CHECK_KEYWORD]: 'tags',
    description:
      `Only ${jobs} carrying this tag (exact, case-sensitive). Repeat it (\`?tag=a&tag=b\`) for ${jobs} carrying every ` +
      `one of them; at most as many as a job may have (${DEFAULT_LIMITS.tags} by default). The first tag given drives the scan: put the rarest first.`,
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
  {
    id: Type.String({
      description: 'Identifier of the resource (a UUID; any other string names no resource).',
      examples: ['019aa5c2-5e00-7c3a-8d2b-3f6e1a9b4c70'],
    }),
  },
  { additionalProperties: false },
);
export type IdParams = Static<typeof IdParams>;

/** The query string of a route that takes no query parameters: any parameter is an error. */
export const NoQuery = Type.Object({}, { additionalProperties: false, description: 'No query parameters.' });

/** `endpoint` in a request. */
export const Endpoint = RuleString(
  'endpoint',
  'Absolute http or https URL called on execution, at most 2048 characters by default (`PUNCTUAL_MAX_ENDPOINT_LENGTH`). ' +
    'A host that is `localhost` or an IP address that is not public (loopback, private, link-local, …) is refused ' +
    'unless the operator allows it (`PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS`, `PUNCTUAL_ALLOWED_NETWORKS`).',
);

/** A problem with one input field (RFC 9457 extension member `errors`). */
export const FieldProblemSchema = Type.Object(
  {
    path: Type.String({ description: 'JSON Pointer to the field, e.g. `/scheduledAt` or `/query/count`.' }),
    message: Type.String({ description: 'What is wrong with it.' }),
  },
  { additionalProperties: false, title: 'FieldProblem', description: 'A problem with one input field.' },
);

/** RFC 9457 problem details, as every error is answered (`application/problem+json`). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI identifying the kind of problem.' }),
    title: Type.String({ description: 'Short summary of the kind of problem.' }),
    status: Type.Integer({ description: 'HTTP status code.' }),
    detail: Type.String({ description: 'Explanation of this occurrence.' }),
    errors: Type.Optional(Type.Array(FieldProblemSchema, { description: 'Every faulty field (validation problems, and a conflict on one field such as a taken `key`).' })),
  },
  { title: 'ProblemDetails', description: 'RFC 9457 problem details.' },
);
export type Problem = Static<typeof ProblemSchema>;

/**
 * An answer that holds a list: `size` (its length), the list under `key`, then `extra` (e.g.
 * `nextCursor`), no other property.
 */
export function SizedList<K extends string, T extends TSchema, E extends TProperties = Record<never, never>>(
  key: K,
  item: T,
  itemsDescription: string,
  options: { title: string; description: string },
  extra?: E,
) {
  const properties = {
    size: Type.Integer({ description: `Length of \`${key}\`.` }),
    [key]: Type.Array(item, { description: itemsDescription }),
    ...extra,
  } as { size: TInteger } & { [P in K]: TArray<T> } & E;
  return Type.Object(properties, { additionalProperties: false, ...options });
}
