/**
 * Domain errors. Each carries a stable `code` and no HTTP status: the HTTP layer maps codes to
 * statuses in one table (`http/problem.ts`), so the store, cron and dispatch layers stay
 * transport-agnostic.
 */

/** Stable error codes. Never renamed: clients and the problem `type` URIs depend on them. */
export type ErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'conflict'
  | 'unauthenticated'
  | 'forbidden'
  | 'insufficient_scope'
  | 'store_unavailable';

/** One problem with one input field, as reported in problem details `errors[]` (RFC 9457 §3.2). */
export interface FieldProblem {
  /** JSON Pointer-like path of the field, e.g. `/expression` or `/query/count`. */
  path: string;
  /** Human-readable explanation, e.g. `must be a valid IANA time zone`. */
  message: string;
}

/** Base class of every error the domain raises on purpose. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors: FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/**
 * The `detail` of invalid input: the one problem as `<path>: <message>` (so a client that shows
 * only the detail still learns which field and why), else how many fields are at fault.
 */
function describeProblems(errors: readonly FieldProblem[]): string {
  if (errors.length === 1) return `${errors[0]!.path}: ${errors[0]!.message}`;
  return errors.length === 0 ? 'The request is invalid.' : `${errors.length} fields are invalid.`;
}

/** Input that breaks a rule of the interface. `errors` names every field at fault. */
export class InvalidInputError extends DomainError {
  /** @param message the problem's `detail`; by default the one problem (`<path>: <message>`) or the count of them */
  constructor(errors: FieldProblem[], message = describeProblems(errors)) {
    super('invalid_input', message, errors);
    this.name = 'InvalidInputError';
  }

  /** Shorthand for one faulty field. */
  static field(path: string, message: string): InvalidInputError {
    return new InvalidInputError([{ path, message }]);
  }
}

/** The addressed resource does not exist (or was deleted). */
export class NotFoundError extends DomainError {
  constructor(message = 'No such resource.') {
    super('not_found', message);
    this.name = 'NotFoundError';
  }
}

/**
 * The request is valid but conflicts with the resource's state (e.g. patching a schedule that
 * already ran, or a `key` another job holds); `errors` names the field at fault when there is one.
 */
export class ConflictError extends DomainError {
  constructor(message: string, errors: FieldProblem[] = []) {
    super('conflict', message, errors);
    this.name = 'ConflictError';
  }
}

/** The store cannot be reached or written right now; the request may be retried. */
export class StoreUnavailableError extends DomainError {
  constructor(message = 'The store is unavailable.', cause?: unknown) {
    super('store_unavailable', message);
    this.name = 'StoreUnavailableError';
    this.cause = cause;
  }
}

/**
 * The API key lacks a scope the request needs (its route's, or one it tried to grant): a 403 that
 * names the scopes (docs/keys-and-audit.md, "Scopes").
 */
export class InsufficientScopeError extends DomainError {
  constructor(message: string) {
    super('insufficient_scope', message);
    this.name = 'InsufficientScopeError';
  }
}
