/**
 * The admission of flow control (domain/flow-control.ts), written once for both stores: how many
 * of a key's waiting calls may start now, when the key may start more, and how one claim's room
 * is shared between keys. Pure: no SQL, no clock; instants are epoch ms (UTC).
 *
 * The rate is a sliding window: a start at `s` counts against the key during (s − periodMs, s],
 * seen from any later instant `t` while `s > t − periodMs`. At most `rate` starts may stand in
 * any window of `periodMs`, wherever it begins; since every start already made lies at or before
 * `now`, the window that ends at `now` is the fullest one that a start at `now` joins, so `rate`
 * minus the starts after `now − periodMs` is what may start now. (A token bucket refilled at
 * `rate` per period with a burst of `rate` would let up to twice `rate` start within one period:
 * a full bucket spent at the end of one period and the refill at the start of the next.)
 *
 * Parallelism counts the key's calls in flight (leased and not finished); a slot frees when one
 * finishes, or when a dead node's lease ends and the call is leased again (it keeps its slot).
 */
import type { FlowControlLimits } from '../../domain/flow-control.js';

/** What a key has under way at the instant of an admission. */
export interface FlowControlState {
  /** Its calls in flight. */
  inFlight: number;
  /** The instants of its starts, ascending; those at or before `now − periodMs` no longer count. */
  starts: readonly number[];
}

/** The answer of {@link admission}. */
export interface Admission {
  /** How many of the calls that want to start may start now: 0 to `wanted`. */
  admit: number;
  /**
   * When the key may start one more call, for calls left waiting: the end of a hold, or the
   * instant the oldest start counted leaves the window (epoch ms). Null when none is left
   * waiting, when the key is paused (its resume frees them), or when all its slots of
   * parallelism are taken (a finish frees one).
   */
  nextAt: number | null;
}

/**
 * The starts of `starts` (ascending) that still count at `now`: those after `now − periodMs`.
 * @returns a new array, ascending
 */
export function liveStarts(starts: readonly number[], now: number, periodMs: number): number[] {
  const from = now - periodMs;
  let i = 0;
  while (i < starts.length && starts[i]! <= from) i++;
  return starts.slice(i);
}

/**
 * How many of `wanted` waiting calls of one key may start at `now` (the rules above): none while
 * the key is paused or held; otherwise at most its free slots of parallelism and at most `rate`
 * minus its starts in the window that ends at `now`.
 * @param wanted calls of the key that are due and waiting, ≥ 0
 */
export function admission(limits: FlowControlLimits, state: FlowControlState, now: number, wanted: number): Admission {
  if (wanted <= 0) return { admit: 0, nextAt: null };
  if (limits.paused) return { admit: 0, nextAt: null };
  if (limits.holdUntil !== null && limits.holdUntil > now) return { admit: 0, nextAt: limits.holdUntil };
  const live = limits.rate === null ? [] : liveStarts(state.starts, now, limits.periodMs);
  const bySlots = limits.parallelism === null ? Infinity : Math.max(0, limits.parallelism - state.inFlight);
  const byRate = limits.rate === null ? Infinity : Math.max(0, limits.rate - live.length);
  const admit = Math.min(wanted, bySlots, byRate);
  if (admit === wanted) return { admit, nextAt: null };
  if (admit === bySlots) return { admit, nextAt: null };
  // Bound by the rate: with the admitted starts at `now`, the window holds `rate` starts; one more
  // may start once the oldest of the last `rate` leaves it.
  // The counted starts are `live` then `admit` starts at `now`: the oldest of the last `rate` is at index n − rate.
  const oldest = live.length + admit - limits.rate!;
  return { admit, nextAt: (oldest < live.length ? live[oldest]! : now) + limits.periodMs };
}

/** One key's share of a claim (see {@link shareInTurn}). */
export interface KeyDemand {
  key: string;
  /** Calls of the key that may start now (its {@link admission}), ≥ 0. */
  wanted: number;
}

/**
 * Shares `room` starts between keys in turn, one start to each key that still wants one, then
 * round again, in the order given: a key with a large backlog takes no more of a round than a key
 * with one call. The caller gives the keys in the order of their oldest waiting call.
 * @returns the starts of each key (keys given none are absent); their sum is at most `room`
 */
