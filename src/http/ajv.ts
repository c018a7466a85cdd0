/**
 * How request schemas are validated: Fastify's Ajv, configured so that
 *  - every problem of a request is reported at once (`allErrors`; bounded by the body limit and
 *    by size limits in the schemas);
 *  - nothing is changed silently: no type coercion (also not for query strings: numbers there are
 *    declared as digit strings and read by the route), no removal of unknown fields (bodies say
 *    `additionalProperties: false`, so unknown fields are errors), no defaults filled in;
 *  - the rules JSON Schema cannot state (cron expression, time zone, instant, URL and the SSRF
 *    guard's host check, non-blank name, the order of a retry policy's delays, and the size
 *    limits of docs/security.md, which are configurable and so cannot be written into the schemas)
 *    run inside validation through the `x-rule`, `x-check` and `x-retry-delays` keywords, with the
 *    same functions the service uses (`service/rules.ts`), so their messages come in the same
 *    `errors` list.
 */
import { RETRY_LIMITS } from '../service/delivery.js';
import { successStatusesProblems } from '../domain/success-statuses.js';
import { headersProblems } from '../service/request.js';
import { authProblems } from '../service/secrets-input.js';
import {
  dataProblem,
  DEFAULT_RULE_CONTEXT,
  depthMessage,
  exceedsDepth,
  isJsonObject,
  MAX_DATA_DEPTH,
  retryDelaysMessage,
  RULE_NAMES,
  RULES,
  tagsProblems,
  type RuleContext,
  type RuleName,
} from '../service/rules.js';

/** Name of the schema keyword that applies a rule of `service/rules.ts` to a string. */
export const RULE_KEYWORD = 'x-rule';

/**
 * Name of the schema keyword that applies a check of `service/rules.ts` to a non-string value:
 * `'x-check': 'data'` (a job's `data`: serialised size, finite numbers; run only when the depth is
 * within {@link MAX_DATA_DEPTH}, which `x-max-depth` reports) and `'x-check': 'tags'` (the whole
 * `tags` array: strings, how many, each one's length), `'x-check': 'headers'` (a job's `headers`:
 * how many, each name and value, docs/calls.md), `'x-check': 'success-statuses'` (a job's
 * `successStatuses`: the list and each item, src/domain/success-statuses.ts). `tags` is checked by this keyword alone, not
 * by `items`, so an array of a million wrong items gives one error rather than a million.
 */
export const CHECK_KEYWORD = 'x-check';

/** The values of {@link CHECK_KEYWORD}. */
export const CHECK_NAMES = ['data', 'tags', 'headers', 'auth', 'success-statuses'] as const;

/** Name of the schema keyword that bounds the nesting depth of an object or array. */
export const MAX_DEPTH_KEYWORD = 'x-max-depth';

/**
 * Name of the schema keyword (`'x-retry-delays': true` on a retry policy object) that checks
 * `maxDelayMs ≥ initialDelayMs` when the object gives both, valid, and reports it on `maxDelayMs`.
 */
export const RETRY_DELAYS_KEYWORD = 'x-retry-delays';

/** Ajv options, passed as Fastify's `ajv.customOptions`. */
export const AJV_OPTIONS = {
  allErrors: true,
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
  // `type: ['string', 'null']` is how nullable fields are written (OpenAPI 3.1 style).
  allowUnionTypes: true,
} as const;

/** The part of Ajv's API {@link ruleKeywordPlugin} uses. */
interface AjvLike {
  addKeyword(definition: unknown): unknown;
}

interface RuleError {
  keyword: string;
  message: string;
  params: Record<string, unknown>;
  /** Set only to point below the value the keyword is on (Ajv fills it in otherwise). */
  instancePath?: string;
}

/**
 * An Ajv plugin adding the keywords `x-rule` (`{ type: 'string', 'x-rule': 'endpoint' }`),
 * `x-check`, `x-max-depth` (`{ type: 'object', 'x-max-depth': 64 }`) and `x-retry-delays`, whose
 * rules apply the limits and endpoint policy of `ctx`. Passed in Fastify's `ajv.plugins`; each
 * Fastify instance has its own Ajv, so two apps with different limits do not mix.
 */
export function ruleKeywordsFor(ctx: RuleContext): <A extends AjvLike>(ajv: A) => A {
  return (ajv) => addKeywords(ajv, ctx);
}

