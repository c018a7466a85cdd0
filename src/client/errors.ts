/**
 * The errors the Punctual client throws: {@link PunctualProblem} for every answer
 * that is not a success (RFC 9457 problem details, as the service answers every error), and
 * {@link PunctualConnectionError} when no answer came at all.
 */

import type { components } from './schema.js';

/** One faulty input field of a problem (`errors[]`): `path` is a JSON Pointer, e.g. `/scheduledAt` or `/query/limit`. */
export type FieldProblem = components['schemas']['FieldProblem'];

/**
 * An RFC 9457 problem document as Punctual sends it (`application/problem+json`): `type` is
 * `urn:punctual:problem:<code>` (e.g. `…:invalid_input`), `status` the HTTP status, `errors` every
 * faulty field (validation problems only).
 */
export type ProblemDetails = components['schemas']['ProblemDetails'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldProblems(value: unknown): FieldProblem[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isRecord)
    .map((e) => ({ path: typeof e.path === 'string' ? e.path : '', message: typeof e.message === 'string' ? e.message : '' }));
}

/**
 * The field lines of a problem's text: `\n  <path>: <message>` for each of `errors` that `detail`
 * does not already state. The service words a problem with one faulty field as that field
 * (`detail: "/name: must not be empty."`), so its line would repeat the detail.
 */
export function fieldLines(detail: string, errors: readonly FieldProblem[]): string {
  return errors
    .map((e) => `${e.path}: ${e.message}`)
    .filter((line) => !detail.includes(line))
    .map((line) => `\n  ${line}`)
    .join('');
}

/** `Retry-After` in whole seconds (delta-seconds or an HTTP date, RFC 9110 §10.2.3), or null. */
function retryAfterSeconds(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * An answer of the service that is not a success (any 4xx or 5xx), as an Error. Its fields are
 * the problem document's; an answer that is not one (a proxy's HTML 502, an empty body) gets
 * `type: 'about:blank'`, the status text as `title` and the start of the body as `detail`.
 */
export class PunctualProblem extends Error implements ProblemDetails {
  /** `urn:punctual:problem:<code>`; `about:blank` when the answer was not a problem document. */
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** Every faulty field (validation problems); `[]` otherwise. */
  readonly errors: FieldProblem[];
  /** `Retry-After` of the answer in seconds (429, 503), or null. */
  readonly retryAfterSeconds: number | null;

  constructor(problem: ProblemDetails, retryAfter: number | null = null) {
    super(`${problem.status} ${problem.title}: ${problem.detail}${fieldLines(problem.detail, problem.errors ?? [])}`);
    this.name = 'PunctualProblem';
    this.type = problem.type;
    this.title = problem.title;
    this.status = problem.status;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.retryAfterSeconds = retryAfter;
  }

  /**
   * The problem an answer carries. `body` is what openapi-fetch read from it: the parsed JSON, the
   * text when it was not JSON, or undefined when it was empty.
   */
  static fromResponse(response: Response, body: unknown): PunctualProblem {
    const retryAfter = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
    if (isRecord(body) && typeof body.title === 'string') {
      return new PunctualProblem(
        {
          type: typeof body.type === 'string' ? body.type : 'about:blank',
          title: body.title,
          status: typeof body.status === 'number' ? body.status : response.status,
          detail: typeof body.detail === 'string' ? body.detail : body.title,
          errors: fieldProblems(body.errors),
        },
        retryAfter,
      );
    }
    const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
    const title = response.statusText || `HTTP ${response.status}`;
    return new PunctualProblem(
      { type: 'about:blank', title, status: response.status, detail: text || title, errors: [] },
      retryAfter,
    );
  }

  /** The problem as a plain RFC 9457 document (what the service sent, for `JSON.stringify`). */
  toJSON(): ProblemDetails {
    const { type, title, status, detail, errors } = this;
    return errors.length > 0 ? { type, title, status, detail, errors } : ({ type, title, status, detail } as ProblemDetails);
  }
}

/**
 * No answer came from the service: the connection was refused or reset, the host name did not
 * resolve, TLS failed. `cause` is the error fetch threw; `code` its system error code when known
 * (`ECONNREFUSED`, `ENOTFOUND`, …).
 */
export class PunctualConnectionError extends Error {
  readonly code: string | null;
  /** The URL of the request that got no answer. */
  readonly url: string;

  constructor(url: string, cause: unknown) {
    const code = systemErrorCode(cause);
    const reason = code ?? innermostMessage(cause);
    super(`cannot reach ${new URL(url).origin}${reason ? ` (${reason})` : ''}`, { cause });
    this.name = 'PunctualConnectionError';
    this.code = code;
    this.url = url;
  }
}

/** The `code` of a system error, looked for in `err` and its `cause` chain (undici wraps it in `TypeError: fetch failed`). */
function systemErrorCode(err: unknown): string | null {
  for (let e = err, depth = 0; isRecord(e) && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'string') return e.code;
    if (Array.isArray(e.errors)) {
      const inner = e.errors.map(systemErrorCode).find((c) => c !== null);
      if (inner) return inner;
    }
  }
  return null;
}

/** The message of the last error in `err`'s `cause` chain (`bad port` under undici's `fetch failed`), or null. */
function innermostMessage(err: unknown): string | null {
  let message: string | null = null;
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) message = e.message || message;
  return message;
}
