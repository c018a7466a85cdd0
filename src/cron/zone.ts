/**
 * UTC offsets of IANA time zones as a timeline of *segments*: maximal runs of real time with one
 * offset, separated by transitions. Within a segment, wall time = instant + offset is monotonic,
 * which is what lets next.ts search wall times segment by segment.
 *
 * The only source of zone data is `Intl.DateTimeFormat` (the tzdata compiled into Node's ICU).
 * Transitions are found once per zone and UTC year, lazily, by sampling the offset once a day and
 * binary-searching each change to the second (tzdata transitions fall on whole seconds), then
 * cached (a year table costs about 1 ms to build and a few numbers to keep).
 * Limitation: two transitions less than a day apart that return to the same offset would be
 * missed. When this was written (Node 20, its ICU tzdata), sampling all 418 zones every 6 hours
 * from 1800 to 2100 found no two transitions less than 7 days apart, and sampling yearly found
 * no offset change before 1800; so one constant-offset segment covers all time before 1800.
 */
import { InvalidInputError } from '../domain/errors.js';
import { DAY_MS, daysFromCivil, yearOfDay } from './civil.js';

/** How far back {@link ZoneRules.highWater} looks (real time). Longer than any DST overlap. */
export const HIGH_WATER_LOOKBACK_MS = 48 * 3_600_000;

/** First UTC year with its own transition table; everything earlier is one segment. */
const FIRST_TABLE_YEAR = 1800;
const FIRST_TABLE_START = daysFromCivil(FIRST_TABLE_YEAR, 1, 1) * DAY_MS;
/** Start of the constant pre-1800 segment: before any representable Date. */
const MIN_INSTANT = -1e16;

/** Year tables kept per zone before the cache is emptied (a table is a few small arrays). */
const MAX_CACHED_YEARS = 1000;

/** One UTC year (or the pre-1800 era) of a zone's timeline. */
interface Chunk {
  /** First instant (ms, UTC) covered, inclusive. */
  readonly start: number;
  /** End of coverage (ms, UTC), exclusive: the next chunk's start. */
  readonly end: number;
  /** Transition instants strictly inside (start, end), ascending. */
  readonly at: readonly number[];
  /** `off[0]`: offset (ms) at `start`; `off[i + 1]`: offset from `at[i]` on. */
  readonly off: readonly number[];
}

/**
 * The offset timeline of one zone. Obtain through {@link zoneRules}; instances are shared and
 * cached. All instants are epoch milliseconds (UTC); offsets are milliseconds, wall − UTC.
 */
export class ZoneRules {
  private readonly fmt: Intl.DateTimeFormat;
  private readonly chunks = new Map<number, Chunk>();
  private lastChunk: Chunk | undefined;
  /** Set for zones with one offset for ever (UTC, Etc/GMT±N): no sampling needed. */
  private readonly constantOffset: number | undefined;

  /** @throws RangeError when Intl does not know `canonicalName`. */
  constructor(readonly canonicalName: string) {
    this.fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: canonicalName,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    this.constantOffset = /^(?:UTC|Etc\/.+)$/.test(canonicalName) ? this.rawOffset(0) : undefined;
  }

  /** Offset (ms) in effect at instant `t`. */
  offsetAt(t: number): number {
    const c = this.chunkFor(t);
    if (c.at.length === 0) return c.off[0]!;
    return c.off[upperBound(c.at, t)]!;
  }

  /**
   * Supremum of the wall time (instant + offset, ms) shown during the real-time window
   * [S − 48 h, S): the wall clock's high-water mark just before S. Wall times below it were
   * already shown (a fixed-time job must not repeat them); wall times from it up to S's own wall
   * time were skipped by a forward jump at S.
   */
  highWater(s: number): number {
    let hw = s + this.offsetAt(s - 1);
    const from = s - HIGH_WATER_LOOKBACK_MS;
    for (let c = this.chunkFor(from); ; c = this.chunkFor(c.end)) {
      if (c.start > from && c.start < s) hw = Math.max(hw, c.start + this.offsetAt(c.start - 1));
      for (let i = 0; i < c.at.length; i++) {
        const at = c.at[i]!;
        if (at > from && at < s) hw = Math.max(hw, at + c.off[i]!);
      }
      if (c.end >= s) break;
    }
    return hw;
  }

  /** Positions `cur` on the segment containing instant `t`. */
  seek(cur: SegmentCursor, t: number): void {
    cur.chunk = this.chunkFor(t);
    cur.index = upperBound(cur.chunk.at, t);
    cur.load();
  }

  /** Moves `cur` to the segment that follows it. */
  advance(cur: SegmentCursor): void {
    if (cur.index < cur.chunk.at.length) {
      cur.index++;
    } else {
      cur.chunk = this.chunkFor(cur.chunk.end);
      cur.index = 0;
    }
    cur.load();
  }

  private chunkFor(t: number): Chunk {
    const last = this.lastChunk;
    if (last !== undefined && t >= last.start && t < last.end) return last;
    const year = t < FIRST_TABLE_START ? FIRST_TABLE_YEAR - 1 : yearOfDay(Math.floor(t / DAY_MS));
    let c = this.chunks.get(year);
    if (c === undefined) {
      c = this.buildChunk(year);
      // Bounded memory whatever years callers ask about (previews accept any `from`).
      if (this.chunks.size >= MAX_CACHED_YEARS) this.chunks.clear();
      this.chunks.set(year, c);
    }
    this.lastChunk = c;
    return c;
  }

