/**
 * The field rules of the interface that JSON Schema alone cannot state, in one
 * place. The service checks them before it writes anything, and the HTTP layer runs the same
 * functions inside schema validation (the `x-rule` keyword, see `http/ajv.ts`), so that a request
 * gets every problem reported at once.
 */
import { parseCronExpression, validateTimeZone } from '../cron/index.js';
import { endpointProblem, STRICT_POLICY, type EndpointPolicy } from '../net/ssrf.js';
import { DomainError, InvalidInputError, type FieldProblem } from '../domain/errors.js';
import { jobKeyProblem } from '../domain/job-key.js';
import { parseIsoInstant } from '../domain/time.js';
import type { JsonObject } from '../domain/types.js';
import {
  dataSizeMessage,
  DEFAULT_LIMITS,
  exceedsBytes,
  exceedsLength,
  jsonByteLength,
  lengthMessage,
  tagCountMessage,
  type InputLimits,
} from './limits.js';

/**
 * What the rules depend on besides the value: the size limits and the SSRF guard's policy, both
 * from the configuration. {@link DEFAULT_RULE_CONTEXT} is the safe default.
 */
export interface RuleContext {
  limits: InputLimits;
  /** Which endpoint hosts are accepted at create and patch (`net/ssrf.ts`). */
  endpointPolicy: EndpointPolicy;
}

/** The default limits and the strict SSRF policy (no private, loopback or link-local hosts). */
export const DEFAULT_RULE_CONTEXT: RuleContext = Object.freeze({ limits: DEFAULT_LIMITS, endpointPolicy: STRICT_POLICY });

/** The rule context of a service context or of the app's options: what they give, defaults for the rest. */
export function ruleContext(from: { limits?: InputLimits; endpointPolicy?: EndpointPolicy }): RuleContext {
  return { limits: from.limits ?? DEFAULT_LIMITS, endpointPolicy: from.endpointPolicy ?? STRICT_POLICY };
}

/**
 * A rule: returns why `value` breaks it, or null when it holds. Never throws. Size limits are
 * checked first, so that nothing expensive is done with an oversized value.
 */
export type Rule = (value: string, ctx?: RuleContext) => string | null;

/**
 * Deepest nesting of objects and arrays accepted in `data` (the object itself is level 1).
 * Deeper values break serialisers (`JSON.stringify` overflows its stack near 10,000 levels) and
 * many receivers' parsers (serde_json stops at 128); webhook payloads need far less.
 */
export const MAX_DATA_DEPTH = 64;

/** Smallest and largest `count` of `GET /cron/preview`. */
export const PREVIEW_COUNT_MIN = 1;
export const PREVIEW_COUNT_MAX = 100;

/** Smallest and largest `limit` of a page of executions. */
export const PAGE_LIMIT_MIN = 1;
export const PAGE_LIMIT_MAX = 100;

/** Smallest and largest `limit` of a page of schedules or cron jobs. */
export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 1_000;

const INSTANT_MESSAGE = 'must be an ISO 8601 date-time with Z or an offset, e.g. 2026-11-21T10:00:00Z';
const URL_MESSAGE = 'must be an absolute http or https URL';

