#!/usr/bin/env node
/**
 * The `punctual` command: `serve [--role all|api|dispatcher] | migrate | migrate-store --from <url>
 * --to <url> | signing-secret | keys create <name> | keys list`. Configuration comes from the
 * environment (see config.ts and the README).
 */
import { Command, Option } from 'commander';
import { ConfigError, loadConfig, parseRole, ROLES, type Config } from './config.js';
import { resolveSigningSecrets } from './dispatch/signing.js';
import { systemClock } from './domain/clock.js';
import { toIso, toIsoOrNull } from './domain/time.js';
import { createLogger } from './logger.js';
import { RoleError, startServer, type RunningServer } from './main.js';
import { createApiKey } from './service/api-keys.js';
import { describeDatabaseUrl, openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { describeCounts, TargetNotEmptyError, transferStore } from './store/transfer.js';
import { VERSION } from './version.js';

function configOrExit(): Config {
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

/** Opens and migrates the configured store, runs `fn`, closes the store. */
async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = configOrExit();
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
  const logger = createLogger(config.logLevel);
  let server: RunningServer;
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

const program = new Command()
  .name('punctual')
  .description('Self-hostable HTTP scheduler: calls your URL at an instant or on a cron expression.')
  .version(VERSION);

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
    const secrets = await withStore((store) => resolveSigningSecrets(store, config.signingSecrets));
    process.stdout.write(`${secrets.join('\n')}\n`);
  });

const keys = program.command('keys').description('manage API keys directly in the configured store');

keys
  .command('create')
  .argument('<name>', 'name of the key')
  .option('--disabled', 'create the key Disabled')
  .option('--json', 'print the key as JSON')
  .description('create an API key and print its token (shown only once)')
  .action(async (name: string, opts: { disabled?: boolean; json?: boolean }) => {
    const { apiKey, token } = await withStore((store) =>
      createApiKey(store, systemClock, { name, status: opts.disabled ? 'Disabled' : 'Enabled' }),
    );
    if (opts.json) {
      const out = { ...apiKey, createdAt: toIso(apiKey.createdAt), lastUsed: toIsoOrNull(apiKey.lastUsed), token };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      process.stdout.write(
        `Created API key "${apiKey.name}" (${apiKey.id}, ${apiKey.status}).\n` +
          `Token (shown only this once; store it now):\n${token}\n`,
      );
    }
  });

keys
  .command('list')
  .option('--json', 'print the keys as JSON')
  .description('list API keys (never their tokens)')
  .action(async (opts: { json?: boolean }) => {
    const list = await withStore((store) => store.apiKeyList());
    if (opts.json) {
      const out = list.map((k) => ({ ...k, createdAt: toIso(k.createdAt), lastUsed: toIsoOrNull(k.lastUsed) }));
      process.stdout.write(`${JSON.stringify({ size: out.length, apiKeys: out }, null, 2)}\n`);
      return;
    }
    for (const k of list) {
      process.stdout.write(`${k.id}  ${k.status.padEnd(8)}  ${toIsoOrNull(k.lastUsed) ?? 'never used'.padEnd(24)}  ${k.name}\n`);
    }
    if (list.length === 0) process.stdout.write('no API keys yet: punctual keys create <name>\n');
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`punctual: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
