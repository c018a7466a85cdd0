/**
 * Offset transitions of a zone, for choosing reference start times near them (reference.ts):
 * a scan of `timeZoneName: 'longOffset'` strings, independent of src/cron.
 */

export interface Transition {
  /** First instant (ms) with the new offset. */
  at: number;
  /** Offsets before and after, in minutes. */
  before: number;
  after: number;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** UTC offset in minutes from the `longOffset` time zone name ("GMT+05:30", "GMT" for zero). */
export function offsetMinutes(zone: string, instant: number): number {
  let f = offsetFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetFormats.set(zone, f);
  }
  const text = f.format(instant);
  const m = /, GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(text);
  if (!m) throw new Error(`not a whole-minute offset: '${text}'`); // e.g. local mean time, GMT-04:56:02
  if (m[1] === undefined) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** Offset transitions of `zone` in [fromYear, toYear), scanning every 12 h, refined to the minute. */
export function findTransitions(zone: string, fromYear: number, toYear: number): Transition[] {
  const out: Transition[] = [];
  const stepMs = 12 * 3_600_000;
  let t = Date.UTC(fromYear, 0, 1);
  const end = Date.UTC(toYear, 0, 1);
  let o = offsetMinutes(zone, t);
  for (; t < end; t += stepMs) {
    const o2 = offsetMinutes(zone, t + stepMs);
    if (o2 === o) continue;
    let lo = t;
    let hi = t + stepMs;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (offsetMinutes(zone, mid) === o) lo = mid;
      else hi = mid;
    }
    out.push({ at: hi, before: o, after: offsetMinutes(zone, hi) });
    o = o2;
  }
  return out;
}
