/**
 * Calendar search in wall time: the next local date-time matching a cron expression's fields,
 * ignoring time zones. Wall times are encoded as milliseconds "as if UTC" (see civil.ts); next.ts
 * maps them to real instants segment by segment.
 */
import { civilFromDays, DAY_MS, daysInMonth, type CivilDate } from './civil.js';
import { calendarDayMask } from './days.js';
import type { CronTables } from './tables.js';

/** Where a search starts: its day number, the second of that day, and the day's date. */
interface SearchStart extends CivilDate {
  /** Days since 1970-01-01 (wall time). */
  day: number;
  /** Whole seconds since midnight of `day` (0–86,399). */
  secOfDay: number;
}

/** Reused by every search, which then allocates nothing for its start. */
const scratch: SearchStart = { day: 0, secOfDay: 0, y: 0, m: 0, d: 0, dow: 0 };

/** Fills `out` with the start of a search from wall time `from` (ms), rounded up to a whole second. */
function startAt(from: number, out: SearchStart): void {
  const start = Math.ceil(from / 1000) * 1000;
  out.day = Math.floor(start / DAY_MS);
  out.secOfDay = (start - out.day * DAY_MS) / 1000;
  civilFromDays(out.day, out);
}

/**
 * Smallest wall time `w` with `from ≤ w < limit` (whole seconds) whose fields all match, or null.
 * (Wall times before 1970 are negative numbers, hence null rather than a negative sentinel.)
 * Day of month and day of week combine by {@link CronTables.dayOr} (Vixie cron). Expressions
 * with calendar words (`L`, `W`, `#`) take their days from a per-month mask (days.ts) in a loop
 * of their own, so that the others keep this one, the hot path of every claim, unchanged.
 * Cost is proportional to the days scanned between `from` and the answer (months not allowed
 * are skipped whole), so callers bound `limit`.
 */
export function nextWallMatch(t: CronTables, from: number, limit: number): number | null {
  if (t.calendar !== null) return nextCalendarMatch(t, from, limit);
  startAt(from, scratch);
  let { day, secOfDay, y, m, d, dow } = scratch;
  for (;;) {
    if (day * DAY_MS >= limit) return null;
    const dim = daysInMonth(y, m);
    if (!((t.monthMask >>> m) & 1)) {
      // Skip to the 1st of the next month.
      day += dim - d + 1;
      dow = (dow + dim - d + 1) % 7;
      d = 1;
      if (++m > 12) {
        m = 1;
        y++;
      }
      secOfDay = 0;
      continue;
    }
    const domOk = ((t.domMask >>> d) & 1) === 1;
    const dowOk = ((t.dowMask >>> dow) & 1) === 1;
    if (t.dayOr ? domOk || dowOk : domOk && dowOk) {
      const w = firstTimeOn(t, day, secOfDay);
      if (w !== null) return w < limit ? w : null;
    }
    day++;
    dow = dow === 6 ? 0 : dow + 1;
    if (++d > dim) {
      d = 1;
      if (++m > 12) {
        m = 1;
        y++;
      }
    }
    secOfDay = 0;
  }
}

/** {@link nextWallMatch} for expressions with calendar words: days from calendarDayMask. */
function nextCalendarMatch(t: CronTables, from: number, limit: number): number | null {
  const cal = t.calendar!;
  startAt(from, scratch);
  let { day, secOfDay, y, m, d, dow } = scratch;
  for (;;) {
    if (day * DAY_MS >= limit) return null;
    const dim = daysInMonth(y, m);
    // Days of this month still to come that match (bit d and above).
    const days = (t.monthMask >>> m) & 1 ? calendarDayMask(t, cal, dim, (((dow - d + 1) % 7) + 7) % 7) >>> d : 0;
    if (days !== 0) {
      // The first matching day from d on; on it, the first matching time (from secOfDay on the
      // first day scanned, midnight on later ones).
      const skip = 31 - Math.clz32(days & -days);
      if (skip > 0) {
        day += skip;
        d += skip;
        dow = (dow + skip) % 7;
        secOfDay = 0;
      }
      if (day * DAY_MS >= limit) return null;
      const w = firstTimeOn(t, day, secOfDay);
      if (w !== null) return w < limit ? w : null;
      // No time left on that day: go on from the next one.
      day++;
      dow = dow === 6 ? 0 : dow + 1;
      secOfDay = 0;
      if (++d <= dim) continue;
    } else {
      day += dim - d + 1;
      dow = (dow + dim - d + 1) % 7;
    }
    d = 1;
    secOfDay = 0;
    if (++m > 12) {
      m = 1;
      y++;
    }
  }
}

/** The first wall time (ms) on day number `day`, at second `sod` or later, whose time of day matches; or null. */
function firstTimeOn(t: CronTables, day: number, sod: number): number | null {
  const tod = timeOfDayMatch(t, sod);
  return tod < 0 ? null : day * DAY_MS + tod * 1000;
}

/** Smallest second of the day ≥ `sod` matching hour, minute and second, or -1. */
function timeOfDayMatch(t: CronTables, sod: number): number {
  const h0 = Math.floor(sod / 3600);
  const m0 = Math.floor((sod % 3600) / 60);
  const s0 = sod % 60;
  const h = t.nextHour[h0]!;
  if (h < 0) return -1;
  if (h > h0) return h * 3600 + t.nextMinute[0]! * 60 + t.nextSecond[0]!;
  const m = t.nextMinute[m0]!;
  if (m === m0) {
    const s = t.nextSecond[s0]!;
    if (s >= 0) return h * 3600 + m * 60 + s;
    const m2 = t.nextMinute[m0 + 1]!;
    if (m2 >= 0) return h * 3600 + m2 * 60 + t.nextSecond[0]!;
  } else if (m > m0) {
    return h * 3600 + m * 60 + t.nextSecond[0]!;
  }
  const h2 = t.nextHour[h0 + 1]!;
  if (h2 < 0) return -1;
  return h2 * 3600 + t.nextMinute[0]! * 60 + t.nextSecond[0]!;
}
