/**
 * The days of one month that the two day fields allow when they use calendar words (`L`, `LW`,
 * `nW`, `nL`, `n#k`; docs/cron.md). Such days depend on the month's length and on the weekday of
 * its 1st, so they are computed per month as a bit mask; expressions without calendar words never
 * come here (match.ts tests their day masks directly).
 */
import type { CalendarDays, CronTables } from './tables.js';

/**
 * Bit d (1–31) set for each day of a month that matches the day fields: the day-of-month side
 * (ordinary values and `L`, `LW`, `nW`) and the day-of-week side (ordinary weekdays, `wL`,
 * `w#k`), combined by the Vixie rule of `t.dayOr` (either side, or both). Test with `>>>`.
 * @param dim days in the month (28–31)
 * @param dow1 weekday of its 1st (0–6, Sunday = 0)
 */
export function calendarDayMask(t: CronTables, c: CalendarDays, dim: number, dow1: number): number {
  let dom = t.domMask;
  if (c.last) dom |= 1 << dim;
  if (c.lastWeekday) dom |= 1 << nearestWeekday(dim, dim, dow1);
  for (let bits = c.nearestWeekday >>> 1, n = 1; bits !== 0 && n <= dim; bits >>>= 1, n++) {
    if (bits & 1) dom |= 1 << nearestWeekday(n, dim, dow1);
  }
  let mask = 0;
  for (let d = 1, w = dow1; d <= dim; d++, w = w === 6 ? 0 : w + 1) {
    const domOk = ((dom >>> d) & 1) === 1;
    const dowOk =
      ((t.dowMask >>> w) & 1) === 1 || (d + 7 > dim && ((c.lastDow >>> w) & 1) === 1) || ((c.nthDow[(d - 1) / 7 | 0]! >>> w) & 1) === 1;
    if (t.dayOr ? domOk || dowOk : domOk && dowOk) mask |= 1 << d;
  }
  return mask;
}

/**
 * Quartz's `nW`: day n when it is Monday to Friday; a Saturday moves to the Friday before and a
 * Sunday to the Monday after, without leaving the month (Saturday the 1st moves to Monday the
 * 3rd, Sunday the last day to Friday two days before).
 */
function nearestWeekday(n: number, dim: number, dow1: number): number {
  const w = (dow1 + n - 1) % 7;
  if (w === 6) return n === 1 ? 3 : n - 1;
  if (w === 0) return n === dim ? n - 2 : n + 1;
  return n;
}
