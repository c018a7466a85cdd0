/**
 * Finishing touches on the document @fastify/swagger generates (its `transformObject`), so that
 * it reads well and gives useful generated types (openapi-typescript):
 *  - the schemas named by a `title` ({@link NAMED_SCHEMAS}: `Schedule`, `CronJob`, `ProblemDetails`, …)
 *    are moved to `components.schemas` and referenced (`$ref`); a nullable use (`type: ['object',
 *    'null']`, e.g. the answer of `GET /schedules/{id}`) becomes `anyOf: [{$ref}, {type: 'null'}]`.
 *    Every use must equal the named schema (apart from its description and examples): a schema
 *    changed in one place only is an error, not a silent second version;
 *  - `tags` arrays (checked as a whole by `x-check`, without `items` at run time) are documented
 *    with `items: {type: 'string'}`;
 *  - whole-number query parameters (`limit`, `count`: checked at run time as strings of decimal
 *    digits by their `x-rule`, so that `1e2` or ` 5` get a problem naming the field rather than
 *    Ajv's coercion) are documented as `type: 'integer'` with their `minimum`, `maximum` and
 *    `default` ({@link INTEGER_QUERY_RULES}), so generated clients take numbers;
 *  - the problem answers (`problemResponses`) are kept once each in `components.responses`
 *    (`BadRequest`, `Unauthenticated`, …) and referenced by the operations;
 *  - an operation whose route schema says `'x-body-optional': true` (the triggers) gets
 *    `requestBody.required: false`;
 *  - a stable order: paths sorted, methods as get, put, post, patch, delete, responses by status,
 *    component schemas by name.
 */
import type { TSchema } from 'typebox';
import { ApiKeyCreateBody, ApiKeyCreatedSchema, ApiKeyListSchema, ApiKeyPatchBody, ApiKeySchema } from './schemas/api-keys.js';
import { FieldProblemSchema, ProblemSchema } from './schemas/common.js';
import {
  CronCreateBody,
  CronJobList,
  CronJobSchema,
  CronPatchBody,
  CronPreviewSchema,
} from './schemas/cron-jobs.js';
import { RetryInputSchema, RetryPolicySchema } from './schemas/delivery.js';
import { AttemptSchema, ExecutionPageSchema, ExecutionSchema } from './schemas/executions.js';
import { PREVIEW_COUNT_DEFAULT } from '../service/cron-jobs.js';
import { PAGE_LIMIT_DEFAULT } from '../service/executions.js';
import { LIST_LIMIT_DEFAULT } from '../service/job-lists.js';
import {
  LIST_LIMIT_MAX,
  LIST_LIMIT_MIN,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  PREVIEW_COUNT_MAX,
  PREVIEW_COUNT_MIN,
  type RuleName,
} from '../service/rules.js';
import * as EXAMPLES from './schemas/examples.js';
import {
  ChannelCreateBody,
  ChannelListSchema,
  ChannelPatchBody,
  ChannelSchema,
  ChannelTestSchema,
} from './schemas/notification-channels.js';
import { PROBLEM_RESPONSE_KEY } from './schemas/operations.js';
import { ScheduleCreateBody, ScheduleList, SchedulePatchBody, ScheduleSchema } from './schemas/schedules.js';

/** The parts of an OpenAPI 3.1 document this module reads; the rest passes through. */
export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  tags?: unknown[];
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: { schemas?: Record<string, unknown> } & Record<string, unknown>;
  [key: string]: unknown;
}

/** Schemas given a name (their `title`) in `components.schemas`. */
export const NAMED_SCHEMAS: Readonly<Record<string, TSchema>> = {
  ApiKey: ApiKeySchema,
  ApiKeyCreate: ApiKeyCreateBody,
  ApiKeyCreated: ApiKeyCreatedSchema,
  ApiKeyList: ApiKeyListSchema,
  ApiKeyPatch: ApiKeyPatchBody,
  Attempt: AttemptSchema,
  CronJob: CronJobSchema,
  CronJobCreate: CronCreateBody,
  CronJobList: CronJobList.page,
  CronJobPatch: CronPatchBody,
  CronPreview: CronPreviewSchema,
  Execution: ExecutionSchema,
  ExecutionPage: ExecutionPageSchema,
  FieldProblem: FieldProblemSchema,
  NotificationChannel: ChannelSchema,
  NotificationChannelCreate: ChannelCreateBody,
  NotificationChannelList: ChannelListSchema,
  NotificationChannelPatch: ChannelPatchBody,
  NotificationChannelTest: ChannelTestSchema,
  ProblemDetails: ProblemSchema,
  RetryPolicy: RetryPolicySchema,
  RetryPolicyInput: RetryInputSchema,
  Schedule: ScheduleSchema,
  ScheduleCreate: ScheduleCreateBody,
  ScheduleList: ScheduleList.page,
  SchedulePatch: SchedulePatchBody,
};

