/**
 * Rate limits of the HTTP API (docs/security.md), kept in memory on each node:
 *
 *  - per API key, a token bucket: a key may send `burst` requests at once, and `perSecond` more
 *    every second after that (`PUNCTUAL_RATE_LIMIT_BURST`, `PUNCTUAL_RATE_LIMIT_PER_SECOND`; a rate
 *    of 0 turns it off). Answers carry the IETF `RateLimit-Limit`, `RateLimit-Remaining` and
 *    `RateLimit-Reset` fields (draft-ietf-httpapi-ratelimit-headers); a refused request is a 429
 *    with `Retry-After`.
 *  - per client address, failed authentications: after {@link AUTH_FAILURE_LIMIT} failures within
 *    a minute (counted from the first), every request to an authenticated route from that address
 *    is a 429 until the minute has passed, whatever its token, so a guess cannot be tested even by
 *    its answer. Always on. IPv6 clients are counted by their /64 network (one host usually holds
 *    a whole /64, so counting single addresses would give it 2^64 tries).
 *
 * Written here rather than taken from `@fastify/rate-limit`, which counts requests in fixed
 * windows, not a token bucket. Both maps are bounded: idle entries are swept, and past
 * `maxEntries` the least recently used go first. Time comes from the injected clock.
 */
import ipaddr from 'ipaddr.js';

/** The per-key limit; `perSecond` 0 turns it off. */
export interface RateLimitSettings {
  /** Tokens added per second (`PUNCTUAL_RATE_LIMIT_PER_SECOND`, default 1,000; 0: no limit). */
  perSecond: number;
  /** Size of the bucket: requests a key may send at once (`PUNCTUAL_RATE_LIMIT_BURST`, default 2,000). */
  burst: number;
}

/** The defaults: 1,000 requests a second per key, bursts of 2,000 (docs/security.md). */
export const DEFAULT_RATE_LIMIT: Readonly<RateLimitSettings> = Object.freeze({ perSecond: 1_000, burst: 2_000 });

/** Failed authentications one client address may make within {@link AUTH_FAILURE_WINDOW_MS}. */
export const AUTH_FAILURE_LIMIT = 50;

/** The window of {@link AUTH_FAILURE_LIMIT}, ms. */
export const AUTH_FAILURE_WINDOW_MS = 60_000;

/** Entries kept at most by each limiter before the least recently used are dropped. */
export const DEFAULT_MAX_ENTRIES = 100_000;

/** Error code of a request refused by the per-key limit (mapped to a 429 problem). */
export const RATE_LIMITED = 'PUNCTUAL_RATE_LIMITED';

/** Error code of a request refused because its address failed authentication too often. */
export const AUTH_THROTTLED = 'PUNCTUAL_AUTH_THROTTLED';

/** A request refused by a limiter; `code` is {@link RATE_LIMITED} or {@link AUTH_THROTTLED}. */
export class TooManyRequestsError extends Error {
  constructor(
    readonly code: typeof RATE_LIMITED | typeof AUTH_THROTTLED,
    /** Whole seconds after which a request can succeed (≥ 1), sent as `Retry-After`. */
    readonly retryAfterSeconds: number,
  ) {
    super(code === RATE_LIMITED ? 'rate limit exceeded' : 'too many failed authentications');
    this.name = 'TooManyRequestsError';
  }
}

/** What one take from a bucket decided, with the values of the `RateLimit-*` fields. */
export interface BucketDecision {
  allowed: boolean;
  /** `RateLimit-Limit`: the bucket's size (burst). */
  limit: number;
  /** `RateLimit-Remaining`: whole tokens left after this request. */
  remaining: number;
  /** `RateLimit-Reset`: whole seconds until the bucket is full again. */
  resetSeconds: number;
  /** Whole seconds until one token is available (≥ 1); meaningful when refused. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was computed, epoch ms. */
  at: number;
}

/**
 * Token buckets by key. A bucket is created full; refilled continuously at `perSecond`; a request
 * takes one token or is refused. A bucket that has had time to fill up is the same as no bucket,
 * so such idle buckets are dropped (swept at most once per `sweepEveryMs`).
 */
export class TokenBuckets {
  private readonly buckets: SweptMap<Bucket>;

  /**
   * @throws RangeError unless `perSecond` > 0 and `burst` ≥ 1
   */
  constructor(
    private readonly settings: RateLimitSettings,
    maxEntries = DEFAULT_MAX_ENTRIES,
    sweepEveryMs = 10_000,
  ) {
    if (!(settings.perSecond > 0) || !(settings.burst >= 1)) throw new RangeError('a token bucket needs perSecond > 0 and burst ≥ 1');
    const fullAfterMs = (settings.burst / settings.perSecond) * 1_000;
    this.buckets = new SweptMap(maxEntries, sweepEveryMs, (b, nowMs) => nowMs - b.at >= fullAfterMs);
  }

