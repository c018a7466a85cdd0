/**
 * Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), without `Date`.
 *
 * The cron engine works on *wall times*: the local date and time in a zone, encoded as if it were
 * a UTC instant (`wallMs = instantMs + offsetMs`). These helpers convert between day numbers and
 * calendar dates for any year, with no allocation, using Howard Hinnant's `days_from_civil` /
 * `civil_from_days` algorithms (http://howardhinnant.github.io/date_algorithms.html).
 */

/** Milliseconds in a calendar day of wall time. */
export const DAY_MS = 86_400_000;

/**
 * Day number (days since 1970-01-01) of a proleptic Gregorian date.
 * @param y full year (any integer), @param m month 1–12, @param d day 1–31
 */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = m > 2 ? m - 3 : m + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Reused by {@link yearOfDay}, which then allocates nothing (zone lookups call it often). */
const scratch: CivilDate = { y: 0, m: 0, d: 0, dow: 0 };

/**
 * Year of a day number. Exposed separately because the zone tables are keyed by UTC year.
 */
export function yearOfDay(day: number): number {
  civilFromDays(day, scratch);
  return scratch.y;
}

/**
 * Decodes a day number into `out` (reused to avoid allocating on hot paths).
 * `out.y` full year, `out.m` 1–12, `out.d` 1–31, `out.dow` 0–6 (Sunday = 0).
 */
export function civilFromDays(day: number, out: CivilDate): void {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  out.d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  out.m = mp < 10 ? mp + 3 : mp - 9;
  out.y = yoe + era * 400 + (out.m <= 2 ? 1 : 0);
  // 1970-01-01 was a Thursday (4).
  out.dow = (((day + 4) % 7) + 7) % 7;
}

/** A mutable calendar date; see {@link civilFromDays}. */
export interface CivilDate {
  y: number;
  m: number;
  d: number;
  dow: number;
}

/** True for Gregorian leap years. */
export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days in month `m` (1–12) of year `y`. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : MONTH_DAYS[m]!;
}

/** Longest possible length of month `m` (1–12): February counts 29 (leap years). */
export function maxDaysInMonth(m: number): number {
  return m === 2 ? 29 : MONTH_DAYS[m]!;
}