/** Examples of named schemas (JSON Schema `examples`), shown by the reference page. */
export const NAMED_EXAMPLES: Readonly<Record<string, unknown>> = {
  ApiKey: EXAMPLES.API_KEY_EXAMPLE,
  ApiKeyCreate: EXAMPLES.API_KEY_CREATE_EXAMPLE,
  ApiKeyCreated: EXAMPLES.API_KEY_CREATED_EXAMPLE,
  ApiKeyPatch: EXAMPLES.API_KEY_PATCH_EXAMPLE,
  Attempt: EXAMPLES.ATTEMPT_EXAMPLE,
  CronJob: EXAMPLES.CRON_JOB_EXAMPLE,
  CronJobCreate: EXAMPLES.CRON_CREATE_EXAMPLE,
  CronJobPatch: EXAMPLES.CRON_PATCH_EXAMPLE,
  Execution: EXAMPLES.EXECUTION_EXAMPLE,
  Schedule: EXAMPLES.SCHEDULE_EXAMPLE,
  ScheduleCreate: EXAMPLES.SCHEDULE_CREATE_EXAMPLE,
  SchedulePatch: EXAMPLES.SCHEDULE_PATCH_EXAMPLE,
};

const COMPONENT_REF = '#/components/schemas/';
const METHOD_ORDER = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];
/** Keys that may differ between a use of a named schema and the schema itself. */
const ANNOTATIONS = new Set(['description', 'examples', 'example']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON text with object keys sorted, for comparing schemas whatever their key order. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k]!)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function withoutAnnotations(schema: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => !ANNOTATIONS.has(k)));
}

/**
 * Replaces every use of a named schema below `node` by a reference; `components` gets the named
 * schemas themselves (each with its own nested uses replaced).
 * @throws Error when a use differs from its named schema
 */
class Hoister {
  readonly components: Record<string, Json> = {};
  private readonly sources = new Map<string, JsonObject>();

  constructor(named: Readonly<Record<string, TSchema>>) {
    for (const [name, schema] of Object.entries(named)) {
      const json = JSON.parse(JSON.stringify(schema)) as JsonObject;
      if (json.title !== name) throw new Error(`the schema named ${name} must have title "${name}" (it has ${String(json.title)})`);
      this.sources.set(name, json);
    }
    for (const [name, json] of this.sources) {
      const component = this.walk(json, true) as JsonObject;
      const example = NAMED_EXAMPLES[name];
      this.components[name] = example === undefined ? component : { ...component, examples: [example as Json] };
    }
  }

  walk(node: Json, isRoot = false): Json {
    if (Array.isArray(node)) return node.map((n) => this.walk(n));
    if (!isObject(node)) return node;
    const title = node.title;
    if (!isRoot && typeof title === 'string' && this.sources.has(title) && node.type !== undefined) return this.reference(title, node);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, this.walk(v)]));
  }

  private reference(name: string, use: JsonObject): Json {
    const source = this.sources.get(name)!;
    const type = use.type;
    const nullable = Array.isArray(type) && type.includes('null') && !(Array.isArray(source.type) && source.type.includes('null'));
    const nonNull: JsonObject = nullable ? { ...use, type: (type as Json[]).filter((t) => t !== 'null')[0]! } : use;
    if (canonical(withoutAnnotations(nonNull)) !== canonical(withoutAnnotations(source))) {
      throw new Error(`a use of the schema ${name} differs from it; name the variant or make them equal`);
    }
    const ref: JsonObject = { $ref: COMPONENT_REF + name };
    const out: JsonObject = nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
    if (use.description !== undefined && use.description !== source.description) out.description = use.description;
    return out;
  }
}

/** `tags` arrays (`x-check: 'tags'`) get `items: {type: 'string'}`; everything else as it is. */
function documentTagItems(node: Json): Json {
  if (Array.isArray(node)) return node.map(documentTagItems);
  if (!isObject(node)) return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, documentTagItems(v)]));
  if (out['x-check'] === 'tags' && out.type === 'array' && out.items === undefined) out.items = { type: 'string' };
  return out;
}

/**
 * Query parameters that are whole numbers, by their rule (src/service/rules.ts): the schema the
 * document shows instead of the run-time `type: 'string'` (the rule keyword is kept).
 */