export function shareInTurn(demands: readonly KeyDemand[], room: number): Map<string, number> {
  const share = new Map<string, number>();
  let left = Math.max(0, Math.floor(room));
  let open = demands.filter((d) => d.wanted > 0);
  while (left > 0 && open.length > 0) {
    // Every open key gets one if the room lets it; otherwise the first ones in order do.
    // A loop, not Math.min(...): a claim may see more keys than a call takes arguments.
    let round = Infinity;
    for (const d of open) round = Math.min(round, d.wanted - (share.get(d.key) ?? 0));
    const whole = Math.min(round, Math.floor(left / open.length));
    if (whole > 0) {
      for (const d of open) share.set(d.key, (share.get(d.key) ?? 0) + whole);
      left -= whole * open.length;
    } else {
      for (const d of open.slice(0, left)) share.set(d.key, (share.get(d.key) ?? 0) + 1);
      left = 0;
    }
    open = open.filter((d) => (share.get(d.key) ?? 0) < d.wanted);
  }
  return share;
}

/**
 * The margin added to a key's `periodMs` when its rate is counted at a claim, ms: a call starts a
 * little after the claim that admitted it (the claim's commit, the hand-over to the event loop,
 * the connection), and not always by the same delay, so starts admitted exactly one period apart
 * could reach the receiver a little less than one period apart. With this margin a receiver
 * sees at most `rate` calls in any window of `periodMs` unless one call is delayed by more than
 * the margin beyond another (docs/flow-control.md, "How exact").
 */
export const FLOW_CONTROL_RATE_MARGIN_MS = 50;

/**
 * How long a claim that left a key's calls waiting for a slot (its parallelism used up) or for
 * its resume lets the key be, ms, before it looks again: a finish of one of its calls, a change
 * of its limits, a pause or a resume bring it back at once; this bound only covers a wake-up
 * that was lost (a node that died between its finish and its commit).
 */
export const FLOW_CONTROL_RECHECK_MS = 1_000;

/** A key with calls waiting and due, as a claim reads it (see {@link planHeld}). */
export interface HeldKey {
  key: string;
  /** The key's limits; null when it is not configured (no limits). */
  limits: FlowControlLimits | null;
  /** What it has under way (`starts` read only when it has a rate). */
  state: FlowControlState;
  /** Its waiting calls due at the claim's instant, counted up to the claim's room. */
  due: number;
}

/** What a claim does with one key (see {@link planHeld}). */
export interface HeldPlan {
  key: string;
  /** How many of its oldest due waiting calls the claim starts now. */
  take: number;
  /**
   * The key's new `ready_at` (epoch ms, UTC) when calls are left waiting over its limits: the
   * instant of {@link Admission.nextAt}, else now + {@link FLOW_CONTROL_RECHECK_MS}; null when the
   * claim leaves it as it is (nothing left waiting over a limit, or a key not configured).
   */
  readyAt: number | null;
}

/**
 * The flow-control pass of a claim, after its other sources have taken their share of its room
 * (calls without a key are never delayed by waiting keyed calls): each key is admitted by its
 * limits ({@link admission}, the period widened by {@link FLOW_CONTROL_RATE_MARGIN_MS}); a key
 * not configured admits all its due calls; the room left is shared between the keys in turn
 * ({@link shareInTurn}) in the order given, which is the order of their oldest waiting call.
 * @param keys the keys with due waiting calls whose `ready_at` is not after `now`, oldest call first
 * @param now the claim's instant, epoch ms (UTC)
 * @param room the items the claim may still return
 * @returns one plan per key given, in the same order
 */
export function planHeld(keys: readonly HeldKey[], now: number, room: number): HeldPlan[] {
  const admissions = keys.map((k) =>
    k.limits === null
      ? { admit: k.due, nextAt: null }
      : admission({ ...k.limits, periodMs: k.limits.periodMs + FLOW_CONTROL_RATE_MARGIN_MS }, k.state, now, k.due),
  );
  const share = shareInTurn(
    keys.map((k, i) => ({ key: k.key, wanted: admissions[i]!.admit })),
    room,
  );
  return keys.map((k, i) => {
    const a = admissions[i]!;
    const take = share.get(k.key) ?? 0;
    // Left waiting over a limit only when the room did not cut its admission short: a key cut
    // short by the room is ready again at the next claim.
    const overLimit = k.limits !== null && a.admit < k.due && take >= a.admit;
    return { key: k.key, take, readyAt: overLimit ? (a.nextAt ?? now + FLOW_CONTROL_RECHECK_MS) : null };
  });
}

/**
 * The instant before which the starts of a key no longer count at a claim at `now`: a start at or
 * before it is outside every window that a start at `now` joins (the period widened by
 * {@link FLOW_CONTROL_RATE_MARGIN_MS}), so the claim may delete it. Epoch ms (UTC).
 */
export function startsExpiredBefore(limits: FlowControlLimits, now: number): number {
  return now - limits.periodMs - FLOW_CONTROL_RATE_MARGIN_MS;
}
