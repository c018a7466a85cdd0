#!/usr/bin/env node
/**
 * The `punctual` command (the package's bin, `dist/cli.js`). Command groups live in `cli/`:
 *
 * - running the service and its store (cli/server.ts): `serve [--role all|api|dispatcher]`,
 *   `migrate`, `migrate-store --from <url> --to <url>`, `signing-secret`; `backup <file>` (cli/backup.ts);
 * - through the API, with `PUNCTUAL_URL` / `PUNCTUAL_TOKEN` (or `--url` / `--token`),
 *   tables by default and `--json` for scripts: `schedules …` (cli/schedules.ts), `cron …`
 *   (cli/cron.ts), `executions …` (cli/executions.ts), `channels …` (cli/channels.ts);
 * - `keys …` (cli/keys.ts): through the API when a URL is set, otherwise on the store directly;
 * - `secrets rekey` (cli/secrets.ts): on the store directly, with the key ring `serve` would use;
 * - `apply -f punctual.yaml` (cli/apply.ts): jobs as code through the API; its own exit codes
 *   (0 done, 2 changes pending under `--dry-run`, 1 any error).
 *
 * Exit codes (cli/exit.ts): 0 ok, 1 API error, 2 usage or configuration error, 3 not found,
 * 4 service unreachable or 5xx.
 */
import { Command } from 'commander';
import { registerApplyCommand } from './cli/apply.js';
import { registerBackupCommand } from './cli/backup.js';
import { registerChannelCommands } from './cli/channels.js';
import { registerCronCommands } from './cli/cron.js';
import { registerAuditCommands } from './cli/audit.js';
import { registerExecutionCommands } from './cli/executions.js';
import { describeError, EXIT, exitCodeOf } from './cli/exit.js';
import { registerKeyCommands } from './cli/keys.js';
import { registerScheduleImport } from './cli/schedule-import.js';
import { registerScheduleCommands } from './cli/schedules.js';
import { registerSecretsCommands } from './cli/secrets.js';
import { registerServerCommands } from './cli/server.js';
import { VERSION } from './version.js';

const program = new Command()
  .name('punctual')
  .description('Self-hostable HTTP scheduler: calls your URL at an instant or on a cron expression.')
  .version(VERSION)
  // Set before the subcommands are made, so that each inherits it: commander's usage errors
  // (unknown command or option, missing argument, bad value) exit with 2, help and --version with 0.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage))
  .showHelpAfterError('(add --help for usage)')
  .addHelpText(
    'after',
    '\nThe API commands (schedules, cron, executions, and keys when a URL is set) read PUNCTUAL_URL and\n' +
      'PUNCTUAL_TOKEN (or --url, --token); the others read DATABASE_URL and the service settings (README).\n' +
      'Exit codes: 0 done, 1 the API refused (4xx), 2 usage or configuration, 3 not found,\n' +
      '4 service unreachable or 5xx.',
  );

registerServerCommands(program);
registerBackupCommand(program);
registerKeyCommands(program);
registerSecretsCommands(program);
registerScheduleCommands(program);
registerScheduleImport(program);
registerCronCommands(program);
registerExecutionCommands(program);
registerChannelCommands(program);
registerApplyCommand(program);
registerAuditCommands(program);

// Errors thrown while the arguments are parsed (a `--data` that is not JSON: exit code 2) or
// that escaped an action.
program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`${describeError(err, false)}\n`);
  process.exit(exitCodeOf(err));
});
