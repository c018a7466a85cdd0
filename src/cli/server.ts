/**
 * The commands that run the service or work on its store directly, configured by the environment
 * (see config.ts and the README): `serve [--role all|api|dispatcher]`, `migrate`, `migrate-store
 * --from <url> --to <url>`, `signing-secret`. The service's modules are imported when one of
 * these runs, so that the API commands start without loading them.
 */
import { Option, type Command } from 'commander';
import { ConfigError, loadConfig, parseRole, ROLES, type Config } from '../config.js';
import type { Store } from '../store/store.js';

/** The configuration from the environment; an invalid one ends the process with exit code 2. */
export function configOrExit(): Config {
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

/** Opens and migrates the configured store (`DATABASE_URL`), runs `fn`, closes the store. */
export async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = configOrExit();
  const { openStore } = await import('../store/open.js');
  const store = await openStore(config.databaseUrl);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function serve(opts: { role?: string }): Promise<void> {
  const config = configOrExit();
  if (opts.role !== undefined) {
    const role = parseRole(opts.role);
    if (role === null) {
      process.stderr.write(`punctual: --role ${JSON.stringify(opts.role)} must be one of ${ROLES.join(', ')}\n`);
      process.exit(2);
    }
    config.role = role;
  }
  const [{ createLogger }, { RoleError, startServer }] = await Promise.all([import('../logger.js'), import('../main.js')]);
  const logger = createLogger(config.logLevel);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, { logger });
  } catch (err) {
    if (err instanceof RoleError) {
      process.stderr.write(`punctual: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const stop = (signal: string) => {
    logger.info({ signal }, 'stopping: draining requests and calls in flight');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
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
    .action(serve);

  program
    .command('migrate')
    .description('apply pending store migrations and exit')
    .action(async () => {
      const config = configOrExit();
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
      const from = opts.from ?? configOrExit().databaseUrl;
      const [{ describeDatabaseUrl }, { describeCounts, TargetNotEmptyError, transferStore }] = await Promise.all([
        import('../store/open.js'),
        import('../store/transfer.js'),
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
      const config = configOrExit();
      const { resolveSigningSecrets } = await import('../dispatch/signing.js');
      const secrets = await withStore((store) => resolveSigningSecrets(store, config.signingSecrets));
      process.stdout.write(`${secrets.join('\n')}\n`);
    });
}
