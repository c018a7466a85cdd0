/**
 * The store operations the dispatcher, the pruner and the signing secret use, and nothing else:
 * what a store must offer to run the dispatch side of `punctual serve`. Every {@link Store} is one;
 * on SQLite, `punctual serve` gives the dispatcher a store whose claims and outcome writes run on
 * a thread of their own (src/store/sqlite/dispatch-thread.ts). The contract of each operation is the
 * `Store` method of the same name (src/store/store.ts).
 */
import type { Store } from '../store.js';

/** The names of the operations of {@link DispatchStore}. */
export const DISPATCH_STORE_OPERATIONS = [
  'now',
  'onWork',
  'claimDue',
  'nextDueAt',
  'executionsFinish',
  'leasesRelease',
  'executionsPrune',
  'settingGetOrCreate',
  'nodeRegister',
  'nodeHeartbeat',
  'nodesReap',
  'nodesLive',
  'nodeLeave',
] as const satisfies readonly (keyof Store)[];

/**
 * The dispatch side of a store (see above):
 * - the dispatcher: `now`, `onWork`, `claimDue`, `nextDueAt`, `executionsFinish`, `leasesRelease`;
 * - the pruner: `executionsPrune`;
 * - the signing secret (signing.ts): `settingGetOrCreate`;
 * - node liveness (liveness.ts): `nodeRegister`, `nodeHeartbeat`, `nodesReap`, `nodesLive`, `nodeLeave`.
 * Instants are epoch ms (UTC); errors are the `Store` method's (`StoreUnavailableError` when the
 * database cannot be reached).
 */
export type DispatchStore = Pick<Store, (typeof DISPATCH_STORE_OPERATIONS)[number]>;
