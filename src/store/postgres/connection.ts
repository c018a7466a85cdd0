import pg from 'pg';
import { ConflictError, InvalidInputError, StoreUnavailableError } from '../../domain/errors.js';
import { keyConflict, tableOfKeyIndex } from '../rules/job-keys.js';
import type { Placeholder } from '../sql/execution-search.js';

/** What the queries that write due work need besides SQL: the NOTIFY channel and the clock mode. */
export interface NotifyContext {
  channel: string;
  clock: 'database' | 'caller';
}

/**
 * The context of PostgreSQL's store operations (../sql-store.ts, context.ts): the SQL runner of
 * the pool, or of the transaction the operation runs in, and what the statements need besides.
 */
export interface PgContext {
  /** Runs statements: on the pool, or in the transaction of an audited change. */
  readonly sql: Sql;
  /** Runs `fn` in one transaction: a new one on the pool (`Database.tx`), or the one this context is in. */
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** The NOTIFY channel and the clock mode (notify.ts `SchemaScope`). */
  notifyContext(): Promise<NotifyContext>;
  /** The schema's name (notify.ts `SchemaScope`). */
  scope(): Promise<string>;
  /** Which clock decides what is due (see {@link PostgresStoreOptions.clock}). */
  readonly clock: 'database' | 'caller';
}

/** PostgreSQL's placeholders: numbered, with their type (a row comparison needs it). */
export const PG_PLACEHOLDER: Placeholder = (n, type) => `$${n}::${type}`;

/** Options of the PostgreSQL store (see `openStore`). */
export interface PostgresStoreOptions {
  /** Told about cron jobs paused by a claim, a lost LISTEN connection, idle clients that fail. */
  logger?: { warn(obj: object, msg?: string): void };
  /**
   * Which clock decides what is due (docs/multinode.md). `database` (the default, for production):
   * `claimDue` compares with the database's clock and ignores `p.now`, and `now()` returns the
   * database's time, so a node whose clock is ahead never fires early. `caller`: `p.now` decides
   * and `now()` returns null, as with SQLite (the conformance suite's deterministic tests).
   */
  clock?: 'database' | 'caller';
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** Server-side `statement_timeout` of every connection, in ms. Default 30,000. */
  statementTimeoutMs?: number;
  /** Time to open a connection before giving up, in ms. Default 5,000. */
  connectionTimeoutMs?: number;
}

/** Defaults of {@link PostgresStoreOptions} and the other session limits. */
export const DEFAULTS = {
  poolSize: 10,
  statementTimeoutMs: 30_000,
  connectionTimeoutMs: 5_000,
  /** A statement waiting this long for a row lock fails (StoreUnavailableError) instead of hanging. */
  lockTimeoutMs: 10_000,
  /** A session idle inside a transaction this long is ended by the server, releasing its locks. */
  idleInTransactionMs: 60_000,
  /** Client-side bound on a query beyond the server's statement timeout (a silent network). */
  queryTimeoutMarginMs: 10_000,
} as const;

/** A schema name accepted in the `schema` URL parameter: a plain lowercase SQL identifier. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** How to connect, derived from a `postgres://` URL by {@link connectionConfig}. */
export interface ConnectionTarget {
  /** Client settings (no pool settings). Holds the password: never log it. */
  config: pg.ClientConfig;
  /** The `schema` URL parameter, or null when absent. */
  schema: string | null;
}

/**
 * Reads a `postgres://` / `postgresql://` URL into client settings.
 *
 * Schema isolation (several Punctual installations, or one test per schema, in one database):
 * the URL may carry `schema=<name>` (a lowercase identifier: letters, digits, `_`). It is removed
 * from the URL and becomes `-c search_path=<name>` in the startup `options` of every connection
 * (after any `options` the URL already has), so every unqualified table name resolves there; the
 * migration creates that schema when it is missing. A URL may instead set the standard
 * `options=-c search_path=…` itself: it is passed through, and the schema must then exist. Every
 * other query parameter goes to `pg` as is (`sslmode`, `application_name`, `statement_timeout`, …).
 *
 * Sessions get `application_name = punctual` (unless the URL names another), a
 * `statement_timeout`, a `lock_timeout` and an `idle_in_transaction_session_timeout`.
 * @throws Error for an unparseable URL or an invalid `schema` (messages never include the password)
 */
