/**
 * The commands that run the service or work on its store directly, configured by the environment
 * (see config.ts and the README): `serve [--role all|api|dispatcher] [--new-key]`, `migrate`, `migrate-store
 * --from <url> --to <url>`, `signing-secret`. The service's modules are imported when one of
 * these runs, so that the API commands start without loading them.
 */
import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { resolveFileEnv } from '../env-files.js';
import { parseRole, ROLES } from '../roles.js';
import type { Store } from '../store/store.js';
import { UsageError } from './exit.js';
import { noteNpmAncestors, stopWithNpm, type NpmAncestors } from './parent-watch.js';

/**
 * The configuration from the environment; an invalid one ends the process with exit code 2.
 * config.ts is imported here, not at the top: it loads much of the service (the SSRF guard, the
 * key ring, the signer), which `--version`, `--help` and the API commands do not need.
 */
export async function configOrExit(): Promise<Config> {
  const { ConfigError, loadConfig } = await import('../config.js');
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`punctual: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** Options of {@link withStore}. */
export interface WithStoreOptions {
  /**
   * Work only on a store that exists: a SQLite file that is missing is an error (nothing is
   * created, not even its folder) instead of a new, empty database. PostgreSQL is opened as usual.
   */
  existing?: boolean;
  /**
   * With `existing`: the command can also go through a running server (`PUNCTUAL_URL` and
   * `PUNCTUAL_TOKEN`, as the keys commands), and the message for a missing file says so.
   */
  viaApi?: boolean;
}

/**
 * Opens and migrates the configured store (`DATABASE_URL`), runs `fn`, closes the store.
 * @throws UsageError (exit code 2) with `existing` when the SQLite file does not exist; the
 *   message names its absolute path and the ways to point the command elsewhere
 */
export async function withStore<T>(fn: (store: Store) => Promise<T>, opts: WithStoreOptions = {}): Promise<T> {
  const config = await configOrExit();
  const { openStore, parseDatabaseUrl } = await import('../store/open.js');
  if (opts.existing) {
    const target = parseDatabaseUrl(config.databaseUrl);
    if (target.kind === 'sqlite' && !existsSync(target.path)) {
      throw new UsageError(missingDatabase(target.path, config.databaseUrl, opts.viaApi ?? false));
    }
  }
  const store = await openStore(config.databaseUrl);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * Why a command that works on an existing SQLite database at `path` (absolute) cannot, and what
 * to do. `databaseUrl` is the configured one, from `DATABASE_URL` or `DATABASE_URL_FILE`;
 * `viaApi`: the command also works through a running server.
 */
export function missingDatabase(path: string, databaseUrl: string, viaApi: boolean): string {
  const source = resolveFileEnv(process.env).sources.DATABASE_URL;
  const where =
    source.from === 'env'
      ? `DATABASE_URL=${databaseUrl}`
      : source.from === 'file'
        ? `DATABASE_URL_FILE=${source.path} holds ${databaseUrl}`
        : 'DATABASE_URL is not set, so the default, data/punctual.db in the working directory, was used';
  return (
    `no database at ${path} (${where}).\n` +
    'Run the command where the server runs, set DATABASE_URL to the database `punctual serve` logs at start ' +
    `(e.g. DATABASE_URL=file:/srv/punctual/data/punctual.db)` +
    (viaApi ? ', or go through the running server with PUNCTUAL_URL and PUNCTUAL_TOKEN (a key)' : '') +
    '. This command never creates a database; `punctual serve` and `punctual migrate` do.'
  );
}

async function serve(opts: { role?: string; newKey?: boolean }): Promise<void> {
  const npm = noteNpmAncestors();
  const config = await configOrExit();
  if (opts.role !== undefined) {
    const role = parseRole(opts.role);
    if (role === null) {
      process.stderr.write(`punctual: --role ${JSON.stringify(opts.role)} must be one of ${ROLES.join(', ')}\n`);
      process.exit(2);
    }
    config.role = role;
  }
  const [{ createLogger }, { RoleError, startServer }, { KeyFileError }, { SealingKeyMissingError }] = await Promise.all([
    import('../logger.js'),
    import('../main.js'),
    import('../secrets/key-file.js'),
    import('../serve-store.js'),
  ]);
  const logger = createLogger(config.logLevel);
  // From here on a SIGTERM or SIGINT stops the server in order, even one that comes while it starts.
  const stops = stopOnSignals(logger, config.shutdownGraceMs, npm);
  // Which database this node uses, before opening it: a first question when keys or jobs seem missing.
  const database = (await import('../store/open.js')).describeDatabaseUrl(config.databaseUrl);
  logger.info({ database }, `store: ${database}`);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, { logger, newKey: opts.newKey ?? false });
  } catch (err) {
    // A role the store cannot serve, a key file that cannot be used, keys that do not open the
    // stored secrets: configuration errors.
    if (err instanceof RoleError || err instanceof KeyFileError || err instanceof SealingKeyMissingError) {
      process.stderr.write(`punctual: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  stops.serving(server);
}

/**
 * How long past the grace period a stop may take before the process exits anyway (ms): the
 * closing of the HTTP server, the store and the rest, after the calls in flight had their
 * `PUNCTUAL_SHUTDOWN_GRACE_MS`.
 */
export const STOP_MARGIN_MS = 5_000;