const INTEGER_QUERY_RULES: Readonly<Partial<Record<RuleName, { minimum: number; maximum: number; default: number }>>> = {
  'list-limit': { minimum: LIST_LIMIT_MIN, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT },
  'page-limit': { minimum: PAGE_LIMIT_MIN, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT },
  'preview-count': { minimum: PREVIEW_COUNT_MIN, maximum: PREVIEW_COUNT_MAX, default: PREVIEW_COUNT_DEFAULT },
};

/** An operation's query parameters of {@link INTEGER_QUERY_RULES} get their integer schema. */
function documentIntegerQueries(op: Json): Json {
  if (!isObject(op) || !Array.isArray(op.parameters)) return op;
  const parameters = op.parameters.map((param) => {
    if (!isObject(param) || param.in !== 'query' || !isObject(param.schema ?? null)) return param;
    const schema = param.schema as JsonObject;
    const integer = INTEGER_QUERY_RULES[schema['x-rule'] as RuleName];
    if (integer === undefined || schema.type !== 'string') return param;
    return { ...param, schema: { ...schema, type: 'integer', ...integer } };
  });
  return { ...op, parameters };
}

function sortedKeys<T>(record: Record<string, T>, compare?: (a: string, b: string) => number): Record<string, T> {
  return Object.fromEntries(Object.keys(record).sort(compare).map((k) => [k, record[k]!]));
}

const byMethod = (a: string, b: string) => (METHOD_ORDER.indexOf(a) + 1 || 99) - (METHOD_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b);

/**
 * Problem answers kept once, in `components.responses`, and referenced by the operations (each
 * answer names itself through {@link PROBLEM_RESPONSE_KEY}, set by `problemResponses`).
 * @throws Error when two answers of the same name differ
 */
class ProblemResponses {
  readonly components: Record<string, JsonObject> = {};

  /** `response`, or a reference to the same answer in `components.responses`. */
  reference(response: Json): Json {
    if (!isObject(response) || !isObject(response.content ?? null)) return response;
    const content = response.content as JsonObject;
    const named = Object.values(content).find((media) => isObject(media) && typeof media[PROBLEM_RESPONSE_KEY] === 'string');
    if (named === undefined) return response;
    const name = (named as JsonObject)[PROBLEM_RESPONSE_KEY] as string;
    const plain: JsonObject = {
      ...response,
      content: Object.fromEntries(
        Object.entries(content).map(([type, media]) => [
          type,
          isObject(media) ? Object.fromEntries(Object.entries(media).filter(([k]) => k !== PROBLEM_RESPONSE_KEY)) : media,
        ]),
      ),
    };
    const known = this.components[name];
    if (known === undefined) this.components[name] = plain;
    else if (canonical(known) !== canonical(plain)) throw new Error(`two problem answers named ${name} differ`);
    return { $ref: `#/components/responses/${name}` };
  }
}

/** The operation as it goes into the document: optional bodies, problem answers referenced, responses by status. */
function finishOperation(op: Record<string, unknown>, problems: ProblemResponses): Record<string, unknown> {
  const { 'x-body-optional': optional, ...rest } = op;
  if (optional === true && isObject(rest.requestBody as Json)) rest.requestBody = { ...(rest.requestBody as JsonObject), required: false };
  if (isObject(rest.responses as Json)) {
    const responses = sortedKeys(rest.responses as JsonObject);
    rest.responses = Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, problems.reference(r)]));
  }
  return rest;
}

/** The finished document (see the module comment). Does not modify `doc`. */
export function finishDocument(doc: OpenApiDocument): OpenApiDocument {
  const hoister = new Hoister(NAMED_SCHEMAS);
  const problems = new ProblemResponses();
  const paths: OpenApiDocument['paths'] = {};
  for (const [path, item] of Object.entries(sortedKeys(doc.paths))) {
    const methods: Record<string, Record<string, unknown>> = {};
    for (const [method, op] of Object.entries(sortedKeys(item, byMethod))) {
      const walked = documentIntegerQueries(documentTagItems(hoister.walk(op as unknown as Json)));
      methods[method] = finishOperation(walked as Record<string, unknown>, problems);
    }
    paths[path] = methods;
  }
  const schemas = sortedKeys({
    ...((doc.components?.schemas ?? {}) as Record<string, Json>),
    ...(documentTagItems(hoister.components) as Record<string, Json>),
  });
  const { openapi, info, tags, paths: _paths, components, ...rest } = doc;
  return {
    openapi,
    info,
    ...(tags === undefined ? {} : { tags }),
    paths,
    ...rest,
    components: { ...components, schemas, responses: sortedKeys(problems.components) },
  };
}

/** The document as committed in `docs/openapi.json`: 2-space indent, trailing newline. */
export function documentText(doc: OpenApiDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