export function connectionConfig(url: string, opts: PostgresStoreOptions = {}): ConnectionTarget {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new Error('Invalid DATABASE_URL: not a valid postgres:// URL.');
  }
  const schema = u.searchParams.get('schema');
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw new Error('Invalid DATABASE_URL: the schema parameter must be a lowercase SQL identifier (a-z, 0-9, _).');
  }
  u.searchParams.delete('schema');
  let options = u.searchParams.get('options') ?? undefined;
  if (schema !== null) {
    u.searchParams.delete('options');
    options = `${options ? `${options} ` : ''}-c search_path=${schema}`;
  }
  const statementTimeoutMs = opts.statementTimeoutMs ?? DEFAULTS.statementTimeoutMs;
  return {
    schema,
    config: {
      connectionString: u.toString(),
      ...(options !== undefined && { options }),
      application_name: 'punctual',
      statement_timeout: statementTimeoutMs,
      lock_timeout: DEFAULTS.lockTimeoutMs,
      idle_in_transaction_session_timeout: DEFAULTS.idleInTransactionMs,
      query_timeout: statementTimeoutMs + DEFAULTS.queryTimeoutMarginMs,
      connectionTimeoutMillis: opts.connectionTimeoutMs ?? DEFAULTS.connectionTimeoutMs,
      keepAlive: true,
      types: TYPES,
    },
  };
}

/**
 * Result parsers of this store's connections (not pg's global ones): `bigint` (epoch ms, counts)
 * as a JavaScript number — every instant and count fits in 2^53 — instead of pg's default string.
 * `json` is parsed by pg itself.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 && format !== 'binary') return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * SQL of the database clock as epoch ms, rounded down (never early). `clock_timestamp()`, not
 * `now()`: the time when the statement reads it, not when the transaction began.
 */
export const DB_NOW_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

/**
 * Arguments of `pg_advisory_xact_lock` / `pg_try_advisory_xact_lock` (the two-int form) for one
 * once-per-cluster duty, scoped to the schema whose name is the query parameter `$1`: two
 * installations in two schemas of one database never wait for each other. Advisory keys are
 * database-wide, so both halves are hashes of names.
 */
export function lockKeySql(duty: 'migrate' | 'prune' | 'reclaim' | 'liveness', scopeParam = '$1'): string {
  return `hashtext('punctual.${duty}'), hashtext(${scopeParam}::text)`;
}

/** What runs SQL: the pool, or one client inside a transaction. */
export interface Sql {
  /** Runs one statement; `name` makes it a prepared statement (per connection, for hot queries). */
  rows<R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<R[]>;
  /** Like {@link rows}, returning the number of rows written or read. */
  count(text: string, values?: unknown[], name?: string): Promise<number>;
}

function sqlOf(q: pg.Pool | pg.ClientBase): Sql {
  return {
    async rows<R extends pg.QueryResultRow>(text: string, values: unknown[] = [], name?: string): Promise<R[]> {
      const r = await q.query<R>(name ? { name, text, values } : { text, values });
      return r.rows;
    },
    async count(text: string, values: unknown[] = [], name?: string): Promise<number> {
      const r = await q.query(name ? { name, text, values } : { text, values });
      return r.rowCount ?? 0;
    },
  };
}

/** SQLSTATEs of a transaction that lost a race and may simply be run again. */
const RETRYABLE = new Set(['40001', '40P01']);

/** Attempts of a transaction that fails with a {@link RETRYABLE} state. */
const TX_ATTEMPTS = 3;

/**
 * The pool of a store, with its transaction helper. Every error leaves through
 * {@link toStoreError}.
 */
export class Database {
  readonly pool: pg.Pool;
  readonly sql: Sql;

  constructor(config: pg.ClientConfig, poolSize: number, onIdleError: (err: Error) => void) {
    this.pool = new pg.Pool({ ...config, max: poolSize, idleTimeoutMillis: 30_000 });
    // An idle client that loses its connection (server restart, failover) is dropped by the pool;
    // without a listener the 'error' event would crash the process.
    this.pool.on('error', onIdleError);
    this.sql = sqlOf(this.pool);
  }

