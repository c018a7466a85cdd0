/**
 * The `punctual` program (commander) and the run of one command line, as `dist/cli.js` does it:
 * src/cli.ts only calls {@link runCli} with `process.argv`. A fresh program is made for each run,
 * so that a process (the CLI tests) can run several command lines one after another.
 */
import { Command } from 'commander';
import { registerApplyCommand } from './apply.js';
import { registerAuditCommands } from './audit.js';
import { registerBackupCommand } from './backup.js';
import { registerChannelCommands } from './channels.js';
import { registerCronCommands } from './cron.js';
import { registerExecutionCommands } from './executions.js';
import { describeError, EXIT, exitCodeOf } from './exit.js';
import { registerFlowControlCommands } from './flow-control.js';
import { registerKeyCommands } from './keys.js';
import { registerScheduleImport } from './schedule-import.js';
import { registerScheduleCommands } from './schedules.js';
import { registerSecretsCommands } from './secrets.js';
import { registerServerCommands } from './server.js';
import { VERSION } from '../version.js';

/** A new `punctual` program with every command group registered (see src/cli.ts). */
export function createProgram(): Command {
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
      '\nThe API commands (schedules, cron, executions, channels, flow-control, apply, and keys when a URL\n' +
        'is set) read PUNCTUAL_URL and PUNCTUAL_TOKEN (or --url, --token); the others read DATABASE_URL\n' +
        'and the service settings (README).\n' +
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
  registerFlowControlCommands(program);
  registerApplyCommand(program);
  registerAuditCommands(program);
  return program;
}

/**
 * Runs the command line `argv` (as `process.argv`: the node binary and the script first) on a new
 * program. The exit code is set the way the process ends: `process.exitCode` by the commands, or
 * `process.exit` for usage errors, help, and errors thrown while the arguments are parsed (a
 * `--data` that is not JSON: exit code 2) or that escaped an action.
 * @returns once the command's action has finished
 */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await createProgram().parseAsync(argv);
  } catch (err) {
    process.stderr.write(`${describeError(err, false)}\n`);
    process.exit(exitCodeOf(err));
  }
}
