import type { DeliveredEvent } from '../../src/dispatch/events.js';
import type { RunningServer } from '../../src/main.js';

/** Every `dispatch:delivered` event of a server from now on, and a way to await one. */
export interface Deliveries {
  /** Resolves with the delivered attempt of execution `executionId` (its outcome is stored by then). */
  of(executionId: string, timeoutMs?: number): Promise<DeliveredEvent>;
  /** Resolves with the first delivered attempt of job `jobId`. */
  ofJob(jobId: string, timeoutMs?: number): Promise<DeliveredEvent>;
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
  const first = (what: string, match: (e: DeliveredEvent) => boolean, timeoutMs: number) =>
    new Promise<DeliveredEvent>((resolve, reject) => {
      const check = () => {
        const hit = seen.find(match);
        if (hit) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no delivery of ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return {
    of: (executionId, timeoutMs = 15_000) => first(`execution ${executionId}`, (e) => e.claim.executionId === executionId, timeoutMs),
    ofJob: (jobId, timeoutMs = 15_000) => first(`job ${jobId}`, (e) => e.claim.jobId === jobId, timeoutMs),
    stop: () => {
      events.off('dispatch:delivered', onDelivered);
    },
  };
}
