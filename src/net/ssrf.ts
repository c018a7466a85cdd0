/**
 * The SSRF guard: Punctual calls URLs its users choose, from inside the operator's
 * network, so by default it refuses every destination that is not a public unicast address:
 * loopback, RFC 1918 private, carrier-grade NAT (100.64/10), link-local (169.254/16, the cloud
 * metadata address 169.254.169.254 included), unique-local and link-local IPv6, IPv4-mapped IPv6
 * forms of those, `0.0.0.0`/`::`, multicast, broadcast and reserved ranges. The ranges are
 * ipaddr.js's: an address is allowed only when `range()` is `unicast` (after unmapping an
 * IPv4-mapped IPv6 address with `ipaddr.process`).
 *
 * It is applied twice: at create/patch on the URL's host when it is an IP literal or `localhost`
 * (a 400 naming the field), and at call time on every address actually connected to (a DNS
 * lookup that filters the resolver's answers, so DNS rebinding cannot slip through; IP-literal
 * hosts, which skip the lookup, are checked before the call).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** Which destinations the guard lets through. */
export interface EndpointPolicy {
  /** `PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=true`: the guard is off (development, tests). */
  allowPrivate: boolean;
  /** CIDRs allowed although not public (`PUNCTUAL_ALLOWED_NETWORKS`). */
  networks: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  /** Host names (lowercase) allowed whatever they resolve to (`PUNCTUAL_ALLOWED_NETWORKS`). */
  hosts: ReadonlySet<string>;
}

/**
 * What a refusal of a loopback destination (`127.0.0.0/8`, `::1`, `localhost`) adds: such an
 * endpoint is most often someone trying Punctual on one machine, with a receiver on the same host.
 */
export const LOOPBACK_HINT = 'to try Punctual on one machine, set PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=true';

/** What a refusal of another non-public destination adds. */
const NETWORKS_HINT = 'PUNCTUAL_ALLOWED_NETWORKS allows some';

/** The default: the guard is on and nothing is allowed beyond public unicast addresses. */
export const STRICT_POLICY: EndpointPolicy = { allowPrivate: false, networks: [], hosts: new Set() };

/** Error code of a call refused by the guard (such an attempt is not retried). */
export const SSRF_REFUSED = 'PUNCTUAL_SSRF_REFUSED';

/** A call refused by the guard. `code` is {@link SSRF_REFUSED}. */
export class SsrfRefusedError extends Error {
  readonly code = SSRF_REFUSED;
  constructor(message: string) {
    super(message);
    this.name = 'SsrfRefusedError';
  }
}

/**
 * Parses `PUNCTUAL_ALLOWED_NETWORKS`: CIDRs (`10.1.0.0/16`, `fd00::/8`), single addresses
 * (taken as /32 or /128) and host names, separated by commas or spaces.
 * @throws Error naming the first entry that is none of these
 */
export function parseAllowedNetworks(text: string): Pick<EndpointPolicy, 'networks' | 'hosts'> {
  const networks: EndpointPolicy['networks'] = [];
  const hosts = new Set<string>();
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    if (ipaddr.isValidCIDR(entry)) networks.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) {
      const addr = ipaddr.parse(entry);
      networks.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry)) {
      hosts.add(entry.toLowerCase());
    } else {
      throw new Error(`${JSON.stringify(entry)} is neither a CIDR, an IP address nor a host name`);
    }
  }
  return { networks, hosts };
}

/** An {@link EndpointPolicy} as plain data, for a worker thread (structured clone keeps no ipaddr.js classes). */
export interface EndpointPolicyData {
  allowPrivate: boolean;
  /** CIDRs as `[address, prefix length]`. */
  networks: [string, number][];
  hosts: string[];
}

/** `policy` as plain data; {@link policyFromData} reverses it. */
export function policyToData(policy: EndpointPolicy): EndpointPolicyData {
  return {
    allowPrivate: policy.allowPrivate,
    networks: policy.networks.map(([net, bits]) => [net.toString(), bits]),
    hosts: [...policy.hosts],
  };
}

