/**
 * `PUNCTUAL_TRUST_PROXY` (docs/configuration.md, docs/keys-and-audit.md "Behind a proxy"): which
 * peers are trusted to say, in `X-Forwarded-For`, whose request they forward. Fastify's
 * `trustProxy` takes the parsed value; `request.ip` is then the client's address when, and only
 * when, the peer is trusted, and the peer's address otherwise.
 */
import { isIP } from 'node:net';

/**
 * The parsed setting: `false` (off, the default: `X-Forwarded-For` is ignored), `true` (every
 * peer is trusted: only behind a proxy that every request must cross), a hop count (trust that
 * many proxies nearest the service), or a list of addresses and CIDR ranges of trusted proxies.
 */
export type TrustProxy = boolean | number | string[];

/**
 * Parses `PUNCTUAL_TRUST_PROXY`: empty, `false` or `0` → false; `true` → true; a whole number
 * from 1 to 100 → that hop count; otherwise addresses and CIDR ranges (IPv4 or IPv6, e.g.
 * `10.0.0.0/8, 127.0.0.1, fd00::/8`) separated by commas or spaces.
 * @throws Error naming the first value that is none of these
 */
export function parseTrustProxy(text: string): TrustProxy {
  const value = text.trim();
  const lower = value.toLowerCase();
  if (value === '' || lower === 'false' || value === '0') return false;
  if (lower === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 100) throw new Error(`a hop count must be from 1 to 100 (not ${value})`);
    return hops;
  }
  const entries = value.split(/[\s,]+/).filter((e) => e !== '');
  for (const entry of entries) {
    if (!isAddressOrRange(entry)) {
      throw new Error(`${JSON.stringify(entry)} is not an IP address or CIDR range (give true, a hop count, or addresses and ranges separated by commas)`);
    }
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const slash = entry.indexOf('/');
  if (slash < 0) return isIP(entry) !== 0;
  const family = isIP(entry.slice(0, slash));
  const bits = entry.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
