/**
 * Parsing and validation of cron expressions (the contract is docs/cron.md, "Cron expressions").
 *
 * Two steps:
 * 1. Our own grammar check, field by field. It enforces exactly the Vixie-style grammar Punctual
 *    accepts (5 or 6 fields, names, lists, ranges, steps, nicknames), rejects the Quartz/croner
 *    extensions croner would accept (`L`, `W`, `#`, `?`, a `+` day-of-week prefix, a 7th year
 *    field, `@reboot`, `/5` without a start), and words every message in the user's terms
 *    (croner reports day-of-month and month values off by one, e.g. "Invalid value for day: 31"
 *    for 32). It also produces a normalised pattern: numbers only, always 6 fields.
 * 2. croner's `CronPattern` expands the normalised pattern into the value sets of each field
 *    (its public `second`, `minute`, `hour`, `day`, `month`, `dayOfWeek` arrays).
 *
 * Croner's *evaluation* is not used: day-of-month/day-of-week combination, the fixed-time rule
 * (Vixie: minute or hour field starting with `*`), time zones and DST are ours (next.ts).
 */
import { CronPattern } from 'croner';
import { InvalidInputError } from '../domain/errors.js';
import { maxDaysInMonth } from './civil.js';

/**
 * A parsed, validated cron expression. Opaque to callers except `expression` and `fixedTime`;
 * the other members are private to src/cron.
 */
export interface ParsedCron {
  /** The expression exactly as given to {@link parseCronExpression}. */
  readonly expression: string;
  /**
   * Vixie cron's "fixed-time" job (cron(8), Debian): neither the minute nor the hour field starts
   * with `*` (after nickname expansion, so `@daily` is fixed and `@hourly` is not). Fixed-time jobs
   * collapse DST gaps into one run and do not repeat in DST overlaps; see docs/cron.md.
   */
  readonly fixedTime: boolean;
  /** True when the expression has a leading seconds field (6 fields). */
  readonly hasSeconds: boolean;
  /** @internal Matching tables used by nextOccurrence; not part of the API. */
  readonly tables: CronTables;
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
}

interface FieldSpec {
  /** Name used in messages. */
  readonly label: string;
  readonly min: number;
  readonly max: number;
  /** Number of distinct values; the largest step allowed (as croner). */
  readonly size: number;
  readonly names?: ReadonlyMap<string, number>;
}

const MONTH_NAMES = new Map(
  ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'].map((n, i) => [n, i + 1]),
);
const DAY_NAMES = new Map(['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'].map((n, i) => [n, i]));

const SECOND: FieldSpec = { label: 'seconds', min: 0, max: 59, size: 60 };
const MINUTE: FieldSpec = { label: 'minute', min: 0, max: 59, size: 60 };
const HOUR: FieldSpec = { label: 'hour', min: 0, max: 23, size: 24 };
const DOM: FieldSpec = { label: 'day-of-month', min: 1, max: 31, size: 31 };
const MONTH: FieldSpec = { label: 'month', min: 1, max: 12, size: 12, names: MONTH_NAMES };
/** 0 and 7 are both Sunday. */
const DOW: FieldSpec = { label: 'day-of-week', min: 0, max: 7, size: 7, names: DAY_NAMES };

const FIELDS_6 = [SECOND, MINUTE, HOUR, DOM, MONTH, DOW] as const;

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

const ITEM = /^(?:(\*)|([0-9]+|[A-Za-z]+)(?:-([0-9]+|[A-Za-z]+))?)(?:\/([0-9]+))?$/;

/** Raised inside the parser; turned into an InvalidInputError with the caller's path. */
class CronSyntaxError extends Error {}

/**
 * Parses and validates a cron expression (grammar and semantics: docs/cron.md).
 *
 * Accepts 5 fields (minute hour day-of-month month day-of-week) or 6 with a leading seconds
 * field, separated by spaces or tabs, surrounding whitespace ignored; the nicknames `@yearly`
 * `@annually` `@monthly` `@weekly` `@daily` `@midnight` `@hourly`; names JAN–DEC and SUN–SAT
 * (case-insensitive); lists, ranges, steps (`*\/5`, `1-30/2`, `5/15` = from 5 to the field's
 * maximum by 15); weekday 0 and 7 for Sunday. The expression must have an occurrence: a day of
 * month that exists in some allowed month (February counting 29 days), unless day of week is
 * also restricted (then the two fields are OR-ed).
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
    const nick = trimmed.toLowerCase();
    if (nick === '@reboot') {
      throw new CronSyntaxError('@reboot is not supported: Punctual has no boot event; use a schedule instead');
    }
    const expanded = NICKNAMES.get(nick);
    if (expanded === undefined) {
      throw new CronSyntaxError(
        `unknown nickname '${trimmed}'; use one of ${[...NICKNAMES.keys()].join(' ')}, or 5 or 6 fields`,
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
  const normalised = six.map((f, i) => normaliseField(f, FIELDS_6[i]!));

  const [, minuteText, hourText, domText, , dowText] = six as [string, string, string, string, string, string];
  const fixedTime = !minuteText.startsWith('*') && !hourText.startsWith('*');
  const dayOr = !domText.startsWith('*') && !dowText.startsWith('*');

  const tables = buildTables(normalised.join(' '), dayOr);

  if (!dayOr && !hasPossibleDay(tables)) {
    throw new CronSyntaxError(
      `never fires: no month allowed by '${six[4]}' has a day allowed by '${domText}' (February has at most 29 days)`,
    );
  }

  return Object.freeze({ expression, fixedTime, hasSeconds, tables });
}

/** Validates one field and rewrites it with numbers only (names resolved), for croner. */
function normaliseField(field: string, spec: FieldSpec): string {
  return field
    .split(',')
    .map((item) => normaliseItem(item, field, spec))
    .join(',');
}

