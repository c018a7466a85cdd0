/**
 * Interval expressions, `@every <duration>` (docs/cron.md, "Intervals"): occurrences at an anchor
 * instant plus whole multiples of the duration, in absolute time (time zones and DST do not apply).
 */
import { CronSyntaxError } from './errors.js';

/** Shortest interval: 1 s. */
export const EVERY_MIN_MS = 1000;
/** Longest interval: 366 days. */
export const EVERY_MAX_MS = 366 * 86_400_000;

const DURATION = /^(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$/i;
const UNIT_MS = [86_400_000, 3_600_000, 60_000, 1000];

/**
 * The duration (ms) of the text after `@every`: whole numbers with units d, h, m, s, combined in
 * that order (`90s`, `15m`, `1h30m`, `7d`), from 1 s to 366 d.
 * @throws CronSyntaxError naming the fault
 */
export function parseEveryDuration(text: string): number {
  if (text === '') throw new CronSyntaxError(`'@every' needs a duration, e.g. @every 90s, @every 15m, @every 1h30m or @every 7d`);
  const m = DURATION.exec(text);
  if (!m) {
    throw new CronSyntaxError(
      `'@every ${text}': the duration must be whole numbers with units d, h, m, s in that order, e.g. 90s, 15m, 1h30m or 7d`,
    );
  }
  let ms = 0;
  for (let i = 0; i < 4; i++) if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * UNIT_MS[i]!;
  if (ms < EVERY_MIN_MS || ms > EVERY_MAX_MS) {
    throw new CronSyntaxError(`'@every ${text}': the interval must be from 1s to 366d`);
  }
  return ms;
}

/**
 * The first `anchorMs + k·everyMs` (k ≥ 0 whole) strictly after `afterMs` (all epoch ms, UTC).
 */
export function nextEvery(everyMs: number, anchorMs: number, afterMs: number): number {
  if (afterMs < anchorMs) return anchorMs;
  const next = anchorMs + (Math.floor((afterMs - anchorMs) / everyMs) + 1) * everyMs;
  // Guard against rounding with fractional instants: the answer is always strictly after.
  return next > afterMs ? next : next + everyMs;
}
