/**
 * How request schemas are validated (issue #2 §4): Fastify's Ajv, configured so that
 *  - every problem of a request is reported at once (`allErrors`; bounded by the body limit and,
 *    with issue #5, by size limits in the schemas);
 *  - nothing is changed silently: no type coercion (also not for query strings: numbers there are
 *    declared as digit strings and read by the route), no removal of unknown fields (bodies say
 *    `additionalProperties: false`, so unknown fields are errors), no defaults filled in;
 *  - the rules JSON Schema cannot state (cron expression, time zone, instant, URL, non-blank name)
 *    run inside validation through the `x-rule` keyword, with the same functions the service uses
 *    (`service/rules.ts`), so their messages come in the same `errors` list.
 */
import { depthMessage, exceedsDepth, RULE_NAMES, RULES, type RuleName } from '../service/rules.js';

/** Name of the schema keyword that applies a rule of `service/rules.ts` to a string. */
export const RULE_KEYWORD = 'x-rule';

/** Name of the schema keyword that bounds the nesting depth of an object or array. */
export const MAX_DEPTH_KEYWORD = 'x-max-depth';

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
}

/**
 * Ajv plugin adding the keywords `x-rule` (`{ type: 'string', 'x-rule': 'endpoint' }`) and
 * `x-max-depth` (`{ type: 'object', 'x-max-depth': 64 }`).
 */
export function ruleKeywordPlugin<A extends AjvLike>(ajv: A): A {
  const validate = function (rule: RuleName, data: string): boolean {
    const message = RULES[rule](data);
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
  return ajv;
}
