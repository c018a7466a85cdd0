/**
 * Configuration from the environment. Every value is checked at start; an invalid
 * one stops start-up with a message that names the variable, the value's problem and the
 * accepted form. Secrets (PUNCTUAL_BOOTSTRAP_TOKEN, PUNCTUAL_SIGNING_SECRET,
 * PUNCTUAL_ENCRYPTION_KEYS) are never echoed back. Secrets may come from files (`<NAME>_FILE`,
 * env-files.ts).
 */

import { DEFAULT_NODE_TIMEOUT_MS } from './store/rows/nodes.js';
import { parseSigningSecrets } from './dispatch/call/signing.js';
import { resolveFileEnv } from './env-files.js';
import { KeyRing, parseKeys } from './secrets/key-ring.js';
import { parseAllowedNetworks, STRICT_POLICY, type EndpointPolicy } from './net/ssrf.js';
import { parseTrustProxy, type TrustProxy } from './net/trust-proxy.js';
import { DEFAULT_RATE_LIMIT, type RateLimitSettings } from './http/rate-limit.js';
import { DEFAULT_LIMITS, type InputLimits } from './service/limits.js';
import { RETRY_DELAYS_LIMITS, RETRY_LIMITS } from './service/delivery.js';
import { DEFAULT_RETRY_POLICY } from './domain/retry-policy.js';
import type { RetryPolicy } from './domain/types.js';
import { parseRole, ROLES, type Role } from './roles.js';

