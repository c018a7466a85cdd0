/**
 * Next occurrences of a cron expression in an IANA zone, with Vixie cron's DST rules as Debian's
 * cron(8) documents them (the contract: docs/cron.md, "Cron expressions and DST").
 *
 * The real timeline is cut into segments of constant UTC offset (zone.ts). Inside a segment
 * [start, end) with offset o, wall time w = instant + o is monotonic, so the matching instants are
 * exactly { w − o : w matches, start + o ≤ w < end + o }, found by a calendar search (match.ts).
 *
 * Fixed-time jobs (ParsedCron.fixedTime) add two rules at segment boundaries. Let HW be the wall
 * clock's high-water mark just before the segment starts (ZoneRules.highWater):
 *  - wall times below HW were already shown (the clock was set back): excluded, so a repeated
 *    wall time runs only on its first pass;
 *  - wall times in [HW, start + o) were never shown (the clock jumped forward): if any matches,
 *    the job runs once at `start`, the first instant after the gap.
 * Other jobs run at every real instant whose wall time matches, and nothing else.
 */
import { nextEvery } from './every.js';
import type { ParsedCron } from './parse.js';
import { nextWallMatch } from './match.js';
import { SegmentCursor, zoneRules } from './zone.js';

/** Search horizon: an expression with no occurrence within this much real time yields null. */
export const HORIZON_MS = 50 * 365.2425 * 86_400_000;

/** More than any UTC offset ever used (tzdata's extremes, local mean times included, are < 16 h). */
const JUMP_MARGIN_MS = 2 * 86_400_000;

/** Largest `afterMs` accepted: the horizon must stay inside the range of Date (±8.64e15 ms). */
const MAX_AFTER_MS = 8.64e15 - HORIZON_MS - 86_400_000 * 366;

/**
 * The first occurrence of `cron` strictly after `afterMs`, evaluated in IANA zone `zone`
 * (pass `'UTC'` for a job without a zone), with the DST rules of docs/cron.md.
 *
 * For `@every <duration>` ({@link ParsedCron.everyMs} set): the first `anchorMs + k·everyMs`
 * (k ≥ 0 whole) strictly after `afterMs`, in absolute time (`zone` is still validated, DST does
 * not apply); without `anchorMs` the anchor is `afterMs`, so the answer is `afterMs + everyMs`.
 * For other expressions `anchorMs` is ignored.
 * @param afterMs epoch milliseconds (UTC); fractional or mid-second values are fine.
 * @param anchorMs epoch milliseconds (UTC) an `@every` expression counts from (a job's start, or
 *   its creation).
 * @returns epoch milliseconds (UTC, whole seconds in wall time for field expressions), or null
 *   when there is none within {@link HORIZON_MS} (50 years).
 * @throws RangeError when `zone` is unknown to Intl (callers validate with validateTimeZone), or
 *   `afterMs` (or `anchorMs`) is not a finite instant within Date's range minus the horizon.
 */
export function nextOccurrence(cron: ParsedCron, zone: string, afterMs: number, anchorMs?: number): number | null {
  if (!Number.isFinite(afterMs) || Math.abs(afterMs) > MAX_AFTER_MS) {
    throw new RangeError(`afterMs out of range: ${afterMs}`);
  }
  if (cron.everyMs !== null) return nextInterval(cron.everyMs, zone, afterMs, anchorMs ?? afterMs);
  return nextFieldMatch(cron, zone, afterMs);
}

/** {@link nextOccurrence} of `@every`: absolute time from the anchor. */
function nextInterval(everyMs: number, zone: string, afterMs: number, anchorMs: number): number | null {
  zoneRules(zone); // validated as for other expressions, though DST does not apply
  if (!Number.isFinite(anchorMs) || Math.abs(anchorMs) > MAX_AFTER_MS) throw new RangeError(`anchorMs out of range: ${anchorMs}`);
  const next = nextEvery(everyMs, anchorMs, afterMs);
  return next - afterMs > HORIZON_MS ? null : next;
}

/**
 * {@link nextOccurrence} of a field expression (a function of its own, kept as small as before
 * `@every` existed: it is the hot path of every claim).
 */
function nextFieldMatch(cron: ParsedCron, zone: string, afterMs: number): number | null {
  const rules = zoneRules(zone);
  const t = cron.tables;
  const fixed = cron.fixedTime;
  const stop = afterMs + HORIZON_MS;
  // Earliest instant allowed: strictly after afterMs.
  let from = Math.floor(afterMs) + 1;
  const seg = new SegmentCursor();
  rules.seek(seg, from);
  for (;;) {
    const o = seg.offset;
    let lo = from + o;
    if (fixed) {
      const hw = rules.highWater(seg.start);
      const startWall = seg.start + o;
      // A forward jump at seg.start: wall times [hw, startWall) were skipped. The run they owe
      // happens at seg.start, if seg.start is still in the future (> afterMs).
      if (hw < startWall && seg.start >= from && nextWallMatch(t, hw, startWall) !== null) return seg.start;
      // A backward jump: wall times below hw were shown before; their second pass is excluded.
      if (hw > lo) lo = hw;
    }
    const w = nextWallMatch(t, lo, seg.end + o);
    if (w !== null) return w - o;
    if (seg.end > stop) return null;
    // Nothing in this segment. Rare expressions (`0 0 29 2 */7`) may be years away, and each
    // year of a zone costs a table to build, so skip ahead: take the first matching wall time
    // from 2 days below the segment's end. As |offset| < 1 day, an instant earlier than that
    // candidate − 2 days can neither show a matching wall time nor skip one in a gap.
    const candidate = nextWallMatch(t, seg.end - JUMP_MARGIN_MS, stop + JUMP_MARGIN_MS);
    if (candidate === null) return null;
    const jumpTo = candidate - JUMP_MARGIN_MS;
    if (jumpTo > seg.end) {
      from = jumpTo;
      rules.seek(seg, from);
    } else {
      from = seg.end;
      rules.advance(seg);
    }
  }
}

/**
 * The next `count` occurrences strictly after `afterMs`, ascending, each computed by
 * {@link nextOccurrence} from the previous one (the same code that advances real jobs).
 * Stops early (shorter array) when an occurrence is beyond the horizon.
 * @param count number of occurrences wanted (0 or more; callers bound it, e.g. 1–100).
 * @param anchorMs the anchor of an `@every` expression (see {@link nextOccurrence}); ignored by
 *   others. Without it, the anchor is `afterMs`.
 * @throws RangeError as {@link nextOccurrence}.
 */
export function nextOccurrences(cron: ParsedCron, zone: string, afterMs: number, count: number, anchorMs?: number): number[] {
  const out: number[] = [];
  let after = afterMs;
  const anchor = anchorMs ?? afterMs;
  while (out.length < count) {
    const next = nextOccurrence(cron, zone, after, anchor);
    if (next === null) break;
    out.push(next);
    after = next;
  }
  return out;
}
