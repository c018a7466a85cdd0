/**
 * The typed request under every call of api.ts: a path template and a method of the
 * OpenAPI document (src/client/schema.ts), so that a call to an operation the API does not have
 * fails to typecheck. The API key is read from sessionStorage ({@link session}) and sent as
 * `Authorization: Bearer`; errors are RFC 9457 problem details, thrown as {@link ApiError}.
 */
import type { components, paths } from '../../src/client/schema';

type Schemas = components['schemas'];

/** A problem with one input field: `path` is a JSON Pointer (`/name`, `/retry/maxAttempts`, `/query/count`). */
export type FieldProblem = Schemas['FieldProblem'];
/** RFC 9457 problem details, as the API answers every error. */
export type Problem = Schemas['ProblemDetails'];

/** A failed API call: the problem the service answered, or one made up for a network failure (status 0). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title);
    this.name = 'ApiError';
  }
  get status(): number {
    return this.problem.status;
  }
  get fieldErrors(): FieldProblem[] {
    return this.problem.errors ?? [];
  }
}

const TOKEN_KEY = 'punctual.apiKey';

/** The API key of this tab: sessionStorage only (gone when the tab closes or on sign-out). */
export const session = {
  get(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  set(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  clear(): void {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

let unauthorizedListener: ((problem: Problem) => void) | null = null;

/** Called when the service refuses the stored key (401 or 403), e.g. to go back to sign-in. */
export function onUnauthorized(listener: (problem: Problem) => void): void {
  unauthorizedListener = listener;
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && 'status' in value && 'title' in value;
}

type Path = keyof paths;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The methods the document defines on `P`. */
type MethodOf<P extends Path> = { [M in Method]-?: [NonNullable<paths[P][M]>] extends [never] ? never : M }[Method];
type Operation<P extends Path, M extends Method> = NonNullable<paths[P][M]>;
type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
/** The JSON body of a successful (2xx) answer of `M P`; undefined for 204. */
type Answer<P extends Path, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? JsonBody<R[S]> : never }[keyof R]
    : never;
type Body<P extends Path, M extends Method> =
  Operation<P, M> extends { requestBody?: infer B } ? JsonBody<NonNullable<B>> : never;

/** What a call adds to its path template: the `{id}` (or `{key}`), the query, the JSON body, another key. */
interface CallOptions<B> {
  /** The value of the path's `{id}` or `{key}`. */
  id?: string;
  query?: URLSearchParams;
  body?: B;
  /** The key to send instead of the session's. */
  token?: string;
}

/**
 * Makes the call `method path` of the OpenAPI document, `{id}` or `{key}` replaced by the encoded `id`.
 * @returns the answer's JSON body, typed by the document
 * @throws ApiError for any non-2xx answer (after telling {@link onUnauthorized} of a 401 or 403 on
 *   the session's key), and with status 0 when the service could not be reached
 */
export async function request<P extends Path, M extends MethodOf<P>>(
  method: M,
  path: P,
  options: CallOptions<Body<P, M>> = {},
): Promise<Answer<P, M>> {
  const token = options.token ?? session.get();
  const { body } = options;
  const qs = options.query?.toString() ?? '';
  const url = (options.id === undefined ? path : path.replace(/\{(id|key)\}/, encodeURIComponent(options.id))) + (qs ? `?${qs}` : '');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method: method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError({
      type: 'about:blank',
      title: 'Network error',
      status: 0,
      detail: `Could not reach Punctual (${(err as Error).message}).`,
    });
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!res.ok) {
    const problem: Problem = isProblem(parsed)
      ? parsed
      : { type: 'about:blank', title: res.statusText || 'Error', status: res.status, detail: text.slice(0, 200) };
    if ((res.status === 401 || res.status === 403) && token === session.get()) unauthorizedListener?.(problem);
    throw new ApiError(problem);
  }
  return parsed as Answer<P, M>;
}