/** pino's level names. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// The roles live in roles.ts, which the `punctual` command reads without loading this module.
export { parseRole, ROLES, type Role } from './roles.js';

/** The service's configuration. Durations in ms. */
export interface Config {
  /** TCP port of the HTTP API (`PORT`, default 8080; 0 picks a free port). */
  port: number;
  /** Interface to listen on (`HOST`, default `127.0.0.1`; `0.0.0.0` to serve every interface). */
  host: string;
  /** Store location (`DATABASE_URL`, default `file:./data/punctual.db`). */
  databaseUrl: string;
  /** When set (≥ 32 chars), an Enabled key named `bootstrap` with this token exists after start. */
  bootstrapToken: string | null;
  /** pino level (`LOG_LEVEL`, default `info`). */
  logLevel: LogLevel;
  /** Default timeout of one outgoing call, for jobs that set none (`PUNCTUAL_REQUEST_TIMEOUT_MS`, default 30,000; 1,000–900,000). */
  requestTimeoutMs: number;
  /** Longest wait for calls in flight at SIGTERM (`PUNCTUAL_SHUTDOWN_GRACE_MS`, default 10,000). */
  shutdownGraceMs: number;
  /** Pause between two heartbeats of this node (`PUNCTUAL_NODE_HEARTBEAT_MS`, default 2,000; 100–60,000). */
  nodeHeartbeatMs: number;
  /**
   * A node whose heartbeat is older than this is dead and its leases are released
   * (`PUNCTUAL_NODE_TIMEOUT`, default `10s`; more than twice the heartbeat). docs/multinode.md.
   */
  nodeTimeoutMs: number;
  /**
   * Signing secrets (`PUNCTUAL_SIGNING_SECRET`, space-separated `whsec_…`, newest first), or null:
   * then one is generated at first start and kept in the store.
   */
  signingSecrets: string[] | null;
  /**
   * The keys that seal job secrets (`PUNCTUAL_ENCRYPTION_KEYS`: base64 of 32 bytes each, separated
   * by spaces, newest first), or null when unset: then `punctual serve` on SQLite uses the key file
   * beside the database, and on PostgreSQL refuses secrets (docs/security.md, "Job secrets").
   */
  encryptionKeys: KeyRing | null;
  /**
   * The retry policy of new jobs whose request gives no `retry` (or only part of one; a job's own
   * `retry` overrides it, src/service/delivery.ts): DEFAULT_RETRY_POLICY (8 attempts, steps 5s, 5m,
   * 30m, 2h, 5h, 10h, 10h) with `PUNCTUAL_RETRY_DELAYS` (comma-separated durations, 1–19 of
   * 100ms–24h, e.g. `5s,5m,30m,2h,5h,10h,10h`) as its steps and `PUNCTUAL_RETRY_MAX_ATTEMPTS`
   * (1–20; default: the steps + 1) as its attempts. Jobs already stored keep their own policy.
   */
  retry: RetryPolicy;
  /** Finished executions are deleted after this long (`PUNCTUAL_EXECUTION_RETENTION`, default `7d`). */
  executionRetentionMs: number;
  /** Audit events are deleted after this long (`PUNCTUAL_AUDIT_RETENTION`, default `90d`; docs/keys-and-audit.md). */
  auditRetentionMs: number;
  /** A cron occurrence claimed later than this is a misfire (`PUNCTUAL_MISFIRE_THRESHOLD_MS`, default 60,000). */
  misfireThresholdMs: number;
  /** Calls in flight at most (`PUNCTUAL_MAX_IN_FLIGHT`, default 512). */
  maxInFlight: number;
  /**
   * Which endpoints may be called: `PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=true` turns the
   * SSRF guard off; `PUNCTUAL_ALLOWED_NETWORKS` (CIDRs, addresses, host names, comma- or
   * space-separated) allows some non-public destinations. Default: public addresses only.
   */
  endpointPolicy: EndpointPolicy;
  /** Size limits of requests and fields (`PUNCTUAL_MAX_*`, see {@link InputLimits}). */
  limits: InputLimits;
  /**
   * Per-API-key request rate (`PUNCTUAL_RATE_LIMIT_PER_SECOND`, default 1,000, 0 turns
   * it off; `PUNCTUAL_RATE_LIMIT_BURST`, default 2,000).
   */
  rateLimit: RateLimitSettings;
  /** What this process does (`PUNCTUAL_ROLE`, default `all`; `serve --role` overrides it). See {@link Role}. */
  role: Role;
  /**
   * TCP port of a separate listener, on `host`, that serves only `GET /metrics` without
   * authentication (`PUNCTUAL_METRICS_PORT`, 0–65,535, 0 picks a free port), or null
   * (unset): then `GET /metrics` is served on `port` behind an API key, and a `dispatcher` node
   * exposes no metrics. When set, `port` no longer serves `/metrics`. Must differ from `port`.
   */
  metricsPort: number | null;
  /**
   * FOR TESTS ONLY (`PUNCTUAL_TEST_CLOCK_OFFSET_MS`, default 0, −86,400,000 to 86,400,000): the
   * process's clock reads this many ms ahead of (negative: behind) the system clock, to show that
   * a node with a skewed clock does not fire early. Never set it in production.
   */
  testClockOffsetMs: number;
  /**
   * Messages each notification channel receives per minute at most (`PUNCTUAL_NOTIFY_MAX_PER_MINUTE`,
   * default 10, 1–10,000); past that, events are grouped into one digest a minute
   * (docs/when-calls-fail.md).
   */
  notifyMaxPerMinute: number;
  /**
   * Timeout of one notification message in ms (`PUNCTUAL_NOTIFY_TIMEOUT_MS`, default 10,000,
   * 1,000–60,000). A claim of notifications is leased for twice this plus 5 s.
   */
  notifyTimeoutMs: number;
  /**
   * The URL people reach this service at (`PUNCTUAL_PUBLIC_URL`, an absolute http(s) URL, kept
   * without its trailing slash), for links to the console in Slack notifications; null when unset.
   */
  publicUrl: string | null;
  /**
   * Which peers may name the client in `X-Forwarded-For` (`PUNCTUAL_TRUST_PROXY`: `true`, a hop
   * count, or addresses and CIDR ranges separated by commas; default off), Fastify's `trustProxy`:
   * the rate limits, the lockout after failed authentications and the logs then see the client's
   * address, not the proxy's (src/net/trust-proxy.ts).
   */
  trustProxy: TrustProxy;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration with a unit: `500ms`, `30s`, `15m`, `12h`, `7d`.
 * @returns ms, or null when the text is not such a duration
 */
export function parseDuration(text: string): number | null {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : null;
}

/**
 * Parses `PUNCTUAL_RETRY_DELAYS`: durations ({@link parseDuration}) separated by commas, e.g.
 * `5s,5m,30m,2h,5h,10h,10h`; 1–19 of them, each from 100 ms to 24 h (RETRY_DELAYS_LIMITS of
 * src/service/delivery.ts, as `retry.delaysMs` of a request).
 * @returns the steps in ms
 * @throws Error whose message says what is wrong (without the variable's name)
 */
export function parseRetryDelays(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const { steps, stepMs } = RETRY_DELAYS_LIMITS;
  if (parts.length < steps.min || parts.length > steps.max) throw new Error(`must list from ${steps.min} to ${steps.max} delays`);
  return parts.map((part) => {
    const ms = parseDuration(part);
    if (ms === null || ms < stepMs.min || ms > stepMs.max) {
      throw new Error(`${JSON.stringify(part)} must be a duration from 100ms to 24h, like 5s, 5m or 2h`);
    }
    return ms;
  });
}

/** Thrown by {@link loadConfig}; `problems` has one line per faulty variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates the configuration.
 * @param processEnv the environment, `process.env` by default; `<NAME>_FILE` variables are read
 *   first (`resolveFileEnv`, env-files.ts)
 * @throws ConfigError listing every invalid variable at once
 */
export function loadConfig(processEnv: NodeJS.ProcessEnv = process.env): Config {
  // DATABASE_URL and the secrets may be given as <NAME>_FILE (env-files.ts); read those first.
  const { env, problems } = resolveFileEnv(processEnv);
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };

