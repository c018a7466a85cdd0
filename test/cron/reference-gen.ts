/**
 * Random expressions for the reference comparison (reference.ts, reference.test.ts), generated
 * together with the value sets and calendar words they stand for, so that the reference never
 * parses cron text. Independent of src/cron.
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
  /** Calendar words of a day field, decided per date by {@link wordsMatch}. */
  words?: Words;
}

/** Calendar words of one day field (an empty set or false when absent). */
export interface Words {
  /** Day of month `L`. */
  last: boolean;
  /** Day of month `LW`. */
  lastWeekday: boolean;
  /** Day of month `nW`: the n. */
  nearest: Set<number>;
  /** Day of week `wL`: the w (0–6). */
  lastDow: Set<number>;
  /** Day of week `w#k`: `${w}#${k}`, w 0–6. */
  nth: Set<string>;
}

export const noWords = (): Words => ({ last: false, lastWeekday: false, nearest: new Set(), lastDow: new Set(), nth: new Set() });

/** A date to aim calendar words at: day of month, weekday, days in its month. */
export interface WordFocus {
  d: number;
  dow: number;
  dim: number;
}

/** One calendar word of a day field, aimed at one of `focus` most of the time. */
function genWord(rng: Rng, spec: Spec, words: Words, focus: readonly WordFocus[]): string {
  const f = focus.length > 0 && rng() < 0.75 ? pick(rng, focus) : undefined;
  const cased = (t: string): string => (rng() < 0.3 ? t.toLowerCase() : t);
  if (spec === DOM) {
    const r = rng();
    if (r < 0.3) {
      words.last = true;
      return cased('L');
    }
    if (r < 0.5) {
      words.lastWeekday = true;
      return cased('LW');
    }
    const n = f ? Math.min(31, Math.max(1, f.d + int(rng, -2, 2))) : int(rng, 1, 31);
    words.nearest.add(n);
    return cased(`${n}W`);
  }
  const w = f ? f.dow : int(rng, 0, 6);
  const day = rng() < 0.5 ? String(w === 0 && rng() < 0.3 ? 7 : w) : DOW.names![w]!;
  if (rng() < 0.4) {
    words.lastDow.add(w);
    return cased(pick(rng, [`${day}L`, `${day}#L`]));
  }
  const k = f ? Math.ceil(f.d / 7) : int(rng, 1, 5);
  words.nth.add(`${w}#${k}`);
  return cased(`${day}#${k}`);
}

function render(rng: Rng, spec: Spec, v: number): string {
  if (spec.names && rng() < 0.3 && (v !== 7 || spec !== DOW)) {
    const n = spec.names[v]!;
    return rng() < 0.3 ? n.toLowerCase() : n;
  }
  return String(v);
}

/** A step: mostly within a third of the field, sometimes larger than the whole field (Vixie cron). */
function stepOf(rng: Rng, spec: Spec): number {
  const size = spec.max - spec.min + 1;
  return rng() < 0.1 ? int(rng, size, size * 4) : int(rng, 1, Math.max(1, Math.ceil(size / 3)));
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
    const n = stepOf(rng, spec);
    for (let v = a; v <= b; v += n) add(v);
    return { text: `${render(rng, spec, a)}-${render(rng, spec, b)}/${n}`, values };
  }
  // a/n: from a to the top of the field by n.
  const a = Math.min(value(), spec.top);
  const n = stepOf(rng, spec);
  for (let v = a; v <= spec.top; v += n) add(v);
  return { text: `${render(rng, spec, a)}/${n}`, values };
}

/**
 * A field: `*` (probability pStar), `*\/n`, or a list of 1–3 items. `focus` biases values
 * (e.g. the hours around a transition).
 */
function genField(rng: Rng, spec: Spec, pStar: number, focus?: readonly number[], wordFocus?: readonly WordFocus[]): Field {
  const r = rng();
  if (r < pStar) {
    const values = new Set<number>();
    for (let v = spec.min; v <= spec.top; v++) values.add(v);
    return { text: '*', values };
  }
  if (r < pStar + (1 - pStar) * 0.2) {
    const r2 = rng();
    const n = r2 < 0.65 ? int(rng, 1, 4) : r2 < 0.93 ? int(rng, 1, Math.ceil((spec.top - spec.min + 1) / 2)) : int(rng, spec.top + 1, 200);
    const values = new Set<number>();
    for (let v = spec.min; v <= spec.top; v += n) values.add(v);
    return { text: `*/${n}`, values };
  }
  const words = noWords();
  const items = Array.from({ length: rng() < 0.6 ? 1 : int(rng, 2, 3) }, () =>
    wordFocus && rng() < 0.6 ? { text: genWord(rng, spec, words, wordFocus), values: new Set<number>() } : genItem(rng, spec, focus),
  );
  const values = new Set<number>();
  for (const it of items) for (const v of it.values) values.add(v);
  return { text: items.map((i) => i.text).join(','), values, words };
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
  /** Calendar words of day of month and day of week. */
  domWords: Words;
  dowWords: Words;
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
  /** When given, day fields may hold calendar words, aimed at these dates. */
  words?: readonly WordFocus[];
}

/** A random expression that fires often enough for a bounded walk most of the time. */
export function genExpression(rng: Rng, opts: GenOptions): GenExpr {
  const sec = opts.seconds ? genField(rng, SEC, 0.3) : { text: '0', values: new Set([0]) };
  const min = genField(rng, MIN, opts.seconds ? 0.15 : 0.3, opts.minutes);
  const hour = genField(rng, HOUR, opts.hours ? 0.2 : 0.45, opts.hours);
  const dom = genField(rng, DOM, opts.words ? 0.45 : 0.6, opts.doms, opts.words);
  const mon = genField(rng, MON, 0.8, opts.months);
  const dow = genField(rng, DOW, opts.words ? 0.45 : 0.6, opts.dows, opts.words);
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
    domWords: dom.words ?? noWords(),
    dowWords: dow.words ?? noWords(),
    fixed: !min.text.startsWith('*') && !hour.text.startsWith('*'),
    dayOr: !dom.text.startsWith('*') && !dow.text.startsWith('*'),
  };
}

// ---------------------------------------------------------------------------------------------
// @every

/** A random `@every` duration: its text (units d, h, m, s in order, any case) and length in ms. */
export function genEvery(rng: Rng): { text: string; ms: number } {
  const units: [string, number, number][] = [
    ['d', 86_400_000, 3],
    ['h', 3_600_000, 30],
    ['m', 60_000, 90],
    ['s', 1000, 200],
  ];
  let text = '';
  let ms = 0;
  for (const [u, unitMs, max] of units) {
    if (rng() < 0.4) {
      const n = int(rng, 0, max);
      text += `${n}${rng() < 0.2 ? u.toUpperCase() : u}`;
      ms += n * unitMs;
    }
  }
  if (ms === 0) {
    const n = int(rng, 1, 5000);
    text = `${n}s`;
    ms = n * 1000;
  }
  return { text: `${rng() < 0.2 ? '@EVERY' : '@every'}${pick(rng, [' ', '  ', '\t'])}${text}`, ms };
}

