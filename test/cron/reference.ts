/**
 * A brute-force reference for cron occurrences, written independently of src/cron (it imports
 * nothing from it). It is slow and obvious on purpose:
 *  - expressions are generated here together with their value sets (`genExpression`), so the
 *    reference never parses cron text;
 *  - it walks real instants one step at a time (a minute, or a second for 6-field expressions),
 *    reads each instant's wall time from Intl.DateTimeFormat (weekday included),
 *    and applies the rules of docs/cron.md directly:
 *      * not fixed-time: fire at every instant whose wall time matches;
 *      * fixed-time: keep the high-water mark of wall times already shown (from a look-back
 *        walk); a wall time at or below it is a repeat and does not fire; when the wall time
 *        jumps past high-water + one step, the wall times in between were skipped, and if any of
 *        them (or the current one) matches, fire now, once.
 *  - calendar words (`L`, `LW`, `nW`, `nL`, `n#k`) are decided per wall date by their plain
 *    definitions (the last date of its month, the weekday of the month closest to day n, no
 *    same weekday 7 days later, the week of the month `ceil(d / 7)`), from Date arithmetic;
 *  - `@every` is walked one interval at a time from its anchor;
 *  - transitions (for choosing start times near them) come from a separate scan of
 *    `timeZoneName: 'longOffset'` strings.
 */

import type { GenExpr, Words } from './reference-gen.js';

export { genEvery, genExpression, noWords, prng, type GenExpr, type GenOptions, type Rng, type WordFocus, type Words } from './reference-gen.js';

// ---------------------------------------------------------------------------------------------
// Wall time from Intl

interface Wall {
  /** Wall time encoded as a UTC timestamp, comparable between instants. */
  ms: number;
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  dow: number;
}

/** Number of wallOf calls so far (to report the reference's work). */
export let wallCalls = 0;

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const wallFormats = new Map<string, Intl.DateTimeFormat>();
/** "Sun, 03/08/2026, 02:30:00" */
const WALL_TEXT = /^(\w{3}), (\d{2})\/(\d{2})\/(\d+), (\d{2}):(\d{2}):(\d{2})$/;

/** Wall time of `instant` in `zone`, read from Intl.DateTimeFormat (weekday included). */
export function wallOf(zone: string, instant: number): Wall {
  wallCalls++;
  let f = wallFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallFormats.set(zone, f);
  }
  const text = f.format(instant);
  const m = WALL_TEXT.exec(text);
  if (!m) throw new Error(`unexpected Intl output '${text}'`);
  const w: Wall = {
    ms: 0,
    dow: WEEKDAYS.indexOf(m[1]!),
    mo: Number(m[2]),
    d: Number(m[3]),
    y: Number(m[4]),
    h: Number(m[5]) % 24,
    mi: Number(m[6]),
    s: Number(m[7]),
  };
  w.ms = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
  return w;
}

function wallFromMs(ms: number): Wall {
  const d = new Date(ms);
  return {
    ms,
    y: d.getUTCFullYear(),
    mo: d.getUTCMonth() + 1,
    d: d.getUTCDate(),
    h: d.getUTCHours(),
    mi: d.getUTCMinutes(),
    s: d.getUTCSeconds(),
    dow: d.getUTCDay(),
  };
}

/** The wall date `days` days after `w`'s (time of day dropped). */
function dateAfter(w: Wall, days: number): Wall {
  return wallFromMs(Date.UTC(w.y, w.mo - 1, w.d + days));
}

/** Weekday Monday to Friday. */
const isWeekday = (w: Wall): boolean => w.dow >= 1 && w.dow <= 5;

