/**
 * What the client's modules share: the types of an operation's body, answer and query, read from
 * the generated `paths` (schema.ts), and {@link unwrap}, which turns openapi-fetch's result into
 * the answer's body or a {@link PunctualProblem}. Not exported by `punctual/client`.
 */
import { PunctualProblem } from './errors.js';
import type { paths } from './schema.js';

/** The HTTP methods the client calls. */
export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
/** The operation of `paths` at path `P` and method `M`. */
export type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
/** The JSON body of a request or an answer `R`. */
export type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of the answer with status `S` of the operation. */
export type ResponseOf<P extends keyof paths, M extends Method, S extends number> = Operation<P, M> extends {
  responses: { [K in S]: infer R };
}
  ? JsonContent<R>
  : never;
/** The JSON body of the operation's request. */
export type BodyOf<P extends keyof paths, M extends Method> = JsonContent<NonNullable<Operation<P, M>['requestBody']>>;
/** The query of the operation. */
export type QueryOf<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

/** The result openapi-fetch gives for one request. */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The body of a successful answer.
 * @throws PunctualProblem for any answer that is not a success (the RFC 9457 fields)
 */
export async function unwrap<T>(call: Promise<FetchResult>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw PunctualProblem.fromResponse(response, error);
  return data as T;
}