  /**
   * Runs `fn` in one READ COMMITTED transaction on one connection: COMMIT when it resolves,
   * ROLLBACK when it throws (its error is rethrown as is: a callback's own error stays itself).
   * A serialization failure or deadlock runs it again, at most {@link TX_ATTEMPTS} times in all.
   */
  async tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const done = await this.checkout(async (client, broke) => {
        try {
          await client.query('BEGIN');
          const result = await fn(sqlOf(client));
          await client.query('COMMIT');
          return { result };
        } catch (err) {
          try {
            await client.query('ROLLBACK');
          } catch (rollbackError) {
            broke(rollbackError as Error); // the connection is gone: do not give it back to the pool
          }
          if (attempt < TX_ATTEMPTS && RETRYABLE.has(sqlState(err) ?? '')) return null;
          throw err;
        }
      });
      if (done !== null) return done.result;
    }
  }

  /** Runs `fn` with one connection of the pool, guarded as in {@link tx}, without a transaction. */
  async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.checkout(async (client, broke) => {
      try {
        return await fn(client);
      } catch (err) {
        if (toStoreError(err) instanceof StoreUnavailableError) broke(err as Error);
        throw err;
      }
    });
  }

  /**
   * Runs `fn` with one connection of the pool and gives it back afterwards, or drops it when it
   * broke: when `fn` calls `broke`, or when the connection reports an error meanwhile. A
   * checked-out client has no 'error' listener of the pool's: without this one, a connection lost
   * between two statements would crash the process. The next query fails anyway, and that failure
   * is what the caller sees.
   */
  private async checkout<T>(fn: (client: pg.PoolClient, broke: (err: Error) => void) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      return await fn(client, onError);
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }
}

/** The SQLSTATE of a server error, if `err` is one. */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * SQLSTATE classes and codes meaning the database cannot be reached or written right now
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html), rather than a fault of the
 * statement: connection exceptions (08), insufficient resources (53: disk full, out of memory, too
 * many connections), operator intervention (57: admin/crash shutdown, cannot connect now, and
 * 57014 query_canceled, i.e. statement_timeout), 55P03 lock_not_available (lock_timeout), 25006
 * read_only_sql_transaction (a standby after a failover), 40001/40P01 once retries are spent,
 * 3D000 (the database does not exist), 28xxx (authentication refused), 58xxx (system errors).
 */
const UNAVAILABLE_CLASSES = ['08', '53', '57', '58', '28'];
const UNAVAILABLE_CODES = new Set(['55P03', '25006', '40001', '40P01', '3D000']);

/** Node socket errors (`err.code`) meaning the server cannot be reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'EHOSTDOWN',
]);

/** Messages of errors `pg` and `pg-pool` raise themselves (no code) when a connection fails. */
const CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Query read timeout/i,
  /not queryable/i,
  /Cannot use a pool after calling end/i,
  /Client was closed/i,
  /connection (?:error|timeout)/i,
  /self[- ]signed certificate|SSL/i,
];

/**
 * Translates an error of `pg` into the store's vocabulary:
 * - availability failures become `StoreUnavailableError` whose message names only the SQLSTATE
 *   or socket code (never SQL text or values; the original error is kept as `cause` for logs);
 * - a missing table becomes an Error asking to migrate first;
 * - text that PostgreSQL cannot store (U+0000, which SQLite accepts) becomes `InvalidInputError`;
 * - anything else (a unique violation, a bug) is returned as is, as the SQLite store does.
 */
export function toStoreError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || err instanceof InvalidInputError || err instanceof ConflictError) return err;
  const state = sqlState(err);
  if (state !== undefined) {
    // A key another job holds: the unique index on `key` of a job table (../job-keys.ts).
    const keyed = state === '23505' ? tableOfKeyIndex((err as { constraint?: string }).constraint) : null;
    if (keyed !== null) return keyConflict(keyed);
    if (UNAVAILABLE_CODES.has(state) || UNAVAILABLE_CLASSES.includes(state.slice(0, 2))) {
      return new StoreUnavailableError(`The store is unavailable (PostgreSQL ${state}).`, err);
    }
    if (state === '42P01') {
      return new Error('The PostgreSQL database has no Punctual schema yet: migrate it first (`punctual migrate`).', {
        cause: err,
      });
    }
    if (state === '22021' || state === '22P05') {
      return new InvalidInputError(
        [{ path: '', message: 'text must not contain the character U+0000' }],
        'The request contains text that cannot be stored (the character U+0000).',
      );
    }
    return err;
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) {
    return new StoreUnavailableError(`The store is unavailable (${code}).`, err);
  }
  if (err instanceof Error && !(err instanceof pg.DatabaseError) && CONNECTION_MESSAGES.some((m) => m.test(err.message))) {
    return new StoreUnavailableError('The store is unavailable (connection lost).', err);
  }
  return err;
}

/**
 * A statement with named `:parameters` (those of store/rules/ and store/sql/, valid in both
 * dialects) as PostgreSQL's positional `$n`, and
 * the values in that order (a name used twice is one parameter).
 */
export function positional(text: string, params: Record<string, unknown>): { text: string; values: unknown[] } {
  const order: string[] = [];
  const out = text.replace(/(?<![:\w]):([A-Za-z_]\w*)/g, (_, name: string) => {
    let i = order.indexOf(name);
    if (i < 0) i = order.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text: out, values: order.map((n) => params[n] ?? null) };
}
