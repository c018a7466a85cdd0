/**
 * What both production-stack conformance files share: the server's two stores seen as one
 * `Store`, and the record of the operations the stack's timer saw. The stack is the one
 * `punctual serve` runs, built by the function main.ts uses (`buildServeStore`,
 * src/serve-store.ts): every operation timed (timedStore), the dispatch operations on the dispatch
 * store the server gives its dispatcher. The SQLite stack is in production-sqlite.test.ts, the
 * PostgreSQL one in production-postgres.test.ts: two files, so that they run side by side.
 */
import { DISPATCH_STORE_OPERATIONS } from '../../src/store/contract/dispatch.js';
import type { ServeStore } from '../../src/serve-store.js';
import type { Store } from '../../src/store/store.js';

/**
 * The server's two stores seen as one `Store`, as the server's parts use them: the operations of
 * `DispatchStore` on `dispatchStore` (what the dispatcher, the pruner and the signing secret get),
 * the rest on `store` (what the API gets); `close` closes the stack.
 */
export function asServed(serve: ServeStore): Store {
  const view = Object.create(serve.store) as Record<string, unknown>;
  const dispatch = serve.dispatchStore as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const op of DISPATCH_STORE_OPERATIONS) view[op] = (...args: unknown[]) => dispatch[op]!(...args);
  view.close = () => serve.close();
  return view as unknown as Store;
}

/** Every operation the stack ran, by name (the timer's observer, {@link observe}). */
export const observed: string[] = [];

/** The timer's observer: records each operation's name in {@link observed}. */
export const observe = (operation: string): void => {
  observed.push(operation);
};
