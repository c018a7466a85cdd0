/**
 * Exit codes of the `punctual` command and how an error is reported. The codes are
 * documented in the README ("Command line"):
 *
 * | Code | Meaning |
 * |---|---|
 * | 0 | success |
 * | 1 | the API refused the request (a 4xx problem other than 404: invalid input, 401, 403, 409, 429…); `secrets rekey`: a job could not be re-sealed |
 * | 2 | usage or configuration error (unknown option, bad flag value, no `PUNCTUAL_URL`/`PUNCTUAL_TOKEN`) |
 * | 3 | not found: a `get` answered null, or the API answered 404 |
 * | 4 | the service could not be reached, or answered 5xx (503 while its store is down) |
 */
import { fieldLines, PunctualConnectionError, PunctualProblem } from '../client/errors.js';
import { DomainError } from '../domain/errors.js';

/** The exit codes, by meaning. */
export const EXIT = { ok: 0, apiError: 1, usage: 2, notFound: 3, unavailable: 4 } as const;

/** A command used wrongly or a missing setting: exit code 2, nothing was sent. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The resource asked for does not exist (a `get` answered null): exit code 3. */
export class NotFound extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFound';
  }
}

/** The exit code that reports `err`. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof NotFound) return EXIT.notFound;
  if (err instanceof PunctualConnectionError) return EXIT.unavailable;
  if (err instanceof PunctualProblem) {
    if (err.status === 404) return EXIT.notFound;
    return err.status >= 500 ? EXIT.unavailable : EXIT.apiError;
  }
  // The commands that work on the store directly (keys --local) meet the domain's errors.
  if (err instanceof DomainError) {
    if (err.code === 'not_found') return EXIT.notFound;
    return err.code === 'store_unavailable' ? EXIT.unavailable : EXIT.apiError;
  }
  return EXIT.apiError;
}

/**
 * What is written to stderr for `err`. A problem: its status, title and detail, then one line per
 * faulty field (`  /path: message`) that the detail does not already state, so each field is
 * named once; with `json`, the problem document itself, on one line.
 */
export function describeError(err: unknown, json: boolean): string {
  if (err instanceof PunctualProblem) {
    if (json) return JSON.stringify(err.toJSON());
    const fields = fieldLines(err.detail, err.errors);
    const retry = err.retryAfterSeconds === null ? '' : ` (retry after ${err.retryAfterSeconds} s)`;
    return `punctual: ${err.status} ${err.title}: ${err.detail}${retry}${fields}`;
  }
  if (err instanceof DomainError) {
    return `punctual: ${err.message}${fieldLines(err.message, err.errors)}`;
  }
  return `punctual: ${err instanceof Error ? err.message : String(err)}`;
}