/** The calendar words of a day field that hold on `w`'s date, by their plain definitions. */
function wordsMatch(words: Words, w: Wall): boolean {
  if (!words.last && !words.lastWeekday && words.nearest.size === 0 && words.lastDow.size === 0 && words.nth.size === 0) {
    return false;
  }
  const lastOfMonth = dateAfter(w, 1).mo !== w.mo;
  if (words.last && lastOfMonth) return true;
  if (words.lastWeekday && isWeekday(w)) {
    // No later weekday in the month.
    let later = false;
    for (let i = 1; i <= 3 && !later; i++) {
      const n = dateAfter(w, i);
      later = n.mo === w.mo && isWeekday(n);
    }
    if (!later) return true;
  }
  if (words.nearest.size > 0 && isWeekday(w)) {
    // nW: the weekday of the month closest to day n (day n must exist in the month).
    for (const n of words.nearest) {
      const target = dateAfter(w, n - w.d);
      if (target.mo !== w.mo) continue;
      let best: number | undefined;
      for (let dist = 0; best === undefined && dist <= 3; dist++) {
        for (const cand of [n - dist, n + dist]) {
          const c = dateAfter(w, cand - w.d);
          if (best === undefined && c.mo === w.mo && isWeekday(c)) best = cand;
        }
      }
      if (best === w.d) return true;
    }
  }
  // The same weekday 7 days later is in another month: the last such weekday.
  if (words.lastDow.has(w.dow) && dateAfter(w, 7).mo !== w.mo) return true;
  return words.nth.has(`${w.dow}#${Math.ceil(w.d / 7)}`);
}

/** The day rules alone (month, day of month, day of week): no time fields. */
export function dayMatches(e: GenExpr, w: Wall): boolean {
  if (!e.mon.has(w.mo)) return false;
  const domOk = e.dom.has(w.d) || wordsMatch(e.domWords, w);
  const dowOk = e.dow.has(w.dow) || wordsMatch(e.dowWords, w);
  return e.dayOr ? domOk || dowOk : domOk && dowOk;
}

/**
 * Cheap pre-check on wall dates only: can `e` fire on the local date of `instant` or one of the
 * `days` that follow? When not, a bounded walk from `instant` is pointless.
 */
export function mayFireWithin(e: GenExpr, zone: string, instant: number, days: number): boolean {
  const w = wallOf(zone, instant);
  const midnight = Date.UTC(w.y, w.mo - 1, w.d);
  for (let i = 0; i <= days; i++) if (dayMatches(e, wallFromMs(midnight + i * 86_400_000))) return true;
  return false;
}

/** Every field of `e` matches wall time `w`. */
export function matches(e: GenExpr, w: Wall): boolean {
  return e.sec.has(w.s) && e.min.has(w.mi) && e.hour.has(w.h) && dayMatches(e, w);
}

// ---------------------------------------------------------------------------------------------
// The reference walk

/**
 * How far back the reference looks to learn which wall times were already shown: longer than
 * the largest overlap (clock set back) of the zones and years tested, which the test checks.
 */
export const REFERENCE_LOOKBACK_MS = { minutes: 3 * 3_600_000, seconds: 2 * 3_600_000 + 10 * 60_000 };

/**
 * First instant strictly after `afterMs` at which `e` fires in `zone`, by walking real instants
 * one step (minute, or second for 6 fields) at a time. `undefined` when none within `capMs`.
 * Only valid where offsets are whole minutes (true for the zones and years the tests use).
 */
export function referenceNext(e: GenExpr, zone: string, afterMs: number, capMs: number): number | undefined {
  const step = e.seconds ? 1000 : 60_000;
  let c = Math.floor(afterMs / step) * step + step;
  const end = c + capMs;
  if (!e.fixed) {
    for (; c < end; c += step) if (matches(e, wallOf(zone, c))) return c;
    return undefined;
  }
  let highWater = -Infinity;
  const lookback = e.seconds ? REFERENCE_LOOKBACK_MS.seconds : REFERENCE_LOOKBACK_MS.minutes;
  for (let p = c - lookback; p < c; p += step) highWater = Math.max(highWater, wallOf(zone, p).ms);
  for (; c < end; c += step) {
    const w = wallOf(zone, c);
    if (w.ms <= highWater) continue; // shown before: the clock went back; no second pass
    let fire = matches(e, w);
    // Wall times strictly between the last one shown and this one were skipped (clock jumped).
    for (let s = highWater + step; !fire && s < w.ms; s += step) fire = matches(e, wallFromMs(s));
    highWater = w.ms;
    if (fire) return c;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// @every

/** First `anchor + k·ms` (k ≥ 0) strictly after `afterMs`, one interval at a time. */
export function referenceEvery(ms: number, anchor: number, afterMs: number): number {
  let t = anchor;
  while (t <= afterMs) t += ms;
  return t;
}

export { findTransitions, offsetMinutes, type Transition } from './reference-zones.js';
