/** Helpers for query strings, as Fastify's parser gives them. */

/**
 * Makes a repeatable query parameter an array: Fastify's parser (fast-querystring) gives `?a=1`
 * as the string `'1'` and `?a=1&a=2` as `['1', '2']`. Meant for a route's `preValidation`, so the
 * schema can declare the parameter as an array of strings (as OpenAPI's `explode: true` form does).
 * @param query the request's parsed query (changed in place)
 */
export function repeatable(query: Record<string, unknown> | undefined, name: string): void {
  if (query && typeof query[name] === 'string') query[name] = [query[name]];
}
