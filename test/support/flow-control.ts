/**
 * What the flow-control end-to-end files share: keyed schedules created over a server's API in
 * batches, the key's state read back, and the checks on what a {@link CountingReceiver} saw.
 * Not a test file.
 */
import { expect } from 'vitest';
import { call } from './child.js';
import type { Call, CountingReceiver } from './counting-receiver.js';

/** One schedule to create: its path group and index (`/<group>/<i>`), its key (or none) and its instant (epoch ms). */
export interface Planned {
  group: string;
  i: number;
  key: string | null;
  at: number;
}

/** `n` schedules of `group` and `key`, the i-th due at `at(i)`. */
export function plan(group: string, key: string | null, n: number, at: (i: number) => number): Planned[] {
  return Array.from({ length: n }, (_, i) => ({ group, i, key, at: at(i) }));
}

/** An execution as GET /executions/{id} shows it (the fields these tests read). */
export interface FlowExecution {
  id: string;
  status: string;
  waitingFor: string | null;
  flowControlKey: string | null;
  attempts: { waitedMs: number | null; statusCode: number | null }[];
}

/** A key as GET /flow-control-keys/{key} shows it (the fields these tests read). */
export interface FlowKey {
  paused: boolean;
  waiting: number;
  inFlight: number;
  holdUntil: string | null;
}

/** The helpers of {@link flowHelpers}. */
export interface FlowHelpers {
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** PUT /flow-control-keys/{key}; expects 200 or 201. */
  putKey(key: string, limits: Record<string, unknown>): Promise<FlowKey>;
  getKey(key: string): Promise<FlowKey>;
  execution(id: string): Promise<FlowExecution>;
  /** Creates the schedules (`POST /schedules/batch`, 1,000 a request); returns their ids in the order given. */
  create(planned: Planned[]): Promise<string[]>;
  /** Every call of `group` arrived exactly once: `n` distinct webhook-ids and paths, `n` calls. */
  expectEachOnce(group: string, n: number): Call[];
  /** Waits until `n` calls of `group` arrived and none is in flight, then 200 ms more for a straggler duplicate. */
  allDone(group: string, n: number, timeoutMs?: number): Promise<void>;
}

/**
 * The helpers for the server at `base()` (authenticated with `token`) calling `receiver()`: getters,
 * so that a file can make its helpers before its hooks start the server and the receiver.
 */
export function flowHelpers(base: () => string, token: string, receiver: () => CountingReceiver): FlowHelpers {
  const api = (method: string, path: string, body?: unknown) => call(base(), token, method, path, body);
  return {
    api,
    async putKey(key, limits) {
      const res = await api('PUT', `/flow-control-keys/${key}`, limits);
      expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
      return res.body as FlowKey;
    },
    getKey: async (key) => (await api('GET', `/flow-control-keys/${key}`)).body as FlowKey,
    execution: async (id) => (await api('GET', `/executions/${id}`)).body as FlowExecution,
    async create(planned) {
      const ids: string[] = [];
      for (let from = 0; from < planned.length; from += 1_000) {
        const part = planned.slice(from, from + 1_000);
        const res = await api('POST', '/schedules/batch', {
          schedules: part.map((p) => ({
            name: `${p.group}-${p.i}`,
            scheduledAt: new Date(p.at).toISOString(),
            endpoint: `${receiver().url}/${p.group}/${p.i}`,
            ...(p.key !== null && { flowControlKey: p.key }),
          })),
        });
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
        ids.push(...(res.body as { schedules: { id: string }[] }).schedules.map((s) => s.id));
      }
      return ids;
    },
    expectEachOnce(group, n) {
      const calls = receiver().of(group);
      expect(new Set(calls.map((c) => c.id)).size, `${group}: distinct webhook-ids`).toBe(n);
      expect(new Set(calls.map((c) => c.path)).size, `${group}: distinct paths`).toBe(n);
      expect(calls, `${group}: calls`).toHaveLength(n);
      return calls;
    },
    async allDone(group, n, timeoutMs = 15_000) {
      await receiver().waitFor(() => receiver().of(group).length >= n && receiver().inFlight(group) === 0, timeoutMs, `${n} calls of ${group}`);
      await new Promise((r) => setTimeout(r, 200));
    },
  };
}
