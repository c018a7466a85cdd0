#!/usr/bin/env node
/**
 * The `punctual` command (the package's bin, `dist/cli.js`). The program is made in cli/program.ts;
 * command groups live in `cli/`:
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
import { runCli } from './cli/program.js';

void runCli(process.argv);