/** The rules by name. Names are referenced by the HTTP schemas (`'x-rule': 'endpoint'`). */
export const RULES = {
  /** Names are not empty or blank, at most `nameLength` characters, and stored text (see {@link textProblem}). */
  name: (value, ctx = DEFAULT_RULE_CONTEXT) => {
    if (exceedsLength(value, ctx.limits.nameLength)) return lengthMessage(ctx.limits.nameLength);
    return textProblem(value) ?? (value.trim().length === 0 ? 'must not be empty' : null);
  },

  /**
   * Absolute `http:`/`https:` URL with a host, as the WHATWG URL parser (and undici) reads it, at
   * most `endpointLength` characters, whose host the SSRF guard's policy accepts (an IP literal
   * or `localhost` must be public or allowed; host names are checked when called).
   */
  endpoint: (value, ctx = DEFAULT_RULE_CONTEXT) => {
    if (exceedsLength(value, ctx.limits.endpointLength)) return lengthMessage(ctx.limits.endpointLength);
    const text = textProblem(value);
    if (text !== null) return text;
    if (!/^https?:\/\//i.test(value)) return URL_MESSAGE;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return URL_MESSAGE;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return URL_MESSAGE;
    return endpointProblem(value, ctx.endpointPolicy);
  },

  /**
   * A job's `body`, sent as it is: at most `dataBytes` bytes of UTF-8 (`PUNCTUAL_MAX_DATA_BYTES`,
   * the bound of `data`) of stored text (see {@link textProblem}).
   */
  body: (value, ctx = DEFAULT_RULE_CONTEXT) =>
    exceedsBytes(value, ctx.limits.dataBytes) ? `must be at most ${ctx.limits.dataBytes} bytes of UTF-8` : textProblem(value),

  /** A tag of a schedule: at most `tagLength` characters of stored text. */
  tag: (value, ctx = DEFAULT_RULE_CONTEXT) =>
    exceedsLength(value, ctx.limits.tagLength) ? lengthMessage(ctx.limits.tagLength) : textProblem(value),

  /** The `key` of a job (src/domain/job-key.ts): 1 to 128 of A-Z a-z 0-9 . _ : - */
  'job-key': (value) => jobKeyProblem(value),

  /** A flow-control key (domain/flow-control.ts): the same characters and length as a job's key. */
  'flow-control-key': (value) => jobKeyProblem(value),

  /** RFC 3339 instant with `Z` or a numeric offset (`parseIsoInstant`). */
  instant: (value) => (parseIsoInstant(value) === null ? INSTANT_MESSAGE : null),

  /** A cron expression of at most `expressionLength` characters that the cron module accepts. */
  'cron-expression': (value, ctx = DEFAULT_RULE_CONTEXT) =>
    exceedsLength(value, ctx.limits.expressionLength)
      ? lengthMessage(ctx.limits.expressionLength)
      : messageOf(() => parseCronExpression(value), 'must be a valid cron expression'),

  /** An IANA time zone name the runtime knows. */
  'time-zone': (value) => messageOf(() => validateTimeZone(value), 'must be a valid IANA time zone name'),

  /** A whole number from 1 to 100, written in decimal digits (a query parameter, so a string). */
  'preview-count': (value) => digitsInRange(value, PREVIEW_COUNT_MIN, PREVIEW_COUNT_MAX),

  /** `limit` of a page: a whole number from 1 to 100 in decimal digits (a query parameter). */
  'page-limit': (value) => digitsInRange(value, PAGE_LIMIT_MIN, PAGE_LIMIT_MAX),

  /** `limit` of a page of jobs: a whole number from 1 to 1,000 in decimal digits (a query parameter). */
  'list-limit': (value) => digitsInRange(value, LIST_LIMIT_MIN, LIST_LIMIT_MAX),

  /**
   * A `name` filter of a list: not empty (spaces are text like any other), at most `nameLength`
   * characters (no stored name is longer), stored text (see {@link textProblem}).
   */
  'name-filter': (value, ctx = DEFAULT_RULE_CONTEXT) => {
    if (value.length === 0) return 'must not be empty';
    return exceedsLength(value, ctx.limits.nameLength) ? lengthMessage(ctx.limits.nameLength) : textProblem(value);
  },
} satisfies Record<string, Rule>;

/**
 * Why `value` cannot be stored as text as given, or null: a NUL character (PostgreSQL's `text`
 * cannot hold one) or an unpaired UTF-16 surrogate (not Unicode: a database encodes it as
 * replacement characters, so the value read back would differ from the one accepted).
 */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (/\p{Cs}/u.test(value)) return 'must be well-formed Unicode (no unpaired surrogates)';
  return null;
}

/**
 * The limits of a `data` object that JSON Schema cannot state: at most `dataBytes` bytes when
 * serialised, and only finite numbers (`1e999` parses to Infinity, which JSON cannot carry:
 * it would be stored as null, silently). Iterative: safe at any depth.
 * @returns why `data` breaks them, or null
 */
export function dataProblem(data: unknown, ctx: RuleContext = DEFAULT_RULE_CONTEXT): string | null {
  if (jsonByteLength(data, ctx.limits.dataBytes) > ctx.limits.dataBytes) return dataSizeMessage(ctx.limits.dataBytes);
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number' && !Number.isFinite(v)) return 'must not contain numbers beyond the range of a double (such as 1e999)';
    if (typeof v === 'object' && v !== null) for (const child of Object.values(v)) stack.push(child);
  }
  return null;
}

/**
 * Why a `tags` value breaks the rules, as field problems (`path` for the array, `path/<i>` for one
 * tag), or an empty list: an array of at most `tags` items, each a string keeping the `tag` rule.
 * The count is checked first, so at most `tags` problems are reported however long the array.
 */
export function tagsProblems(path: string, tags: unknown, ctx: RuleContext = DEFAULT_RULE_CONTEXT): FieldProblem[] {
  if (!Array.isArray(tags)) return [{ path, message: 'must be an array of strings' }];
  if (tags.length > ctx.limits.tags) return [{ path, message: tagCountMessage(ctx.limits.tags) }];
  const out: FieldProblem[] = [];
  tags.forEach((tag: unknown, i) => {
    const message = typeof tag === 'string' ? RULES.tag(tag, ctx) : 'must be a string';
    if (message !== null) out.push({ path: `${path}/${i}`, message });
  });
  return out;
}

/** The message for a number outside `[min, max]` or not whole. */
export function wholeNumberMessage(min: number, max: number): string {
  return `must be a whole number from ${min} to ${max}`;
}

/** Null when `value` is decimal digits, no more than `max` has, naming a number in `[min, max]`. */
function digitsInRange(value: string, min: number, max: number): string | null {
  const n = value.length <= String(max).length && /^[0-9]+$/.test(value) ? Number(value) : NaN;
  return n >= min && n <= max ? null : wholeNumberMessage(min, max);
}

