/**
 * The clock, injected everywhere time matters (store params, dispatcher), so tests can set time
 * instead of sleeping.
 */
export interface Clock {
  /** Current time as milliseconds since the Unix epoch (UTC). */
  now(): number;
}

/** The real wall clock (`Date.now()`). */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that reads `offsetMs` ahead of (or, when negative, behind) the system clock. */
export function offsetClock(offsetMs: number, base: Clock = systemClock): Clock {
  return { now: () => base.now() + offsetMs };
}
