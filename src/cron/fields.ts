/**
 * The grammar of one cron field (docs/cron.md, "Expressions"): values, names, ranges, steps, and
 * the calendar words of the two day fields (`L`, `LW`, `nW` in day of month; `nL`, `n#k`, `n#L`
 * in day of week). Each field is expanded into the set of values it allows; calendar words, whose
 * days depend on the month, are kept aside for days.ts.
 *
 * Steps follow Vixie cron: any whole number from 1; a step larger than what remains of its range
 * leaves the range's start alone (`*\/100` in day of month is the 1st, `5-10/20` is 5).
 */
import { CronSyntaxError } from './errors.js';

/** One field's rules (internal to src/cron). */
export interface FieldSpec {
  /** Name used in messages. */
  readonly label: string;
  readonly min: number;
  /** Largest value a number may have (7 for day of week: Sunday again). */
  readonly max: number;
  /** Largest value `*` and `a/n` reach (6 for day of week). */
  readonly top: number;
  readonly names?: ReadonlyMap<string, number>;
}

const MONTH_NAMES = new Map(
  ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'].map((n, i) => [n, i + 1]),
);
const DAY_NAMES = new Map(['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'].map((n, i) => [n, i]));

export const SECOND: FieldSpec = { label: 'seconds', min: 0, max: 59, top: 59 };
export const MINUTE: FieldSpec = { label: 'minute', min: 0, max: 59, top: 59 };
export const HOUR: FieldSpec = { label: 'hour', min: 0, max: 23, top: 23 };
export const DOM: FieldSpec = { label: 'day-of-month', min: 1, max: 31, top: 31 };
export const MONTH: FieldSpec = { label: 'month', min: 1, max: 12, top: 12, names: MONTH_NAMES };
/** 0 and 7 are both Sunday. */
export const DOW: FieldSpec = { label: 'day-of-week', min: 0, max: 7, top: 6, names: DAY_NAMES };

/**
 * The values one field allows. `on[v]` for v from `min` to `max` (day of week: 7 is folded
 * into 0). The calendar words are bit masks, empty when the field has none.
 */
export interface FieldValues {
  readonly on: boolean[];
  /** Day of month `L`: the last day of the month. */
  last: boolean;
  /** Day of month `LW`: the last weekday (Monday to Friday) of the month. */
  lastWeekday: boolean;
  /** Day of month `nW`: bit n set for each n (1–31). */
  nearestWeekday: number;
  /** Day of week `wL` (`FRIL`, `5L`, `FRI#L`): bit w (0–6) for the last such weekday of the month. */
  lastDow: number;
  /** Day of week `w#k`: `nthDow[k - 1]` has bit w (0–6) for the k-th such weekday, k = 1–5. */
  readonly nthDow: number[];
}

/** True when the field uses a calendar word (its days depend on the month). */
export function hasCalendarWords(v: FieldValues): boolean {
  return v.last || v.lastWeekday || v.nearestWeekday !== 0 || v.lastDow !== 0 || v.nthDow.some((m) => m !== 0);
}