  private buildChunk(year: number): Chunk {
    if (year < FIRST_TABLE_YEAR) {
      return { start: MIN_INSTANT, end: FIRST_TABLE_START, at: [], off: [this.rawOffset(FIRST_TABLE_START - 1000)] };
    }
    const start = daysFromCivil(year, 1, 1) * DAY_MS;
    const end = daysFromCivil(year + 1, 1, 1) * DAY_MS;
    if (this.constantOffset !== undefined) return { start, end, at: [], off: [this.constantOffset] };
    const at: number[] = [];
    const off: number[] = [this.rawOffset(start)];
    let cur = start;
    let curOff = off[0]!;
    for (let p = start + DAY_MS; cur < end - 1000; p = Math.min(p + DAY_MS, end - 1000)) {
      const o = this.rawOffset(p);
      while (o !== curOff) {
        // First whole second in (cur, p] whose offset differs from curOff.
        let lo = cur;
        let hi = p;
        while (hi - lo > 1000) {
          const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
          if (this.rawOffset(mid) === curOff) lo = mid;
          else hi = mid;
        }
        cur = hi;
        curOff = this.rawOffset(hi);
        at.push(hi);
        off.push(curOff);
      }
      cur = p;
    }
    return { start, end, at, off };
  }

  /** Offset (ms) at instant `t` straight from Intl: wall time (to the second) minus the instant. */
  private rawOffset(t: number): number {
    const ts = Math.floor(t / 1000) * 1000;
    // en-US, numeric, h23: "12/31/2025, 19:00:00".
    const n = this.fmt.format(ts).match(/\d+/g);
    let wall: number;
    if (n !== null && n.length === 6) {
      const [mo, d, y, h, mi, s] = n.map(Number) as [number, number, number, number, number, number];
      wall = daysFromCivil(y, mo, d) * DAY_MS + ((h % 24) * 3600 + mi * 60 + s) * 1000;
    } else {
      wall = this.wallFromParts(ts);
    }
    return wall - ts;
  }

  /** Fallback for an unexpected `format` shape. */
  private wallFromParts(ts: number): number {
    const v: Record<string, number> = {};
    for (const p of this.fmt.formatToParts(ts)) if (p.type !== 'literal') v[p.type] = Number(p.value);
    return daysFromCivil(v.year!, v.month!, v.day!) * DAY_MS + (((v.hour ?? 0) % 24) * 3600 + v.minute! * 60 + v.second!) * 1000;
  }
}

/**
 * Iteration state over a zone's segments (see {@link ZoneRules.seek}, {@link ZoneRules.advance}).
 * `start`/`end` are instants (ms, UTC; `end` exclusive), `offset` the offset (ms) between them.
 * Segment boundaries are transitions or UTC year boundaries (where the offset may not change).
 */
export class SegmentCursor {
  start = 0;
  end = 0;
  offset = 0;
  /** @internal */ chunk: Chunk = { start: 0, end: 0, at: [], off: [0] };
  /** @internal */ index = 0;

  /** @internal */
  load(): void {
    const c = this.chunk;
    const i = this.index;
    this.start = i === 0 ? c.start : c.at[i - 1]!;
    this.end = i < c.at.length ? c.at[i]! : c.end;
    this.offset = c.off[i]!;
  }
}

/** Number of elements of ascending `a` that are ≤ t. */
function upperBound(a: readonly number[], t: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const byCanonical = new Map<string, ZoneRules>();
const byName = new Map<string, ZoneRules>();
/** Bound on remembered spellings (zone names are case-insensitive to Intl). */
const MAX_NAMES = 2000;

/**
 * The shared, cached {@link ZoneRules} of an IANA zone name (aliases and any letter case Intl
 * accepts, e.g. `US/Eastern`, share the rules of their canonical zone).
 * @throws RangeError when Intl does not know the zone.
 */
export function zoneRules(name: string): ZoneRules {
  let z = byName.get(name);
  if (z !== undefined) return z;
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  z = byCanonical.get(canonical);
  if (z === undefined) {
    z = new ZoneRules(canonical);
    byCanonical.set(canonical, z);
  }
  if (byName.size >= MAX_NAMES) byName.clear();
  byName.set(name, z);
  return z;
}

/** Zone names start with a letter: this refuses the UTC offsets ("+05:00") newer Intl accepts. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/**
 * Checks that `zone` is an IANA time zone name that Intl knows (aliases such as `US/Eastern`,
 * and `UTC`, are accepted; letter case is not significant to Intl).
 * @param path JSON-pointer path reported with the error (default `/timezone`).
 * @returns `zone`, unchanged.
 * @throws InvalidInputError (one field problem at `path`) when it is not.
 */
export function validateTimeZone(zone: string, path = '/timezone'): string {
  if (typeof zone === 'string' && ZONE_NAME.test(zone)) {
    try {
      zoneRules(zone);
      return zone;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
  }
  throw InvalidInputError.field(path, `must be an IANA time zone name such as Europe/Paris or UTC, got '${String(zone)}'`);
}
