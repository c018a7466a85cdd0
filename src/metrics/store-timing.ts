/**
 * A timing decorator of the store: every operation's duration, by operation name and result, for
 * `punctual_store_operation_duration_seconds`. Applied by `buildServeStore` (src/serve-store.ts)
 * around the stores the server uses: the store of the API, and the dispatcher's when it has its own.
 *
 * A Proxy rather than a class that restates each method: the `Store` contract grows (new
 * operations are added), and a hand-written wrapper would silently leave new ones untimed or, worse,
 * missing. The Proxy changes nothing else: each method runs on the store itself (`this` is the
 * real store, so its private state is reached as before), its result and errors pass through
 * unchanged, and what returns no promise (`onWork`, which returns its unsubscribe function, or
 * a getter) is passed through untimed. `instanceof` still sees the store's class.
 */

/** Receives one finished operation: its method name, its duration (s) and whether it resolved. */
export type StoreOperationObserver = (operation: string, seconds: number, ok: boolean) => void;

/**
 * `store`, with each method that returns a promise timed by `observe` (once it settles). The
 * label is the method's name, so it is bounded by the store's methods.
 * @returns a Proxy of `store`, usable wherever `store` is
 */
export function timedStore<S extends object>(store: S, observe: StoreOperationObserver): S {
  const wrappers = new WeakMap<(...args: unknown[]) => unknown, (...args: unknown[]) => unknown>();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'constructor') return value;
      const method = value as (...args: unknown[]) => unknown;
      let wrapper = wrappers.get(method);
      if (wrapper === undefined) {
        wrapper = (...args: unknown[]): unknown => {
          const start = performance.now();
          const result = method.apply(target, args);
          if (!isPromiseLike(result)) return result;
          return Promise.resolve(result).then(
            (v) => {
              observe(property, (performance.now() - start) / 1000, true);
              return v;
            },
            (err: unknown) => {
              observe(property, (performance.now() - start) / 1000, false);
              throw err;
            },
          );
        };
        wrappers.set(method, wrapper);
      }
      return wrapper;
    },
  });
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}
