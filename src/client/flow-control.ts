/**
 * The flow-control keys of the client (`client.flowControlKeys`, docs/client.md): limits shared by
 * the calls of every job that names a key (`flowControlKey` of schedules and cron jobs). Changes
 * need the `jobs:write` scope, reads `jobs:read`.
 */
import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import { unwrap, type BodyOf, type ResponseOf } from './wire.js';

/**
 * A flow-control key: its limits (`parallelism`, `rate` per `period` ms, `paused`; null limits do
 * not bound) and its live state (`waiting`, `inFlight`, `rateUsed`, `oldestWaitingSince`,
 * `holdUntil`; instants ISO 8601, UTC). `configured` is false for a key named by jobs only.
 */
export type FlowControlKey = ResponseOf<'/flow-control-keys/{key}', 'put', 200>;
/**
 * Body of `flowControlKeys.put` (PUT /flow-control-keys/{key}): all the key's limits, replaced
 * whole (an absent limit is null, an absent `period` 1,000 ms, an absent `paused` false). At
 * least one of `parallelism` and `rate` unless `paused`.
 */
export type FlowControlKeyPut = BodyOf<'/flow-control-keys/{key}', 'put'>;
/** `{ size, flowControlKeys }`: every key in use, in byte order of their names. */
export type FlowControlKeyList = ResponseOf<'/flow-control-keys', 'get', 200>;

/** The calls of `client.flowControlKeys` on the authenticated openapi-fetch client `raw`. */
export function flowControlKeyCalls(raw: Client<paths>) {
  const key = (name: string) => ({ params: { path: { key: name } } });
  return {
    /**
     * PUT /flow-control-keys/{key}: creates the key or replaces all its limits; calls already
     * waiting take the new limits at once.
     * @throws PunctualProblem 400 naming the faulty field (`/parallelism` when no limit is given and not paused)
     */
    put: (name: string, body: FlowControlKeyPut) =>
      unwrap<FlowControlKey>(raw.PUT('/flow-control-keys/{key}', { ...key(name), body })),
    /** GET /flow-control-keys: every key in use (configured, or named by a job), with its live state. */
    list: () => unwrap<FlowControlKeyList>(raw.GET('/flow-control-keys')),
    /** GET /flow-control-keys/{key}: the key with its live state, or null when nothing names it. */
    get: (name: string) => unwrap<FlowControlKey | null>(raw.GET('/flow-control-keys/{key}', key(name))),
    /**
     * DELETE /flow-control-keys/{key}: removes the key's limits (its waiting calls start at once).
     * @throws PunctualProblem 404 when the key is not configured
     */
    delete: (name: string) => unwrap<void>(raw.DELETE('/flow-control-keys/{key}', key(name))),
    /**
     * POST /flow-control-keys/{key}/pause: the key starts no call until resumed; its calls wait.
     * @throws PunctualProblem 404 when the key is not configured
     */
    pause: (name: string) => unwrap<FlowControlKey>(raw.POST('/flow-control-keys/{key}/pause', key(name))),
    /**
     * POST /flow-control-keys/{key}/resume: the key starts its waiting calls again, within its limits.
     * @throws PunctualProblem 404 when the key is not configured
     */
    resume: (name: string) => unwrap<FlowControlKey>(raw.POST('/flow-control-keys/{key}/resume', key(name))),
  };
}
