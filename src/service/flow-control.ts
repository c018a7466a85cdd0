/**
 * Flow-control keys (docs/flow-control.md): put, read with their live state, list, pause, resume,
 * delete. A key is 1 to 128 of `A-Z a-z 0-9 . _ : -`; `parallelism` 1–10,000 or null; `rate`
 * 1–100,000 or null per `period` of 1,000–86,400,000 ms (default 1,000); a key has at least one
 * of the two limits unless it is paused. A key named by jobs but never configured has no limits;
 * it is listed with `configured: false`. Every change makes the key's waiting calls ready at once
 * (the store resets the key's `ready_at`) and wakes this node's dispatcher; other nodes look again
 * within FLOW_CONTROL_RECHECK_MS (store/rules/flow-control.ts) at the latest.
 */
import { FLOW_CONTROL_BOUNDS, type FlowControlKey } from '../domain/flow-control.js';
import { NotFoundError } from '../domain/errors.js';
import type { FlowControlKeyState } from '../store/contract/flow-control.js';
import type { JobServiceContext } from './context.js';
import { Checks } from './rules.js';

/** A key as the API shows it: its limits (none for a key not configured) and what it has under way. */
export interface FlowControlKeyView extends FlowControlKeyState {
  /** False for a key named by jobs (or their executions) but never configured: no limits. */
  configured: boolean;
  parallelism: number | null;
  rate: number | null;
  /** The window of `rate`, ms. */
  periodMs: number;
  paused: boolean;
  /** Epoch ms (UTC) until which a receiver's 429 or 503 holds the key; null when no hold runs. */
  holdUntil: number | null;
  /** Epoch ms (UTC); null for a key not configured. */
  createdAt: number | null;
  updatedAt: number | null;
}

/** The body of a PUT: absent limits are null, an absent period 1,000 ms, an absent pause false. */
export interface FlowControlKeyInput {
  parallelism?: number | null;
  rate?: number | null;
  period?: number;
  paused?: boolean;
}

const NOT_FOUND = 'No flow-control key of this name is configured.';

/** Checks the key's name (`/key`). @throws InvalidInputError */
function checkKey(key: string): void {
  new Checks().rule('/key', 'flow-control-key', key).throwIfAny();
}

/**
 * Checks a PUT body: the bounds of each limit, and at least one limit unless paused.
 * @throws InvalidInputError naming each faulty field
 */
function checkInput(input: FlowControlKeyInput): void {
  const b = FLOW_CONTROL_BOUNDS;
  const c = new Checks();
  if (input.parallelism !== null) c.integer('/parallelism', input.parallelism, 1, b.parallelismMax);
  if (input.rate !== null) c.integer('/rate', input.rate, 1, b.rateMax);
  c.integer('/period', input.period, b.periodMinMs, b.periodMaxMs);
  if (input.paused !== undefined && typeof input.paused !== 'boolean') c.add('/paused', 'must be a boolean');
  if ((input.parallelism ?? null) === null && (input.rate ?? null) === null && input.paused !== true) {
    c.add('/parallelism', 'give parallelism or rate (or both), or paused: true');
  }
  c.throwIfAny();
}

/** The view of `key` from its configuration (null: not configured) and its state now. */
async function viewOf(ctx: JobServiceContext, key: string, k: FlowControlKey | null): Promise<FlowControlKeyView> {
  const periodMs = k?.periodMs ?? FLOW_CONTROL_BOUNDS.periodDefaultMs;
  const now = ctx.clock.now();
  const state = await ctx.store.flowControlKeyState({ key, now, rate: k?.rate != null, periodMs });
  return {
    ...state,
    configured: k !== null,
    parallelism: k?.parallelism ?? null,
    rate: k?.rate ?? null,
    periodMs,
    paused: k?.paused ?? false,
    // A hold that has ended no longer holds: shown as none.
    holdUntil: k?.holdUntil != null && k.holdUntil > now ? k.holdUntil : null,
    createdAt: k?.createdAt ?? null,
    updatedAt: k?.updatedAt ?? null,
  };
}

/**
 * Creates or replaces key `key`'s limits and pause (a replaced key keeps its creation instant and
 * a receiver's hold). Calls already waiting take the new limits at once.
 * @returns the key's view, and whether the PUT created it
 * @throws InvalidInputError naming `/key` or the body's faulty fields
 */
export async function putFlowControlKey(
  ctx: JobServiceContext,
  key: string,
  input: FlowControlKeyInput,
): Promise<{ view: FlowControlKeyView; created: boolean }> {
  checkKey(key);
  checkInput(input);
  const now = ctx.clock.now();
  const { value, created } = await ctx.store.flowControlKeyPut({
    key,
    parallelism: input.parallelism ?? null,
    rate: input.rate ?? null,
    periodMs: input.period ?? FLOW_CONTROL_BOUNDS.periodDefaultMs,
    paused: input.paused ?? false,
    now,
  });
  ctx.wake(now);
  return { view: await viewOf(ctx, key, value), created };
}

/**
 * Key `key` with its live state; null when it is neither configured nor named by a job or an
 * execution.
 * @throws InvalidInputError naming `/key`
 */
export async function getFlowControlKey(ctx: JobServiceContext, key: string): Promise<FlowControlKeyView | null> {
  checkKey(key);
  const k = await ctx.store.flowControlKeyGet({ key });
  const view = await viewOf(ctx, key, k);
  if (k !== null || view.waiting > 0 || view.inFlight > 0) return view;
  return (await ctx.store.flowControlKeyNames()).includes(key) ? view : null;
}

/** Every key in use (configured, named by a job, or of executions waiting or in flight), in byte order, with its state. */
export async function listFlowControlKeys(ctx: JobServiceContext): Promise<FlowControlKeyView[]> {
  const configured = new Map((await ctx.store.flowControlKeyList()).map((k) => [k.key, k]));
  const names = await ctx.store.flowControlKeyNames();
  const views: FlowControlKeyView[] = [];
  for (const key of names) views.push(await viewOf(ctx, key, configured.get(key) ?? null));
  return views;
}

/**
 * Pauses (its calls wait, none starts) or resumes key `key`. A key not configured is a 404 (a
 * PUT with `paused: true` configures one paused, without limits).
 * @throws InvalidInputError naming `/key`; NotFoundError when the key is not configured
 */
export async function setFlowControlKeyPaused(ctx: JobServiceContext, key: string, paused: boolean): Promise<FlowControlKeyView> {
  checkKey(key);
  const now = ctx.clock.now();
  const k = await ctx.store.flowControlKeySetPaused({ key, paused, now });
  if (k === null) throw new NotFoundError(NOT_FOUND);
  ctx.wake(now);
  return viewOf(ctx, key, k);
}

/**
 * Removes key `key`'s configuration: its calls then have no limits (they stay counted and listed
 * while jobs name the key).
 * @throws InvalidInputError naming `/key`; NotFoundError when the key is not configured
 */
export async function deleteFlowControlKey(ctx: JobServiceContext, key: string): Promise<void> {
  checkKey(key);
  if (!(await ctx.store.flowControlKeyDelete({ key }))) throw new NotFoundError(NOT_FOUND);
  ctx.wake(ctx.clock.now());
}