const ITEM = /^(?:(\*)|([0-9]+|[A-Za-z]+)(?:-([0-9]+|[A-Za-z]+))?)(?:\/([0-9]+))?$/;
/** `L`, `LW`, `nW` (day of month). */
const DOM_WORD = /^(?:(L)(W)?|([0-9]+)W)$/i;
/** `nL`, `NAMEL`, `n#k`, `NAME#k`, `n#L` (day of week); the lazy name leaves the final L. */
const DOW_WORD = /^([0-9]+|[A-Za-z]+?)(?:(L)|#([0-9]+|L))$/i;

/**
 * Validates one field and expands it.
 * @throws CronSyntaxError naming the field and the fault
 */
export function parseField(field: string, spec: FieldSpec): FieldValues {
  const out: FieldValues = {
    on: new Array<boolean>(spec.max + 1).fill(false),
    last: false,
    lastWeekday: false,
    nearestWeekday: 0,
    lastDow: 0,
    nthDow: [0, 0, 0, 0, 0],
  };
  for (const item of field.split(',')) parseItem(item, field, spec, out);
  if (spec === DOW && out.on[7]) {
    out.on[0] = true;
    out.on[7] = false;
  }
  return out;
}

function parseItem(item: string, field: string, spec: FieldSpec, out: FieldValues): void {
  const where = `${spec.label} field '${field}'`;
  if (item === '') throw new CronSyntaxError(`${where}: empty list element`);
  if (spec === DOM || spec === DOW) {
    if (calendarWord(item, spec, where, out)) return;
  }
  const m = ITEM.exec(item);
  if (!m) throw new CronSyntaxError(`${where}: ${explainBadItem(item, spec)}`);
  const [, star, fromText, toText, stepText] = m;

  let step = 1;
  if (stepText !== undefined) {
    // Vixie cron: any step from 1; beyond the range it leaves the range's start alone.
    step = Number(stepText);
    if (step < 1) throw new CronSyntaxError(`${where}: step ${stepText} must be at least 1`);
  }
  let from: number;
  let to: number;
  if (star !== undefined) {
    from = spec.min;
    to = spec.top;
  } else {
    const ranged = toText !== undefined || stepText !== undefined;
    from = resolveValue(fromText!, spec, where, undefined, ranged);
    if (toText !== undefined) {
      to = resolveValue(toText, spec, where, from, true);
      if (from > to) throw new CronSyntaxError(`${where}: range ${fromText}-${toText} runs backwards`);
    } else if (stepText !== undefined) {
      // `5/15`: from 5 to the field's top (6, Saturday, for day of week), by 15.
      if (spec === DOW && from === 7) {
        throw new CronSyntaxError(`${where}: a day-of-week step must start at 0-6 (7 is Sunday, write 0/${stepText})`);
      }
      to = spec.top;
    } else {
      to = from;
    }
  }
  for (let v = from; v <= to; v += step) out.on[v] = true;
}

/** Reads a calendar word into `out`; false when `item` is not one. */
function calendarWord(item: string, spec: FieldSpec, where: string, out: FieldValues): boolean {
  if (spec === DOM) {
    const m = DOM_WORD.exec(item);
    if (!m) return false;
    if (m[1] !== undefined) {
      if (m[2] !== undefined) out.lastWeekday = true;
      else out.last = true;
      return true;
    }
    const n = Number(m[3]);
    if (n < 1 || n > 31) throw new CronSyntaxError(`${where}: ${m[3]}W: day ${m[3]} is out of range 1-31`);
    out.nearestWeekday |= 1 << n;
    return true;
  }
  const m = DOW_WORD.exec(item);
  if (!m) return false;
  const day = resolveValue(m[1]!, spec, where) % 7;
  if (m[2] !== undefined || m[3]!.toUpperCase() === 'L') {
    out.lastDow |= 1 << day;
    return true;
  }
  const k = Number(m[3]);
  if (k < 1 || k > 5) throw new CronSyntaxError(`${where}: in '${item}', the week ${m[3]} must be 1 to 5 (or L, the last)`);
  out.nthDow[k - 1]! |= 1 << day;
  return true;
}

/**
 * A number or a name; `rangeStart` is given when `text` ends a range, `ranged` when it is part of
 * a range or takes a step (where calendar words are refused).
 */
function resolveValue(text: string, spec: FieldSpec, where: string, rangeStart?: number, ranged = false): number {
  let value: number;
  if (/^[0-9]+$/.test(text)) {
    value = Number.parseInt(text, 10);
  } else {
    const named = spec.names?.get(text.toUpperCase());
    if (named === undefined && ranged && (spec === DOM || spec === DOW) && /^[0-9A-Z]*[LW]$/i.test(text)) {
      throw new CronSyntaxError(`${where}: 'L' and 'W' cannot be part of a range or take a step; list them instead, e.g. '1,L' or '1W,15W'`);
    }
    if (named === undefined) throw new CronSyntaxError(`${where}: ${explainBadItem(text, spec)}`);
    // SUN ends a range that starts after Sunday as 7, so MON-SUN and SAT-SUN mean what they say
    // (SUN-SUN and 0-SUN stay Sunday only).
    value = spec === DOW && named === 0 && rangeStart !== undefined && rangeStart > 0 ? 7 : named;
  }
  if (value < spec.min || value > spec.max) {
    throw new CronSyntaxError(`${where}: ${text} is out of range ${spec.min}-${spec.max}`);
  }
  return value;
}

/** A message for an item outside the grammar, naming the extension when it is a known one. */
function explainBadItem(item: string, spec: FieldSpec): string {
  const upper = item.toUpperCase();
  const dayField = spec === DOM || spec === DOW;
  if (item.includes('?')) return `'?' (no specific value) is a Quartz extension and is not supported; use '*'`;
  if (spec === DOW && item.startsWith('+')) return `a '+' prefix (croner's AND modifier) is not supported`;
  if (item.includes('#')) {
    return spec === DOW
      ? `'${item}' is not a weekday and a week: write e.g. MON#1 (first Monday), 1#2 or FRI#L (last Friday)`
      : `'#' (nth weekday of the month) belongs in the day-of-week field, e.g. MON#1`;
  }
  if (dayField && /^[^-/]*[LW](?:[-/].*)?$|[-/][0-9]*[LW]$/i.test(item) && /[-/]/.test(item) && !/^[A-Z]+(?:-[A-Z]+)?(?:\/[0-9]+)?$/.test(upper)) {
    return `'L' and 'W' cannot be part of a range or take a step; list them instead, e.g. '1,L' or '1W,15W'`;
  }
  if (spec === DOW && upper === 'L') return `'L' alone is ambiguous in day of week: write SAT, or e.g. FRIL (the last Friday of the month)`;
  if (spec === DOW && /^[0-9A-Z]*W$/.test(upper) && upper !== 'W') {
    return `'W' (nearest weekday) belongs in the day-of-month field, e.g. 15W`;
  }
  if (spec === DOM && /^[0-9]*L$/.test(upper)) {
    return `a weekday's last (5L, FRIL) belongs in the day-of-week field; in day of month, L alone is the last day`;
  }
  if (!dayField && /^[0-9]*(?:L|W|LW)$/.test(upper)) {
    return `'L' and 'W' are allowed only in the day-of-month and day-of-week fields`;
  }
  if (/^[A-Za-z]+$/.test(item)) {
    if (spec === MONTH) return `unknown month name '${item}' (use JAN-DEC or 1-12)`;
    if (spec === DOW) return `unknown day name '${item}' (use SUN-SAT or 0-7)`;
    if (spec === DOM) return `'${item}' is not a day: use 1-31, L (last day), LW (last weekday) or nW (nearest weekday)`;
    return `names are allowed only in the month and day-of-week fields, found '${item}'`;
  }
  if (/^\/[0-9]*$/.test(item)) return `step '${item}' needs a start: write '*${item}' or 'N${item}'`;
  return `'${item}' is not a value, a range (a-b) or a step (*/n, a-b/n, a/n)`;
}
