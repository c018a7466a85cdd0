import type { DeliveredEvent } from '../../src/dispatch/events.js';
import type { RunningServer } from '../../src/main.js';

/** Every `dispatch:delivered` event of a server from now on, and a way to await one. */
export interface Deliveries {
  /** Resolves with the delivered attempt of execution `executionId` (its outcome is stored by then). */
  of(executionId: string, timeoutMs?: number): Promise<DeliveredEvent>;
  /** Stops listening. */
  stop(): void;
}

/**
 * Records the deliveries of an in-process server (one with a dispatcher). Start it before the
 * request that causes the call: the call may finish before that request's answer arrives.
 */
export function recordDeliveries(server: Pick<RunningServer, 'dispatcher'>): Deliveries {
  const events = server.dispatcher!.events;
  const seen: DeliveredEvent[] = [];
  const waiters = new Set<() => void>();
  const onDelivered = (e: DeliveredEvent) => {
    seen.push(e);
    for (const w of [...waiters]) w();
  };
  events.on('dispatch:delivered', onDelivered);
  return {
    of(executionId, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = seen.find((e) => e.claim.executionId === executionId);
          if (hit) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no delivery of execution ${executionId} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop: () => {
      events.off('dispatch:delivered', onDelivered);
    },
  };
}