/** {@link ruleKeywordsFor} with `DEFAULT_RULE_CONTEXT`: the default limits and the strict SSRF policy. */
export function ruleKeywordPlugin<A extends AjvLike>(ajv: A): A {
  return addKeywords(ajv, DEFAULT_RULE_CONTEXT);
}

function addKeywords<A extends AjvLike>(ajv: A, ctx: RuleContext): A {
  const validate = function (rule: RuleName, data: string): boolean {
    const message = RULES[rule](data, ctx);
    if (message === null) return true;
    const error: RuleError = { keyword: RULE_KEYWORD, message, params: { rule } };
    validate.errors = [error];
    return false;
  } as ((rule: RuleName, data: string) => boolean) & { errors?: RuleError[] };
  ajv.addKeyword({
    keyword: RULE_KEYWORD,
    type: 'string',
    schemaType: 'string',
    metaSchema: { enum: RULE_NAMES },
    errors: true,
    validate,
  });

  const validateCheck = function (
    check: (typeof CHECK_NAMES)[number],
    data: unknown,
    _parent: unknown,
    cxt?: { instancePath: string },
  ): boolean {
    let errors: RuleError[];
    if (check === 'data') {
      if (exceedsDepth(data, MAX_DATA_DEPTH)) return true; // reported by x-max-depth
      const message = dataProblem(data, ctx);
      errors = message === null ? [] : [{ keyword: CHECK_KEYWORD, message, params: { check } }];
    } else {
      const base = cxt?.instancePath ?? '';
      const problems =
        check === 'tags'
          ? tagsProblems('', data, ctx)
          : check === 'auth'
            ? authProblems('', data, ctx)
            : check === 'success-statuses'
              ? successStatusesProblems('', data)
              : headersProblems('', data);
      errors = problems.map((p) => ({
        keyword: CHECK_KEYWORD,
        message: p.message,
        params: { check },
        ...(p.path === '' ? {} : { instancePath: base + p.path }),
      }));
    }
    if (errors.length === 0) return true;
    validateCheck.errors = errors;
    return false;
  } as ((check: (typeof CHECK_NAMES)[number], data: unknown, parent: unknown, cxt?: { instancePath: string }) => boolean) & {
    errors?: RuleError[];
  };
  ajv.addKeyword({
    keyword: CHECK_KEYWORD,
    type: ['object', 'array'],
    schemaType: 'string',
    metaSchema: { enum: CHECK_NAMES },
    errors: true,
    validate: validateCheck,
  });

  const validateDepth = function (max: number, data: unknown): boolean {
    if (!exceedsDepth(data, max)) return true;
    validateDepth.errors = [{ keyword: MAX_DEPTH_KEYWORD, message: depthMessage(max), params: { max } }];
    return false;
  } as ((max: number, data: unknown) => boolean) & { errors?: RuleError[] };
  ajv.addKeyword({
    keyword: MAX_DEPTH_KEYWORD,
    type: ['object', 'array'],
    schemaType: 'number',
    errors: true,
    validate: validateDepth,
  });

  const inRange = (value: unknown, limits: { min: number; max: number }): value is number =>
    typeof value === 'number' && Number.isInteger(value) && value >= limits.min && value <= limits.max;
  const validateDelays = function (enabled: boolean, data: unknown, _parent: unknown, cxt?: { instancePath: string }): boolean {
    if (!enabled || !isJsonObject(data)) return true;
    const { initialDelayMs, maxDelayMs } = data;
    // Out-of-range values get their own errors; comparing them would add noise.
    if (!inRange(initialDelayMs, RETRY_LIMITS.initialDelayMs) || !inRange(maxDelayMs, RETRY_LIMITS.maxDelayMs)) return true;
    const message = retryDelaysMessage(initialDelayMs, maxDelayMs);
    if (message === null) return true;
    validateDelays.errors = [
      { keyword: RETRY_DELAYS_KEYWORD, message, params: {}, instancePath: `${cxt?.instancePath ?? ''}/maxDelayMs` },
    ];
    return false;
  } as ((enabled: boolean, data: unknown, parent: unknown, cxt?: { instancePath: string }) => boolean) & { errors?: RuleError[] };
  ajv.addKeyword({
    keyword: RETRY_DELAYS_KEYWORD,
    type: 'object',
    schemaType: 'boolean',
    errors: true,
    validate: validateDelays,
  });
  return ajv;
}