/** Names of {@link RULES}. */
export type RuleName = keyof typeof RULES;

/** The rule names, for the schema of the `x-rule` keyword. */
export const RULE_NAMES = Object.keys(RULES) as RuleName[];

/**
 * The rule between the two delays of a retry policy: `maxDelayMs` caps every delay,
 * so it must be at least `initialDelayMs`. Reported on `maxDelayMs`.
 * @param maxGiven whether the request sent `maxDelayMs` (else it is the job's or the default)
 * @returns why the pair breaks the rule, or null
 */
export function retryDelaysMessage(initialDelayMs: number, maxDelayMs: number, maxGiven = true): string | null {
  if (maxDelayMs >= initialDelayMs) return null;
  return maxGiven
    ? `must be at least initialDelayMs (${initialDelayMs})`
    : `is ${maxDelayMs}, less than initialDelayMs (${initialDelayMs}): send a maxDelayMs of at least ${initialDelayMs} too`;
}

/** Runs `fn`; returns null when it succeeds, else the message of the field problem it raised. */
function messageOf(fn: () => unknown, fallback: string): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof DomainError && err.errors[0] !== undefined) return err.errors[0].message;
    return fallback;
  }
}

/**
 * Collects field problems, then throws them all at once. Checks skip absent (`undefined`) fields,
 * so one set of calls serves creates (after {@link Checks.required}) and partial updates.
 * @example
 *   new Checks().required('/name', input.name).rule('/name', 'name', input.name).throwIfAny();
 */
export class Checks {
  readonly problems: FieldProblem[] = [];

  /** @param ctx the limits and endpoint policy the rules apply (default: {@link DEFAULT_RULE_CONTEXT}) */
  constructor(readonly ctx: RuleContext = DEFAULT_RULE_CONTEXT) {}

  /** Records `is required` when `value` is `undefined` or `null`. */
  required(path: string, value: unknown): this {
    if (value === undefined || value === null) this.add(path, 'is required');
    return this;
  }

  /**
   * Checks a present `value` against `rule`: it must be a string that keeps the rule; `null` is
   * accepted only for a `nullable` field.
   */
  rule(path: string, rule: RuleName, value: unknown, nullable = false): this {
    if (value === undefined || (value === null && nullable)) return this;
    if (typeof value !== 'string') return this.add(path, nullable ? 'must be a string or null' : 'must be a string');
    const message = RULES[rule](value, this.ctx);
    return message === null ? this : this.add(path, message);
  }

  /**
   * Checks that a present `value` is a JSON object (or `null` for a `nullable` field) nested at
   * most {@link MAX_DATA_DEPTH} levels deep, within the `data` limits ({@link dataProblem}).
   */
  object(path: string, value: unknown, nullable = false): this {
    if (value === undefined || (value === null && nullable)) return this;
    if (!isJsonObject(value)) return this.add(path, nullable ? 'must be a JSON object or null' : 'must be a JSON object');
    if (exceedsDepth(value, MAX_DATA_DEPTH)) return this.add(path, depthMessage(MAX_DATA_DEPTH));
    const message = dataProblem(value, this.ctx);
    return message === null ? this : this.add(path, message);
  }

  /** Checks a present `tags` value ({@link tagsProblems}). */
  tags(path: string, value: unknown): this {
    if (value === undefined) return this;
    for (const p of tagsProblems(path, value, this.ctx)) this.add(p.path, p.message);
    return this;
  }

  /**
   * Checks that a present `value` is an integer (a JSON number without fraction) from `min` to
   * `max`. Messages as the HTTP layer words the same schema errors (`must be an integer`,
   * `must be at least N`, `must be at most N`).
   */
  integer(path: string, value: unknown, min: number, max: number): this {
    if (value === undefined) return this;
    if (typeof value !== 'number' || !Number.isInteger(value)) return this.add(path, 'must be an integer');
    if (value < min) return this.add(path, `must be at least ${min}`);
    if (value > max) return this.add(path, `must be at most ${max}`);
    return this;
  }

  /** Checks that a present `value` is one of `allowed`. */
  oneOf(path: string, value: unknown, allowed: readonly string[]): this {
    if (value === undefined || allowed.includes(value as string)) return this;
    return this.add(path, `must be one of ${allowed.join(', ')}`);
  }

  /** Records a problem found by other means. */
  add(path: string, message: string): this {
    this.problems.push({ path, message });
    return this;
  }

  /** @throws InvalidInputError with every problem collected, when there is one. */
  throwIfAny(): void {
    if (this.problems.length > 0) throw new InvalidInputError(this.problems);
  }
}

/** True for a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when objects and arrays in `value` nest deeper than `max` levels (`value` itself, when an
 * object or array, is level 1). Iterative, so any depth is safe to inspect.
 */
export function exceedsDepth(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The message for a value nested deeper than `max`. */
export function depthMessage(max: number): string {
  return `must not nest objects and arrays more than ${max} levels deep`;
}
