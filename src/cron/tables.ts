/**
 * The precomputed tables a parsed cron expression is matched with (internal to src/cron): built by
 * parse.ts, read by match.ts and days.ts. Types only.
 */

/** Calendar words of the two day fields (internal to src/cron); see fields.ts. */
export interface CalendarDays {
  /** Day of month `L`. */
  readonly last: boolean;
  /** Day of month `LW`. */
  readonly lastWeekday: boolean;
  /** Day of month `nW`: bit n for each n. */
  readonly nearestWeekday: number;
  /** Day of week `wL`: bit w (0–6, Sunday = 0) for the last such weekday. */
  readonly lastDow: number;
  /** Day of week `w#k`: `nthDow[k - 1]` has bit w for the k-th such weekday, k = 1–5. */
  readonly nthDow: readonly number[];
}

/**
 * Precomputed matching tables (internal to src/cron).
 * `next*[v]` is the smallest allowed value ≥ v, or -1; index `size` always holds -1.
 */
export interface CronTables {
  readonly nextSecond: Int8Array; // length 61
  readonly nextMinute: Int8Array; // length 61
  readonly nextHour: Int8Array; // length 25
  /** Bit m set for each allowed month, m = 1–12. */
  readonly monthMask: number;
  /** Bit d set for each allowed day of month, d = 1–31 (bit 31 is the sign bit: test with `>>>`). */
  readonly domMask: number;
  /** Bit w set for each allowed weekday, w = 0–6, Sunday = 0. */
  readonly dowMask: number;
  /** Vixie rule: both day fields restricted (neither starts with `*`) → a day matches if either does. */
  readonly dayOr: boolean;
  /**
   * The calendar words of the day fields (`L`, `W`, `#`), whose days are computed per month
   * (days.ts), or null: then `domMask`, `dowMask` and `dayOr` alone decide (the fast path).
   */
  readonly calendar: CalendarDays | null;
}