/** The policy that {@link policyToData} described. */
export function policyFromData(data: EndpointPolicyData): EndpointPolicy {
  return {
    allowPrivate: data.allowPrivate,
    networks: data.networks.map(([address, bits]) => [ipaddr.parse(address), bits]),
    hosts: new Set(data.hosts),
  };
}

/**
 * Why the guard refuses to connect to `address` (an IP address as text), or null when allowed.
 * @param hostname the URL's host, when the address came from resolving it (for messages and
 *   the allowed host names)
 */
export function addressProblem(address: string, policy: EndpointPolicy, hostname?: string): string | null {
  if (policy.allowPrivate) return null;
  if (hostname !== undefined && policy.hosts.has(hostname.toLowerCase())) return null;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(address);
  } catch {
    return `${address} is not an IP address`;
  }
  const range = addr.range();
  if (range === 'unicast') return null;
  if (policy.networks.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits))) return null;
  const via = hostname !== undefined && hostname !== address ? `${hostname} resolves to ` : '';
  const hint = range === 'loopback' ? `${LOOPBACK_HINT}; ${NETWORKS_HINT}` : NETWORKS_HINT;
  return `${via}${addr.toString()}, a ${range} address: calls to non-public addresses are refused (${hint})`;
}

/** The host of a URL without IPv6 brackets and without a trailing dot (`localhost.`), lowercased. */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}

/**
 * The create/patch check of an endpoint: a host that is an IP literal (in any
 * notation the WHATWG URL parser normalises, e.g. `http://2130706433/`) or `localhost`
 * (`*.localhost`, RFC 6761) must be allowed by the policy. Host names are checked at call time.
 * @returns why the endpoint is refused, or null
 */
export function endpointProblem(endpoint: string, policy: EndpointPolicy): string | null {
  if (policy.allowPrivate) return null;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return null; // the URL rule reports malformed endpoints
  }
  const host = bareHost(url.hostname);
  if (policy.hosts.has(host)) return null;
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return `${host} is a loopback host: calls to non-public addresses are refused (${LOOPBACK_HINT})`;
  }
  return ipaddr.isValid(host) ? addressProblem(host, policy) : null;
}

/** Verdicts of {@link literalHostProblem} per policy and URL host, at most {@link HOST_VERDICTS_MAX} per policy. */
const hostVerdicts = new WeakMap<EndpointPolicy, Map<string, string | null>>();
const HOST_VERDICTS_MAX = 1_000;

/**
 * The call-time check of an IP-literal host, which connects without a DNS lookup. Runs per call:
 * the verdict of each host is kept per policy (a policy does not change once built), so the
 * address is parsed once, not per call.
 * @returns why the call is refused, or null (also for host names: the lookup checks those)
 */
export function literalHostProblem(endpoint: string, policy: EndpointPolicy): string | null {
  const hostname = new URL(endpoint).hostname;
  let verdicts = hostVerdicts.get(policy);
  if (verdicts === undefined) hostVerdicts.set(policy, (verdicts = new Map()));
  const known = verdicts.get(hostname);
  if (known !== undefined) return known;
  const host = bareHost(hostname);
  const verdict = ipaddr.isValid(host) ? addressProblem(host, policy) : null;
  if (verdicts.size >= HOST_VERDICTS_MAX) verdicts.clear();
  verdicts.set(hostname, verdict);
  return verdict;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement for undici's connector (`connect: { lookup }`) that drops every
 * resolved address the policy refuses, and fails with {@link SsrfRefusedError} when none is
 * left. Because the check is made on the addresses the socket will connect to, a resolver that
 * answers differently the second time (DNS rebinding) gains nothing.
 * @param resolve the underlying lookup (Node's `dns.lookup` by default; injectable for tests)
 */
export function guardedLookup(
  policy: EndpointPolicy,
  resolve: typeof dnsLookup = dnsLookup,
): (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const allowed = list.filter((a) => addressProblem(a.address, policy, hostname) === null);
      if (allowed.length === 0) {
        const reason = list[0] ? addressProblem(list[0].address, policy, hostname) : `${hostname} has no address`;
        return callback(new SsrfRefusedError(`refused: ${reason}`), []);
      }
      if ((options as LookupAllOptions).all) return callback(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