/**
 * The signals that stop `serve`, listened to from before the server starts (a signal that came
 * while it was starting would otherwise end the process at once, with nothing stopped in order):
 * the first SIGTERM or SIGINT starts one graceful stop (`server.close()`), at once when the server
 * is running or as soon as it is, after which the process exits with 0, or 1 if the stop failed.
 * A repeated SIGTERM or SIGINT during the stop (npm forwards the signal it got, and a terminal's
 * Ctrl-C also reaches every process of the group, so one Ctrl-C is often two) is logged and
 * changes nothing; SIGKILL ends the process at once. Under npm (`npm` noted at start), the end of
 * npm starts the same stop (cli/parent-watch.ts). Should the stop take longer than `graceMs` +
 * {@link STOP_MARGIN_MS}, the process logs it and exits with 1 (a last resort; what was still in
 * flight is attempted again, see docs/deployment.md, "Stopping").
 * @returns `serving(server)`, to be called once the server runs
 */
export function stopOnSignals(
  logger: Logger,
  graceMs: number,
  npm: NpmAncestors | null = null,
): { serving(server: { close(): Promise<void> }): void } {
  let stopping = false;
  let running: { close(): Promise<void> } | null = null;
  const close = (server: { close(): Promise<void> }) => {
    const limitMs = graceMs + STOP_MARGIN_MS;
    setTimeout(() => {
      logger.error({ limitMs }, `the stop took over ${limitMs} ms (grace period + ${STOP_MARGIN_MS} ms): exiting anyway`);
      process.exit(1);
    }, limitMs);
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  const stop = (why: { signal: NodeJS.Signals } | { npmEnded: true }) => {
    if (stopping) {
      logger.info(why, 'already stopping: the signal is ignored (SIGKILL ends the process at once)');
      return;
    }
    stopping = true;
    logger.info({ ...why, starting: running === null }, 'stopping: draining requests and calls in flight');
    if (running) close(running);
  };
  process.on('SIGTERM', (signal) => stop({ signal }));
  process.on('SIGINT', (signal) => stop({ signal }));
  stopWithNpm(npm, () => {
    logger.warn({}, 'npm, which started this server, has ended');
    stop({ npmEnded: true });
  });
  return {
    serving(server) {
      running = server;
      if (stopping) close(server);
    },
  };
}

/** Adds `serve`, `migrate`, `migrate-store` and `signing-secret` to `program`. */
export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API and run the dispatcher (configured by environment variables)')
    .addOption(
      new Option(
        '--role <role>',
        'all: API and dispatcher; api: the HTTP API only; dispatcher: dispatch and prune, with only ' +
          '/healthz and /readyz on PORT (overrides PUNCTUAL_ROLE; api and dispatcher need PostgreSQL)',
      ).choices([...ROLES]),
    )
    .option(
      '--new-key',
      'start even if the keys at hand do not open the stored job secrets (exit code 2 otherwise): on SQLite ' +
        'without a key file, make a new one. Secrets sealed with the lost key stay unopenable until it is put back. ' +
        'Never replaces an existing key file.',
    )
    .action(serve);

  program
    .command('migrate')
    .description('apply pending store migrations and exit')
    .action(async () => {
      const config = await configOrExit();
      await withStore(async () => undefined);
      const { describeDatabaseUrl } = await import('../store/open.js');
      process.stdout.write(`migrations applied to ${describeDatabaseUrl(config.databaseUrl)}\n`);
    });

  program
    .command('migrate-store')
    .description(
      'copy everything (API keys, settings and the signing secret, schedules, cron jobs, executions with ' +
        'their attempts) from one store into another, empty one, e.g. SQLite into PostgreSQL. Stop the nodes ' +
        'on the source first; start nodes on the target after.',
    )
    .option('--from <url>', 'DATABASE_URL of the store to copy from (default: DATABASE_URL)')
    .requiredOption('--to <url>', 'DATABASE_URL of the empty store to copy into')
    .action(async (opts: { from?: string; to: string }) => {
      const from = opts.from ?? (await configOrExit()).databaseUrl;
      const [{ describeDatabaseUrl }, { describeCounts, TargetNotEmptyError, transferStore }] = await Promise.all([
        import('../store/open.js'),
        import('../store/transfer/copy.js'),
      ]);
      process.stdout.write(`copying ${describeDatabaseUrl(from)} → ${describeDatabaseUrl(opts.to)}\n`);
      try {
        const copied = await transferStore({ from, to: opts.to });
        process.stdout.write(`copied ${describeCounts(copied)}\n`);
      } catch (err) {
        if (err instanceof TargetNotEmptyError) {
          process.stderr.write(`punctual: ${err.message}\n`);
          process.exit(2);
        }
        throw err;
      }
    });

  program
    .command('signing-secret')
    .description(
      'print the secret(s) calls are signed with (Standard Webhooks, whsec_…): PUNCTUAL_SIGNING_SECRET, ' +
        'or the one generated and kept in the store',
    )
    .action(async () => {
      const config = await configOrExit();
      const { resolveSigningSecrets } = await import('../dispatch/call/signing.js');
      // The store is opened only when no secret is configured, and only if it exists: the secret a
      // new, empty database would generate is not the one the server signs with.
      const stored: Pick<Store, 'settingGetOrCreate'> = {
        settingGetOrCreate: (p) => withStore((store) => store.settingGetOrCreate(p), { existing: true }),
      };
      const secrets = await resolveSigningSecrets(stored, config.signingSecrets);
      process.stdout.write(`${secrets.join('\n')}\n`);
    });
}
