/**
 * The request shape of a job's calls, for schedules and cron jobs alike: `method`, `headers` and
 * `body`, their rules, and how they combine with `data` (docs/calls.md, "Method, headers and
 * body"). The header-name policy itself is `domain/headers.ts`, which the dispatcher shares.
 */
import { BODILESS_METHODS, HTTP_METHODS } from '../domain/enums.js';
import { headerValueProblem, isHeaderName, isReservedHeader, MAX_JOB_HEADERS } from '../domain/headers.js';
import type { FieldProblem } from '../domain/errors.js';
import type { HttpMethod, JobRequest, JsonObject } from '../domain/types.js';
import { Checks, isJsonObject } from './rules.js';

/** The method of a job that does not say. */
export const DEFAULT_METHOD: HttpMethod = 'POST';

/** The request fields of a create or patch (null `body`: none; absent: the default or kept). */
export interface RequestInput {
  method?: HttpMethod;
  headers?: Record<string, string>;
  body?: string | null;
  data?: JsonObject | null;
}

/** What decides whether a job's call has one body: its method, `data` (null: none) and `body`. */
export type RequestShape = Pick<JobRequest, 'method' | 'body'> & { data: JsonObject | null };

/** A JSON Pointer reference token (RFC 6901): `~` → `~0`, `/` → `~1`. */
function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Why a `headers` value breaks the rules, as field problems (`path` for the object,
 * `path/<name>` for one header; the name escaped as a JSON Pointer token), or an empty list: a
 * JSON object of at most {@link MAX_JOB_HEADERS} headers, each name an RFC 9110 token that is not
 * reserved (domain/headers.ts) and not another's name in other case, each value a string that
 * `headerValueProblem` accepts.
 */
export function headersProblems(path: string, headers: unknown): FieldProblem[] {
  if (!isJsonObject(headers)) return [{ path, message: 'must be a JSON object of header names to string values' }];
  const names = Object.keys(headers);
  if (names.length > MAX_JOB_HEADERS) return [{ path, message: `must have at most ${MAX_JOB_HEADERS} headers` }];
  const out: FieldProblem[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    const at = `${path}/${pointerToken(name)}`;
    const lower = name.toLowerCase();
    const value = headers[name];
    let message: string | null = null;
    if (!isHeaderName(name)) message = 'is not a valid header name (RFC 9110 token characters only)';
    else if (isReservedHeader(name)) message = 'cannot be set: Punctual or the connection sets this header';
    else if (seen.has(lower)) message = `repeats the header ${seen.get(lower)!} (header names ignore case)`;
    else if (typeof value !== 'string') message = 'must be a string';
    else message = headerValueProblem(value);
    seen.set(lower, seen.get(lower) ?? name);
    if (message !== null) out.push({ path: at, message });
  }
  return out;
}

/** Checks the present request fields of a create or patch, each on its own (`body`: the `body` rule of rules.ts). */
export function checkRequestFields(checks: Checks, input: RequestInput): Checks {
  checks.oneOf('/method', input.method, HTTP_METHODS).rule('/body', 'body', input.body, true);
  if (input.headers !== undefined) for (const p of headersProblems('/headers', input.headers)) checks.add(p.path, p.message);
  return checks;
}

/**
 * Checks how the job's method, `data` and `body` combine once the request is applied (`shape`):
 * a call has one body, so a non-empty `data` and a `body` are not both kept; `GET` and `HEAD`
 * calls carry none, so with them `data` is empty and there is no `body`. A problem is reported on
 * the field the request gave (`body`, then `data`), else on `/method`.
 * @param given the request, to know which of the fields it gave
 */
export function checkRequestShape(checks: Checks, shape: RequestShape, given: RequestInput): Checks {
  const hasData = shape.data !== null && Object.keys(shape.data).length > 0;
  const at = (...fields: ('body' | 'data' | 'method')[]) => `/${fields.find((f) => given[f] !== undefined) ?? 'method'}`;
  if (BODILESS_METHODS.includes(shape.method)) {
    const why = `${shape.method} calls carry no body`;
    if (shape.body !== null) checks.add(at('body', 'method'), `${why}: the job must have no body (send "body": null)`);
    if (hasData) checks.add(at('data', 'method'), `${why}: the job's data must be empty (send "data": {})`);
    return checks;
  }
  if (shape.body !== null && hasData) {
    checks.add(at('body', 'data'), 'a call has one body: a job with a body must have an empty data (send "data": {} or null)');
  }
  return checks;
}

/** True when a patch gives a field that {@link checkRequestShape} must check against the stored job. */
export function changesShape(patch: RequestInput): boolean {
  return patch.method !== undefined || patch.body !== undefined || patch.data !== undefined;
}

/** The request shape of `stored` with the fields `patch` gives put over it. */
export function patchedShape(stored: RequestShape, patch: RequestInput): RequestShape {
  return {
    method: patch.method ?? stored.method,
    body: patch.body === undefined ? stored.body : patch.body,
    data: patch.data === undefined ? stored.data : patch.data,
  };
}