function normaliseItem(item: string, field: string, spec: FieldSpec): string {
  const where = `${spec.label} field '${field}'`;
  if (item === '') throw new CronSyntaxError(`${where}: empty list element`);
  const m = ITEM.exec(item);
  if (!m) throw new CronSyntaxError(`${where}: ${explainBadItem(item, spec)}`);
  const [, star, fromText, toText, stepText] = m;

  let step: number | undefined;
  if (stepText !== undefined) {
    step = Number.parseInt(stepText, 10);
    if (step < 1 || step > spec.size) {
      throw new CronSyntaxError(`${where}: step ${stepText} must be between 1 and ${spec.size}`);
    }
  }
  if (star !== undefined) return step === undefined ? '*' : `*/${step}`;

  const from = resolveValue(fromText!, spec, where);
  if (toText === undefined) {
    if (step === undefined) return String(from);
    // `5/15`: from 5 to the field's maximum (6, Saturday, for day of week), by 15.
    if (spec === DOW && from === 7) {
      throw new CronSyntaxError(`${where}: a day-of-week step must start at 0-6 (7 is Sunday, write 0/${step})`);
    }
    return `${from}/${step}`;
  }
  const to = resolveValue(toText, spec, where, from);
  if (from > to) throw new CronSyntaxError(`${where}: range ${fromText}-${toText} runs backwards`);
  return step === undefined ? `${from}-${to}` : `${from}-${to}/${step}`;
}

/** A number or a name; `rangeStart` is given when `text` ends a range. */
function resolveValue(text: string, spec: FieldSpec, where: string, rangeStart?: number): number {
  let value: number;
  if (/^[0-9]+$/.test(text)) {
    value = Number.parseInt(text, 10);
  } else {
    const named = spec.names?.get(text.toUpperCase());
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
  if (item.includes('?')) return `'?' (no specific value) is a Quartz extension and is not supported; use '*'`;
  if (item.includes('#')) return `'#' (nth weekday of the month) is a Quartz extension and is not supported`;
  if (spec === DOW && item.startsWith('+')) return `a '+' prefix (croner's AND modifier) is not supported`;
  if ((spec === DOM || spec === DOW) && /^(?:[0-9]*|[A-Z]*)L(?:W)?$/.test(upper)) {
    return `'L' (last day) is a Quartz extension and is not supported`;
  }
  if (spec === DOM && /^[0-9]*W$/.test(upper)) {
    return `'W' (nearest weekday) is a Quartz extension and is not supported`;
  }
  if (/^[A-Za-z]+$/.test(item)) {
    if (spec === MONTH) return `unknown month name '${item}' (use JAN-DEC or 1-12)`;
    if (spec === DOW) return `unknown day name '${item}' (use SUN-SAT or 0-7)`;
    return `names are allowed only in the month and day-of-week fields, found '${item}'`;
  }
  if (/^\/[0-9]*$/.test(item)) return `step '${item}' needs a start: write '*${item}' or 'N${item}'`;
  return `'${item}' is not a value, a range (a-b) or a step (*/n, a-b/n, a/n)`;
}

/** Expands the normalised 6-field pattern with croner and builds the matching tables. */
function buildTables(normalised: string, dayOr: boolean): CronTables {
  let p: CronPattern;
  try {
    p = new CronPattern(normalised, undefined, { mode: '6-part', sloppyRanges: true });
  } catch (err) {
    // Unreachable for input our grammar accepted; kept as a clean 400 rather than a 5xx.
    const message = err instanceof Error ? err.message.replace(/^CronPattern: /, '') : String(err);
    throw new CronSyntaxError(message);
  }
  let monthMask = 0;
  p.month.forEach((on, i) => {
    if (on) monthMask |= 1 << (i + 1);
  });
  let domMask = 0;
  p.day.forEach((on, i) => {
    if (on) domMask |= 1 << (i + 1);
  });
  let dowMask = 0;
  p.dayOfWeek.forEach((on, i) => {
    if (on) dowMask |= 1 << i;
  });
  const tables: CronTables = {
    nextSecond: nextTable(p.second),
    nextMinute: nextTable(p.minute),
    nextHour: nextTable(p.hour),
    monthMask,
    domMask,
    dowMask,
    dayOr,
  };
  if (tables.nextSecond[0]! < 0 || tables.nextMinute[0]! < 0 || tables.nextHour[0]! < 0 || !monthMask || !domMask || !dowMask) {
    throw new CronSyntaxError(`'${normalised}' allows no value in some field`);
  }
  return Object.freeze(tables);
}

/** `t[v]` = smallest index ≥ v whose flag is set, or -1; `t[flags.length]` = -1. */
function nextTable(flags: readonly number[]): Int8Array {
  const t = new Int8Array(flags.length + 1).fill(-1);
  for (let v = flags.length - 1; v >= 0; v--) t[v] = flags[v] ? v : t[v + 1]!;
  return t;
}

/** Some allowed month has an allowed day of month (February counting 29). Used for the AND rule. */
function hasPossibleDay(t: CronTables): boolean {
  for (let m = 1; m <= 12; m++) {
    if (!((t.monthMask >>> m) & 1)) continue;
    for (let d = 1; d <= maxDaysInMonth(m); d++) if ((t.domMask >>> d) & 1) return true;
  }
  return false;
}
