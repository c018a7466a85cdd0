/**
 * Configuration from the environment (issue #2 §8). Every value is checked at start; an invalid
 * one stops start-up with a message that names the variable, the value's problem and the
 * accepted form. Secrets (PUNCTUAL_BOOTSTRAP_TOKEN) are never echoed back.
 */

/** pino's level names. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

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
  /** Timeout of one outgoing call (`PUNCTUAL_REQUEST_TIMEOUT_MS`, default 30,000; 1,000–900,000). */
  requestTimeoutMs: number;
  /** Longest wait for calls in flight at SIGTERM (`PUNCTUAL_SHUTDOWN_GRACE_MS`, default 10,000). */
  shutdownGraceMs: number;
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
 * @param env the environment, `process.env` by default
 * @throws ConfigError listing every invalid variable at once
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };

  const port = int('PORT', 8080, 0, 65535);
  const requestTimeoutMs = int('PUNCTUAL_REQUEST_TIMEOUT_MS', 30_000, 1_000, 900_000);
  const shutdownGraceMs = int('PUNCTUAL_SHUTDOWN_GRACE_MS', 10_000, 0, 900_000);

  const host = env.HOST?.trim() || '127.0.0.1';
  if (/\s/.test(host)) problems.push(`HOST=${JSON.stringify(host)} must be a host name or address`);

  const databaseUrl = env.DATABASE_URL?.trim() || 'file:./data/punctual.db';

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
  return { port, host, databaseUrl, bootstrapToken, logLevel, requestTimeoutMs, shutdownGraceMs };
}
