/**
 * Parsing and validation of cron expressions (the contract is docs/cron.md, "Cron expressions").
 *
 * Our own grammar, field by field (fields.ts): exactly what Punctual accepts (5 or 6 fields,
 * names, lists, ranges, steps as Vixie cron takes them, nicknames, `@every`, and the calendar
 * words `L`, `LW`, `nW`, `nL`, `n#k` of the two day fields), every refusal worded in the user's
 * terms. The fields are expanded into matching tables; evaluation is ours too (match.ts, next.ts):
 * day-of-month/day-of-week combination, the fixed-time rule (Vixie: minute or hour field starting
 * with `*`), time zones and DST.
 */
import { InvalidInputError } from '../domain/errors.js';
import { daysInMonth, maxDaysInMonth } from './civil.js';
import { calendarDayMask } from './days.js';
import type { CalendarDays, CronTables } from './tables.js';
import { CronSyntaxError } from './errors.js';
import { parseEveryDuration } from './every.js';
import { DOM, DOW, HOUR, MINUTE, MONTH, SECOND, hasCalendarWords, parseField, type FieldValues } from './fields.js';

/**
 * A parsed, validated cron expression. Opaque to callers except `expression`, `fixedTime` and
 * `everyMs`; the other members are private to src/cron.
 */
export interface ParsedCron {
  /** The expression exactly as given to {@link parseCronExpression}. */
  readonly expression: string;
  /**
   * Vixie cron's "fixed-time" job (cron(8), Debian): neither the minute nor the hour field starts
   * with `*` (after nickname expansion, so `@daily` is fixed and `@hourly` is not). Fixed-time jobs
   * collapse DST gaps into one run and do not repeat in DST overlaps; see docs/cron.md.
   * False for `@every`.
   */
  readonly fixedTime: boolean;
  /** True when the expression has a leading seconds field (6 fields); false for `@every`. */
  readonly hasSeconds: boolean;
  /**
   * For `@every <duration>`: the interval in ms (1,000 to 366 days); occurrences are an anchor
   * plus whole multiples of it, in absolute time (next.ts). Null for every other expression.
   */
  readonly everyMs: number | null;
  /** @internal Matching tables used by nextOccurrence (unused for `@every`); not part of the API. */
  readonly tables: CronTables;
}

const FIELDS_6 = [SECOND, MINUTE, HOUR, DOM, MONTH, DOW] as const;
const EVERY = /^@every(?:[ \t]+(.*))?$/i;