  /** A duration with a unit ({@link parseDuration}) of at least `minMs`; `least` words that minimum for the message. */
  const duration = (name: string, fallback: number, minMs: number, least: string): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const ms = parseDuration(raw);
    if (ms === null || ms < minMs) {
      problems.push(`${name}=${JSON.stringify(raw)} must be a duration of at least ${least}`);
      return fallback;
    }
    return ms;
  };

  const port = int('PORT', 8080, 0, 65535);
  const requestTimeoutMs = int('PUNCTUAL_REQUEST_TIMEOUT_MS', 30_000, 1_000, 900_000);
  const shutdownGraceMs = int('PUNCTUAL_SHUTDOWN_GRACE_MS', 10_000, 0, 900_000);
  const nodeHeartbeatMs = int('PUNCTUAL_NODE_HEARTBEAT_MS', 2_000, 100, 60_000);
  const nodeTimeoutMs = duration('PUNCTUAL_NODE_TIMEOUT', DEFAULT_NODE_TIMEOUT_MS, 1_000, '1s, like 10s or 1m');
  if (nodeTimeoutMs <= 2 * nodeHeartbeatMs) {
    problems.push(`PUNCTUAL_NODE_TIMEOUT (${nodeTimeoutMs} ms) must be more than twice PUNCTUAL_NODE_HEARTBEAT_MS (${nodeHeartbeatMs} ms)`);
  }
  const misfireThresholdMs = int('PUNCTUAL_MISFIRE_THRESHOLD_MS', 60_000, 1_000, 86_400_000);
  const maxInFlight = int('PUNCTUAL_MAX_IN_FLIGHT', 512, 1, 100_000);
  const notifyMaxPerMinute = int('PUNCTUAL_NOTIFY_MAX_PER_MINUTE', 10, 1, 10_000);
  const notifyTimeoutMs = int('PUNCTUAL_NOTIFY_TIMEOUT_MS', 10_000, 1_000, 60_000);
  const publicUrlRaw = env.PUNCTUAL_PUBLIC_URL?.trim();
  let publicUrl: string | null = null;
  if (publicUrlRaw) {
    if (/^https?:\/\/[^/]/i.test(publicUrlRaw) && URL.canParse(publicUrlRaw)) publicUrl = publicUrlRaw.replace(/\/+$/, '');
    else problems.push(`PUNCTUAL_PUBLIC_URL=${JSON.stringify(publicUrlRaw)} must be an absolute http or https URL`);
  }
  const metricsPortRaw = env.PUNCTUAL_METRICS_PORT?.trim();
  const metricsPort = metricsPortRaw ? int('PUNCTUAL_METRICS_PORT', 0, 0, 65535) : null;
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) {
    problems.push(`PUNCTUAL_METRICS_PORT=${JSON.stringify(metricsPortRaw)} must differ from PORT`);
  }

  const limits: InputLimits = {
    bodyBytes: int('PUNCTUAL_MAX_BODY_BYTES', DEFAULT_LIMITS.bodyBytes, 1_024, 104_857_600),
    dataBytes: int('PUNCTUAL_MAX_DATA_BYTES', DEFAULT_LIMITS.dataBytes, 2, 104_857_600),
    nameLength: int('PUNCTUAL_MAX_NAME_LENGTH', DEFAULT_LIMITS.nameLength, 1, 65_536),
    tags: int('PUNCTUAL_MAX_TAGS', DEFAULT_LIMITS.tags, 0, 10_000),
    tagLength: int('PUNCTUAL_MAX_TAG_LENGTH', DEFAULT_LIMITS.tagLength, 1, 65_536),
    endpointLength: int('PUNCTUAL_MAX_ENDPOINT_LENGTH', DEFAULT_LIMITS.endpointLength, 16, 65_536),
    expressionLength: int('PUNCTUAL_MAX_EXPRESSION_LENGTH', DEFAULT_LIMITS.expressionLength, 16, 65_536),
    maxPastMs: duration('PUNCTUAL_MAX_PAST', DEFAULT_LIMITS.maxPastMs, 1_000, '1s, like 30d or 365d'),
    // PostgreSQL takes at most 65,535 parameters per statement: 3,000 schedules of 20 columns.
    batch: int('PUNCTUAL_MAX_BATCH', DEFAULT_LIMITS.batch, 1, 3_000),
  };
  const rateLimit: RateLimitSettings = {
    perSecond: int('PUNCTUAL_RATE_LIMIT_PER_SECOND', DEFAULT_RATE_LIMIT.perSecond, 0, 10_000_000),
    burst: int('PUNCTUAL_RATE_LIMIT_BURST', DEFAULT_RATE_LIMIT.burst, 1, 10_000_000),
  };

  let endpointPolicy: EndpointPolicy = STRICT_POLICY;
  const allowPrivate = env.PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS?.trim().toLowerCase();
  if (allowPrivate && !['true', 'false', '1', '0'].includes(allowPrivate)) {
    problems.push(`PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=${JSON.stringify(env.PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS)} must be true or false`);
  }
  try {
    endpointPolicy = {
      allowPrivate: allowPrivate === 'true' || allowPrivate === '1',
      ...parseAllowedNetworks(env.PUNCTUAL_ALLOWED_NETWORKS ?? ''),
    };
  } catch (err) {
    problems.push(`PUNCTUAL_ALLOWED_NETWORKS: ${(err as Error).message}`);
  }

  let role: Role = 'all';
  if (env.PUNCTUAL_ROLE?.trim()) {
    const parsed = parseRole(env.PUNCTUAL_ROLE);
    if (parsed === null) problems.push(`PUNCTUAL_ROLE=${JSON.stringify(env.PUNCTUAL_ROLE)} must be one of ${ROLES.join(', ')}`);
    else role = parsed;
  }

  let testClockOffsetMs = 0;
  const offset = env.PUNCTUAL_TEST_CLOCK_OFFSET_MS?.trim();
  if (offset) {
    if (!/^-?\d+$/.test(offset) || Math.abs(Number(offset)) > 86_400_000) {
      problems.push(`PUNCTUAL_TEST_CLOCK_OFFSET_MS=${JSON.stringify(offset)} must be a whole number from -86400000 to 86400000`);
    } else testClockOffsetMs = Number(offset);
  }

  let retryDelays = DEFAULT_RETRY_POLICY.delaysMs!;
  const retryDelaysRaw = env.PUNCTUAL_RETRY_DELAYS?.trim();
  if (retryDelaysRaw) {
    try {
      retryDelays = parseRetryDelays(retryDelaysRaw);
    } catch (err) {
      problems.push(`PUNCTUAL_RETRY_DELAYS=${JSON.stringify(retryDelaysRaw)}: ${(err as Error).message}`);
    }
  }
  const retry: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    maxAttempts: int('PUNCTUAL_RETRY_MAX_ATTEMPTS', retryDelays.length + 1, RETRY_LIMITS.maxAttempts.min, RETRY_LIMITS.maxAttempts.max),
    delaysMs: [...retryDelays],
  };

  const executionRetentionMs = duration('PUNCTUAL_EXECUTION_RETENTION', 7 * 86_400_000, 60_000, '1m, like 90m, 36h or 7d');
  const auditRetentionMs = duration('PUNCTUAL_AUDIT_RETENTION', 90 * 86_400_000, 60_000, '1m, like 36h, 90d or 365d');

  let signingSecrets: string[] | null = null;
  if (env.PUNCTUAL_SIGNING_SECRET?.trim()) {
    try {
      signingSecrets = parseSigningSecrets(env.PUNCTUAL_SIGNING_SECRET);
    } catch (err) {
      problems.push(`PUNCTUAL_SIGNING_SECRET: ${(err as Error).message}`);
    }
  }

  let encryptionKeys: KeyRing | null = null;
  try {
    const keys = parseKeys(env.PUNCTUAL_ENCRYPTION_KEYS ?? '');
    if (keys.length > 0) encryptionKeys = new KeyRing(keys);
  } catch (err) {
    problems.push(`PUNCTUAL_ENCRYPTION_KEYS: ${(err as Error).message}`);
  }

  const host = env.HOST?.trim() || '127.0.0.1';
  if (/\s/.test(host)) problems.push(`HOST=${JSON.stringify(host)} must be a host name or address`);

  const databaseUrl = env.DATABASE_URL?.trim() || 'file:./data/punctual.db';

  let trustProxy: TrustProxy = false;
  try {
    trustProxy = parseTrustProxy(env.PUNCTUAL_TRUST_PROXY ?? '');
  } catch (err) {
    problems.push(`PUNCTUAL_TRUST_PROXY=${JSON.stringify(env.PUNCTUAL_TRUST_PROXY)}: ${(err as Error).message}`);
  }

  const logLevel = (env.LOG_LEVEL?.trim().toLowerCase() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL=${JSON.stringify(env.LOG_LEVEL)} must be one of ${LOG_LEVELS.join(', ')}`);
  }

  let bootstrapToken: string | null = env.PUNCTUAL_BOOTSTRAP_TOKEN || null;
  if (bootstrapToken !== null && bootstrapToken.length < 32) {
    problems.push(`PUNCTUAL_BOOTSTRAP_TOKEN must be at least 32 characters (it has ${bootstrapToken.length})`);
    bootstrapToken = null;
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host,
    databaseUrl,
    bootstrapToken,
    logLevel,
    requestTimeoutMs,
    shutdownGraceMs,
    nodeHeartbeatMs,
    nodeTimeoutMs,
    signingSecrets,
    encryptionKeys,
    retry,
    executionRetentionMs,
    auditRetentionMs,
    misfireThresholdMs,
    maxInFlight,
    notifyMaxPerMinute,
    notifyTimeoutMs,
    publicUrl,
    trustProxy,
    role,
    metricsPort,
    testClockOffsetMs,
    endpointPolicy,
    limits,
    rateLimit,
  };
}
