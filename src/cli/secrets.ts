/**
 * `punctual secrets rekey`: re-seals every stored job secret with the newest encryption key
 * (docs/security.md, "Rotating the key"), on the store in `DATABASE_URL` directly, while
 * `punctual serve` runs on it or not. The key ring is found as `punctual serve` finds it
 * (`buildServeKeyRing`: `PUNCTUAL_ENCRYPTION_KEYS`, else the SQLite key file), but nothing is
 * created: neither the database nor the key file.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { KeyRing } from '../secrets/key-ring.js';
import type { RekeyReport } from '../service/secrets-rekey.js';
import { EXIT, UsageError } from './exit.js';
import { integer } from './options.js';
import { out, printJson } from './output.js';
import { configOrExit, withStore } from './server.js';

/** What `--json` prints: the report with the id of the key that sealed. */
export interface RekeyOutput extends RekeyReport {
  keyId: string;
}

/** The key ring of the configured store, never created. @throws UsageError when there is none */
async function keyRing(): Promise<KeyRing> {
  const config = await configOrExit();
  const [{ buildServeKeyRing }, { KeyFileError }] = await Promise.all([import('../serve-store.js'), import('../secrets/key-file.js')]);
  const warn = { info: () => undefined, warn: (_: object, msg?: string) => process.stderr.write(`punctual: ${msg ?? ''}\n`) };
  let ring: KeyRing | null;
  try {
    ring = await buildServeKeyRing(config.encryptionKeys, config.databaseUrl, warn, { existing: true });
  } catch (err) {
    if (err instanceof KeyFileError) throw new UsageError(`${err.message}; set PUNCTUAL_ENCRYPTION_KEYS or run where the server runs`);
    throw err;
  }
  if (ring === null) throw new UsageError('no encryption key: set PUNCTUAL_ENCRYPTION_KEYS (newest first), as on the nodes');
  return ring;
}

/** The one-line summary, e.g. `re-sealed 3 of 5 jobs with key 1a2b3c4d: 1 unchanged, 1 failed`. */
function summary(r: RekeyOutput): string {
  return `re-sealed ${r.resealed} of ${r.examined} jobs with key ${r.keyId}: ${r.unchanged} unchanged, ${r.failed} failed`;
}

/** Adds the `secrets` command group to `program`. */
export function registerSecretsCommands(program: Command): void {
  const secrets = program.command('secrets').description('job secrets at rest (encrypted with PUNCTUAL_ENCRYPTION_KEYS or the key file)');
  secrets
    .command('rekey')
    .description(
      're-seal every stored job secret with the newest key (the first of PUNCTUAL_ENCRYPTION_KEYS or of the key file), ' +
        'on the store in DATABASE_URL; safe while the service runs. Exit code 1 when a job could not be re-sealed.',
    )
    .option('--batch-size <n>', 'jobs read per page, 1–10000 (default 500)', (v) => {
      const n = integer(v);
      if (n < 1 || n > 10_000) throw new InvalidArgumentError('It must be from 1 to 10000.');
      return n;
    })
    .option('--json', 'print the report as JSON')
    .action(async (opts: { batchSize?: number; json?: boolean }) => {
      const { rekeyJobSecrets } = await import('../service/secrets-rekey.js');
      // The database first (a missing SQLite file is named as such), then its key.
      const output = await withStore(
        async (store): Promise<RekeyOutput> => {
          const ring = await keyRing();
          return { keyId: ring.currentKeyId, ...(await rekeyJobSecrets(store, ring, { batchSize: opts.batchSize })) };
        },
        { existing: true },
      );
      if (opts.json) printJson(output);
      else {
        out(summary(output));
        for (const f of output.failures) process.stderr.write(`punctual: ${f.jobType} ${f.id}: ${f.message}\n`);
      }
      if (output.failed > 0) process.exitCode = EXIT.apiError;
    });
}