/** Vixie cron's nicknames (crontab(5)), expanded before anything else. `@reboot` is refused. */
const NICKNAMES: ReadonlyMap<string, string> = new Map([
  ['@yearly', '0 0 1 1 *'],
  ['@annually', '0 0 1 1 *'],
  ['@monthly', '0 0 1 * *'],
  ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'],
  ['@midnight', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
]);

/**
 * Parses and validates a cron expression (grammar and semantics: docs/cron.md).
 *
 * Accepts 5 fields (minute hour day-of-month month day-of-week) or 6 with a leading seconds
 * field, separated by spaces or tabs, surrounding whitespace ignored; the nicknames `@yearly`
 * `@annually` `@monthly` `@weekly` `@daily` `@midnight` `@hourly`; names JAN–DEC and SUN–SAT
 * (case-insensitive); lists, ranges, steps (`*\/5`, `1-30/2`, `5/15` = from 5 to the field's
 * maximum by 15; any step from 1, a step beyond its range giving the range's start alone, as
 * Vixie cron); weekday 0 and 7 for Sunday; the calendar words `L`, `LW`, `nW` (day of month) and
 * `nL`, `n#k`, `n#L` (day of week), alone or in lists, never in ranges or steps; and
 * `@every <duration>` (d, h, m, s in that order, 1 s to 366 d). The expression must have an
 * occurrence: a day of month that exists in some allowed month (February counting 29 days),
 * unless day of week is also restricted (then the two fields are OR-ed); with calendar words,
 * some month length and weekday of the 1st that gives a matching day.
 *
 * @param path JSON-pointer path reported with the error (default `/expression`).
 * @throws InvalidInputError (one field problem at `path`) naming what is wrong.
 */
export function parseCronExpression(expression: string, path = '/expression'): ParsedCron {
  try {
    return parse(expression);
  } catch (err) {
    if (err instanceof CronSyntaxError) throw InvalidInputError.field(path, err.message);
    throw err;
  }
}

function parse(expression: string): ParsedCron {
  if (typeof expression !== 'string') throw new CronSyntaxError('must be a string');
  const trimmed = expression.trim();
  if (trimmed === '') throw new CronSyntaxError('must be a cron expression, not empty');

  let text = trimmed;
  if (trimmed.startsWith('@')) {
    const every = EVERY.exec(trimmed);
    if (every) {
      const everyMs = parseEveryDuration((every[1] ?? '').trim());
      return Object.freeze({ expression, fixedTime: false, hasSeconds: false, everyMs, tables: EVERY_TABLES });
    }
    const nick = trimmed.toLowerCase();
    if (nick === '@reboot') {
      throw new CronSyntaxError('@reboot is not supported: Punctual has no boot event; use a schedule instead');
    }
    const expanded = NICKNAMES.get(nick);
    if (expanded === undefined) {
      throw new CronSyntaxError(
        `unknown nickname '${trimmed}'; use one of ${[...NICKNAMES.keys()].join(' ')}, @every <duration>, or 5 or 6 fields`,
      );
    }
    text = expanded;
  }

  const fields = text.split(/[ \t]+/);
  if (fields.some((f) => /\s/.test(f))) {
    throw new CronSyntaxError('fields must be separated by spaces or tabs, on one line');
  }
  if (fields.length !== 5 && fields.length !== 6) {
    throw new CronSyntaxError(
      `must have 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first), found ${fields.length}`,
    );
  }
  const hasSeconds = fields.length === 6;
  const six = hasSeconds ? fields : ['0', ...fields];
  const values = six.map((f, i) => parseField(f, FIELDS_6[i]!));

  const [, minuteText, hourText, domText, monthText, dowText] = six as [string, string, string, string, string, string];
  const fixedTime = !minuteText.startsWith('*') && !hourText.startsWith('*');
  const dayOr = !domText.startsWith('*') && !dowText.startsWith('*');

  const tables = buildTables(values, dayOr);
  if (!hasPossibleDay(tables)) {
    throw new CronSyntaxError(
      tables.calendar === null
        ? `never fires: no month allowed by '${monthText}' has a day allowed by '${domText}' (February has at most 29 days)`
        : `never fires: no month allowed by '${monthText}' has a day allowed by '${domText}' and '${dowText}'`,
    );
  }
  return Object.freeze({ expression, fixedTime, hasSeconds, everyMs: null, tables });
}

/** Builds the matching tables of the six expanded fields. */
function buildTables(fields: FieldValues[], dayOr: boolean): CronTables {
  const [second, minute, hour, dom, month, dow] = fields as [FieldValues, FieldValues, FieldValues, FieldValues, FieldValues, FieldValues];
  const calendar: CalendarDays | null =
    hasCalendarWords(dom) || hasCalendarWords(dow)
      ? Object.freeze({
          last: dom.last,
          lastWeekday: dom.lastWeekday,
          nearestWeekday: dom.nearestWeekday,
          lastDow: dow.lastDow,
          nthDow: Object.freeze([...dow.nthDow]),
        })
      : null;
  return Object.freeze({
    nextSecond: nextTable(second.on),
    nextMinute: nextTable(minute.on),
    nextHour: nextTable(hour.on),
    monthMask: mask(month.on),
    domMask: mask(dom.on),
    dowMask: mask(dow.on.slice(0, 7)),
    dayOr,
    calendar,
  });
}

/** Bit v set for each `on[v]`. */
function mask(on: readonly boolean[]): number {
  let m = 0;
  on.forEach((v, i) => {
    if (v) m |= 1 << i;
  });
  return m;
}

/** `t[v]` = smallest index ≥ v whose flag is set, or -1; `t[flags.length]` = -1. */
function nextTable(flags: readonly boolean[]): Int8Array {
  const t = new Int8Array(flags.length + 1).fill(-1);
  for (let v = flags.length - 1; v >= 0; v--) t[v] = flags[v] ? v : t[v + 1]!;
  return t;
}

/**
 * Some allowed month has an allowed day. Without calendar words: under the OR rule always (every
 * month has every weekday), under the AND rule when a day of month exists in an allowed month
 * (February counting 29). With them: some allowed month, of some length it can have, starting on
 * some weekday, has a matching day (every such combination recurs within 40 years).
 */
function hasPossibleDay(t: CronTables): boolean {
  const c = t.calendar;
  if (c === null && t.dayOr) return true;
  for (let m = 1; m <= 12; m++) {
    if (!((t.monthMask >>> m) & 1)) continue;
    if (c === null) {
      for (let d = 1; d <= maxDaysInMonth(m); d++) if ((t.domMask >>> d) & 1) return true;
      continue;
    }
    for (const dim of new Set([daysInMonth(2001, m), maxDaysInMonth(m)])) {
      for (let dow1 = 0; dow1 < 7; dow1++) if (calendarDayMask(t, c, dim, dow1) !== 0) return true;
    }
  }
  return false;
}

/** Tables of `@every` expressions, which are not evaluated through them. */
const EVERY_TABLES: CronTables = buildTables(
  [SECOND, MINUTE, HOUR, DOM, MONTH, DOW].map((spec) => parseField('*', spec)),
  false,
);