  /** Buckets held now (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }

  /** Takes a token from `key`'s bucket at `nowMs` (epoch ms). */
  take(key: string, nowMs: number): BucketDecision {
    const { perSecond, burst } = this.settings;
    const bucket = this.buckets.get(key);
    // A clock that steps back refills nothing rather than draining.
    const elapsed = bucket === undefined ? 0 : Math.max(0, nowMs - bucket.at);
    let tokens = bucket === undefined ? burst : Math.min(burst, bucket.tokens + (elapsed * perSecond) / 1_000);
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.buckets.set(key, { tokens, at: nowMs }, nowMs);
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((burst - tokens) / perSecond),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / perSecond)),
    };
  }
}

interface FailureWindow {
  /** Epoch ms of the first failure of the window. */
  start: number;
  failures: number;
}

/**
 * Counts failed authentications per client address in windows of `windowMs` that start at an
 * address's first failure; an address with `limit` failures in its window is blocked until the
 * window ends.
 */
export class AuthFailureGuard {
  private readonly windows: SweptMap<FailureWindow>;

  constructor(
    private readonly limit = AUTH_FAILURE_LIMIT,
    private readonly windowMs = AUTH_FAILURE_WINDOW_MS,
    maxEntries = DEFAULT_MAX_ENTRIES,
  ) {
    this.windows = new SweptMap(maxEntries, windowMs, (w, nowMs) => nowMs - w.start >= windowMs);
  }

  /** Addresses (or /64 networks) tracked now (for tests of the memory bound). */
  get size(): number {
    return this.windows.size;
  }

  /** Whole seconds until `address` may try again (≥ 1), or null when it is not blocked. */
  blockedFor(address: string, nowMs: number): number | null {
    const w = this.windows.get(clientKey(address));
    if (w === undefined || nowMs - w.start >= this.windowMs || w.failures < this.limit) return null;
    return Math.max(1, Math.ceil((w.start + this.windowMs - nowMs) / 1_000));
  }

  /** Notes a failed authentication from `address` at `nowMs`. */
  fail(address: string, nowMs: number): void {
    const key = clientKey(address);
    const w = this.windows.get(key);
    const fresh = w === undefined || nowMs - w.start >= this.windowMs;
    this.windows.set(key, fresh ? { start: nowMs, failures: 1 } : { start: w.start, failures: w.failures + 1 }, nowMs);
  }
}

/**
 * A map of at most `maxEntries` entries, least recently set dropped first, whose expired entries
 * are swept at most once per `sweepEveryMs` (on a `set`). An expired entry must mean the same as
 * no entry to its reader: a sweep only frees memory.
 */
class SweptMap<V> {
  private readonly entries = new Map<string, V>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly maxEntries: number,
    private readonly sweepEveryMs: number,
    private readonly expired: (value: V, nowMs: number) => boolean,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Sets `key` as the most recently set entry at `nowMs` (epoch ms), after a sweep when one is due. */
  set(key: string, value: V, nowMs: number): void {
    if (nowMs - this.lastSweep >= this.sweepEveryMs) {
      this.lastSweep = nowMs;
      for (const [k, v] of this.entries) if (this.expired(v, nowMs)) this.entries.delete(k);
    }
    // Re-inserted so the map's order is least recently set first.
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/**
 * The key a client address is counted under: an IPv4 address as it is (also when written as an
 * IPv4-mapped IPv6 address), an IPv6 address by its /64 network, anything else as given.
 */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const addr = ipaddr.process(address);
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/** The limiters of one app: the auth-failure guard (always), the key buckets (unless off). */
export interface RequestLimiter {
  failures: AuthFailureGuard;
  /** Null when the per-key limit is off (`perSecond` 0). */
  keys: TokenBuckets | null;
}

/** The limiters for `settings` (the per-key one is off when `perSecond` is 0). */
export function createRequestLimiter(settings: RateLimitSettings = DEFAULT_RATE_LIMIT): RequestLimiter {
  return {
    failures: new AuthFailureGuard(),
    keys: settings.perSecond > 0 ? new TokenBuckets(settings) : null,
  };
}

/** The `RateLimit-*` fields of a decision, as header name → value. */
export function rateLimitHeaders(d: BucketDecision): Record<string, string> {
  return {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.resetSeconds),
  };
}
