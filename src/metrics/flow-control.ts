/**
 * The flow-control series (docs/metrics.md, docs/flow-control.md):
 * - `punctual_flow_control_waiting{key}` and `punctual_flow_control_in_flight{key}`: each key's
 *   calls due and waiting for its limits, and its calls in flight, asked of the store at each
 *   scrape (the store's view: the same on every node); absent from a scrape the store cannot answer;
 * - `punctual_flow_control_wait_seconds`: how long the attempts this node started waited for
 *   their key (`ClaimedExecution.waitedMs`), observed when their outcome is recorded;
 * - `punctual_flow_control_holds_total`: the holds this node's outcomes set (a 429 or 503 with
 *   `Retry-After` on a keyed call).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AttemptOutcome, ClaimedExecution } from '../domain/types.js';
import type { FlowControlStore } from '../store/contract/flow-control.js';
import { FLOW_CONTROL_BOUNDS } from '../domain/flow-control.js';

/** Buckets of `punctual_flow_control_wait_seconds`: 10 ms to an hour. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

/** What the gauges ask of the store. */
export type FlowControlSource = Pick<FlowControlStore, 'flowControlKeyNames' | 'flowControlKeyList' | 'flowControlKeyState'>;

/**
 * Registers the two gauges per key, asked of `store` at each scrape.
 * @param now epoch ms (UTC) that decides what is due
 */
export function watchFlowControlKeys(registry: Registry, store: FlowControlSource, now: () => number): void {
  const labelNames = ['key'] as const;
  type States = { key: string; waiting: number; inFlight: number }[];
  let scrape: Promise<States> | null = null;
  const fetch = async (): Promise<States> => {
    const configured = new Map((await store.flowControlKeyList()).map((k) => [k.key, k]));
    const at = now();
    const out: States = [];
    for (const key of await store.flowControlKeyNames()) {
      const k = configured.get(key);
      out.push(await store.flowControlKeyState({ key, now: at, rate: false, periodMs: k?.periodMs ?? FLOW_CONTROL_BOUNDS.periodDefaultMs }));
    }
    return out;
  };
  // One walk of the keys per scrape: the first gauge starts it (the registry collects in the
  // order of registration), the second reads the same answer.
  const states = (first: boolean): Promise<States> => (first || scrape === null ? (scrape = fetch()) : scrape);
  const gauge = (name: string, help: string, first: boolean, pick: (s: { waiting: number; inFlight: number }) => number) => {
    const g: Gauge<'key'> = new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        g.reset();
        try {
          for (const s of await states(first)) g.set({ key: s.key }, pick(s));
        } catch {
          // The store cannot answer: the series are absent from this scrape.
        }
      },
    });
  };
  gauge('punctual_flow_control_waiting', 'Calls due and waiting for the limits of their flow-control key, by key (the store\'s view).', true, (s) => s.waiting);
  gauge('punctual_flow_control_in_flight', 'Calls of each flow-control key in flight, by key (the store\'s view).', false, (s) => s.inFlight);
}

/**
 * Registers the histogram of waits and the counter of holds.
 * @returns what to call with each delivered attempt (`dispatch:delivered`)
 */
export function flowControlDeliveries(registry: Registry): (claim: ClaimedExecution, outcome: AttemptOutcome) => void {
  const registers = [registry];
  const wait = new Histogram({
    name: 'punctual_flow_control_wait_seconds',
    help: 'How long the attempts of keyed calls this node started waited for their flow-control key, in seconds.',
    buckets: WAIT_BUCKETS,
    registers,
  });
  const holds = new Counter({
    name: 'punctual_flow_control_holds_total',
    help: 'Holds of flow-control keys set by this node\'s outcomes: a keyed call answered 429 or 503 with Retry-After.',
    registers,
  });
  return (claim, outcome) => {
    if (claim.waitedMs !== undefined) wait.observe(Math.max(0, claim.waitedMs) / 1000);
    if (outcome.flowControlHoldUntil !== undefined) holds.inc();
  };
}
