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
 *  - transitions (for choosing start times near them) come from a separate scan of
 *    `timeZoneName: 'longOffset'` strings.
 */

/** Mulberry32: a tiny seeded PRNG so every case is reproducible from (seed, index). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

// ---------------------------------------------------------------------------------------------
// Expressions with their value sets

interface Spec {
  min: number;
  /** Largest value a number may have (7 for day of week: Sunday again). */
  max: number;
  /** Largest value `*` and `a/n` reach (6 for day of week). */
  top: number;
  names?: readonly string[];
}
const SEC: Spec = { min: 0, max: 59, top: 59 };
const MIN: Spec = { min: 0, max: 59, top: 59 };
const HOUR: Spec = { min: 0, max: 23, top: 23 };
const DOM: Spec = { min: 1, max: 31, top: 31 };
const MON: Spec = { min: 1, max: 12, top: 12, names: ['', 'JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] };
const DOW: Spec = { min: 0, max: 7, top: 6, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] };

interface Field {
  text: string;
  values: Set<number>;
}

function render(rng: Rng, spec: Spec, v: number): string {
  if (spec.names && rng() < 0.3 && (v !== 7 || spec !== DOW)) {
    const n = spec.names[v]!;
    return rng() < 0.3 ? n.toLowerCase() : n;
  }
  return String(v);
}

/** One list element of a field, with the values it stands for (7 → 0 for day of week). */
function genItem(rng: Rng, spec: Spec, focus?: readonly number[]): Field {
  const values = new Set<number>();
  const add = (v: number): void => void values.add(spec === DOW && v === 7 ? 0 : v);
  const value = (): number => (focus && rng() < 0.7 ? pick(rng, focus) : int(rng, spec.min, spec.max));
  const kind = rng();
  if (kind < 0.4) {
    const v = value();
    add(v);
    return { text: render(rng, spec, v), values };
  }
  if (kind < 0.65) {
    let a = value();
    let b = value();
    if (a > b) [a, b] = [b, a];
    for (let v = a; v <= b; v++) add(v);
    // SUN ends a range as 7 when the range starts after Sunday (MON-SUN); SUN-SUN is Sunday.
    const bText = spec === DOW && b === 7 && a > 0 && rng() < 0.5 ? 'SUN' : render(rng, spec, b);
    return { text: `${render(rng, spec, a)}-${bText}`, values };
  }
  if (kind < 0.85) {
    let a = value();
    let b = value();
    if (a > b) [a, b] = [b, a];
    const n = int(rng, 1, Math.max(1, Math.ceil((spec.max - spec.min + 1) / 3)));
    for (let v = a; v <= b; v += n) add(v);
    return { text: `${render(rng, spec, a)}-${render(rng, spec, b)}/${n}`, values };
  }
  // a/n: from a to the top of the field by n.
  const a = Math.min(value(), spec.top);
  const n = int(rng, 1, Math.max(1, Math.ceil((spec.max - spec.min + 1) / 3)));
  for (let v = a; v <= spec.top; v += n) add(v);
  return { text: `${render(rng, spec, a)}/${n}`, values };
}

/**
 * A field: `*` (probability pStar), `*\/n`, or a list of 1–3 items. `focus` biases values
 * (e.g. the hours around a transition).
 */
function genField(rng: Rng, spec: Spec, pStar: number, focus?: readonly number[]): Field {
  const r = rng();
  if (r < pStar) {
    const values = new Set<number>();
    for (let v = spec.min; v <= spec.top; v++) values.add(v);
    return { text: '*', values };
  }
  if (r < pStar + (1 - pStar) * 0.2) {
    const n = rng() < 0.7 ? int(rng, 1, 4) : int(rng, 1, Math.ceil((spec.top - spec.min + 1) / 2));
    const values = new Set<number>();
    for (let v = spec.min; v <= spec.top; v += n) values.add(v);
    return { text: `*/${n}`, values };
  }
  const items = Array.from({ length: rng() < 0.6 ? 1 : int(rng, 2, 3) }, () => genItem(rng, spec, focus));
  const values = new Set<number>();
  for (const it of items) for (const v of it.values) values.add(v);
  return { text: items.map((i) => i.text).join(','), values };
}

/** A generated expression: text for the implementation, sets and flags for the reference. */
export interface GenExpr {
  text: string;
  seconds: boolean;
  sec: Set<number>;
  min: Set<number>;
  hour: Set<number>;
  dom: Set<number>;
  mon: Set<number>;
  dow: Set<number>;
  /** Neither minute nor hour text starts with `*` (Vixie's fixed-time job). */
  fixed: boolean;
  /** Both day fields restricted (neither starts with `*`): a day matches if either matches. */
  dayOr: boolean;
}

export interface GenOptions {
  seconds: boolean;
  /** Values to favour in each field (e.g. the wall hours and dates around a transition). */
  hours?: readonly number[];
  minutes?: readonly number[];
  doms?: readonly number[];
  months?: readonly number[];
  dows?: readonly number[];
}

/** A random expression that fires often enough for a bounded walk most of the time. */
export function genExpression(rng: Rng, opts: GenOptions): GenExpr {
  const sec = opts.seconds ? genField(rng, SEC, 0.3) : { text: '0', values: new Set([0]) };
  const min = genField(rng, MIN, opts.seconds ? 0.15 : 0.3, opts.minutes);
  const hour = genField(rng, HOUR, opts.hours ? 0.2 : 0.45, opts.hours);
  const dom = genField(rng, DOM, 0.6, opts.doms);
  const mon = genField(rng, MON, 0.8, opts.months);
  const dow = genField(rng, DOW, 0.6, opts.dows);
  const fields = [min, hour, dom, mon, dow].map((f) => f.text);
  return {
    text: (opts.seconds ? [sec.text, ...fields] : fields).join(pick(rng, [' ', ' ', '  ', '\t'])),
    seconds: opts.seconds,
    sec: sec.values,
    min: min.values,
    hour: hour.values,
    dom: dom.values,
    mon: mon.values,
    dow: dow.values,
    fixed: !min.text.startsWith('*') && !hour.text.startsWith('*'),
    dayOr: !dom.text.startsWith('*') && !dow.text.startsWith('*'),
  };
}

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

/** The day rules alone (month, day of month, day of week): no time fields. */
export function dayMatches(e: GenExpr, w: Wall): boolean {
  if (!e.mon.has(w.mo)) return false;
  const domOk = e.dom.has(w.d);
  const dowOk = e.dow.has(w.dow);
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
// Transitions, for start times near them

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
