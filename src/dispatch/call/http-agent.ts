import { Agent } from 'undici';
import { guardedLookup, type EndpointPolicy } from '../../net/ssrf.js';

/** Options of {@link createHttpAgent}. */
export interface HttpAgentOptions {
  /** The SSRF guard's policy, applied to every address connected to; absent: no guard. */
  policy?: EndpointPolicy;
  /** TCP connect timeout in ms (default 10,000). */
  connectTimeoutMs?: number;
  /** The DNS lookup under the guard (Node's `dns.lookup` by default; tests inject a resolver). */
  resolve?: Parameters<typeof guardedLookup>[1];
}

/**
 * The undici `Agent` outgoing calls go through: a keep-alive connection pool per origin
 * (docs/calls.md), redirects not followed (undici's default), and the SSRF guard's lookup on every
 * new connection (docs/security.md) when a policy is given. Used by the dispatcher and the slow lane.
 */
export function createHttpAgent(opts: HttpAgentOptions): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    connect: {
      timeout: opts.connectTimeoutMs ?? 10_000,
      ...(opts.policy && { lookup: guardedLookup(opts.policy, opts.resolve) }),
    },
  });
}
