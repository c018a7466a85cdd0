/**
 * `punctual secrets rekey` (docs/security.md, "Rotating the key"): every stored job secret
 * re-sealed with the newest key of the ring, while the service runs. The store is walked in pages
 * (`Store.secretsPage`), each job's map re-sealed (`resealJobSecrets`, src/secrets/job-secrets.ts)
 * and written only if nobody changed it meanwhile (`Store.secretsReplace`, a compare-and-set), so a
 * PATCH of the job's secrets during the walk is never lost. Each write is its own short
 * transaction: on SQLite the server's writes wait at most one job.
 */
import type { JobType, SealedSecrets } from '../domain/types.js';
import { SecretDecryptError, SecretKeyMissingError } from '../secrets/errors.js';
import { resealJobSecrets } from '../secrets/job-secrets.js';
import type { KeyRing } from '../secrets/key-ring.js';
import type { Store } from '../store/store.js';

/** Jobs read per page unless told (each page is one read statement). */
export const REKEY_BATCH = 500;

/** What the rekey needs of a store: the pages, the compare-and-set, and a job's current secrets. */
export type RekeyStore = Pick<Store, 'secretsPage' | 'secretsReplace' | 'scheduleGet' | 'cronGet'>;

/** A job left as it was, and why. Never holds a secret or a sealed text. */
export interface RekeyFailure {
  jobType: JobType;
  id: string;
  /** For a value whose key is not in the ring: that key's id (8 hex characters); else null. */
  keyId: string | null;
  /** `secret cannot be decrypted (key <id> missing)`, `… (tampered or moved)`, or that the job kept changing. */
  message: string;
}

/** What a rekey did. `examined` = `resealed` + `unchanged` + `failed`. */
export interface RekeyReport {
  /** Jobs that had secrets when their page was read. */
  examined: number;
  /** Jobs whose secrets were written again, sealed with the newest key. */
  resealed: number;
  /** Jobs whose secrets were all sealed with the newest key already, or that lost them (deleted, or secrets removed) meanwhile. */
  unchanged: number;
  /** Jobs left as they were: listed in `failures`. */
  failed: number;
  failures: RekeyFailure[];
}

/** Options of {@link rekeyJobSecrets}. */
export interface RekeyOptions {
  /** Jobs per page (default {@link REKEY_BATCH}). */
  batchSize?: number;
}

type Outcome = 'resealed' | 'unchanged' | RekeyFailure;

/**
 * Re-seals the secrets of every job with `ring`'s newest key (`ring.currentKeyId`). A job whose
 * compare-and-set misses (its secrets changed after they were read) is read again once and
 * retried; if it misses again it is reported as failed (run the command again). A job with a value
 * that cannot be opened (its key is not in the ring, or it does not verify) is reported, not fatal.
 * Running it twice writes nothing the second time.
 * @throws StoreUnavailableError when the store cannot be read or written (the jobs done stay done)
 */
export async function rekeyJobSecrets(store: RekeyStore, ring: KeyRing, opts: RekeyOptions = {}): Promise<RekeyReport> {
  const limit = Math.max(1, Math.floor(opts.batchSize ?? REKEY_BATCH));
  const report: RekeyReport = { examined: 0, resealed: 0, unchanged: 0, failed: 0, failures: [] };
  let after: { jobType: JobType; id: string } | null = null;
  for (;;) {
    const page = await store.secretsPage({ after, limit });
    for (const entry of page) {
      report.examined++;
      const outcome = await rekeyJob(store, ring, entry.jobType, entry.id, entry.secrets);
      if (typeof outcome === 'string') report[outcome]++;
      else {
        report.failed++;
        report.failures.push(outcome);
      }
    }
    const last = page.at(-1);
    if (page.length < limit || last === undefined) return report;
    after = { jobType: last.jobType, id: last.id };
  }
}

/** One job: re-seal and write; on a miss, read it again and try once more. */
async function rekeyJob(store: RekeyStore, ring: KeyRing, jobType: JobType, id: string, read: SealedSecrets): Promise<Outcome> {
  let expected: SealedSecrets | null = read;
  for (let attempt = 1; attempt <= 2; attempt++) {
    if (expected === null) return 'unchanged';
    let next: { secrets: SealedSecrets; changed: boolean };
    try {
      next = resealJobSecrets(ring, id, expected);
    } catch (err) {
      if (!(err instanceof SecretDecryptError)) throw err;
      return { jobType, id, keyId: err instanceof SecretKeyMissingError ? err.keyId : null, message: err.message };
    }
    if (!next.changed) return 'unchanged';
    if (await store.secretsReplace({ jobType, id, expected, secrets: next.secrets })) return 'resealed';
    expected = await currentSecrets(store, jobType, id);
  }
  return { jobType, id, keyId: null, message: 'its secrets changed twice while being re-sealed: run the command again' };
}

/** The secrets stored now for a job, or null when it has none or is gone. */
async function currentSecrets(store: RekeyStore, jobType: JobType, id: string): Promise<SealedSecrets | null> {
  const job = jobType === 'schedule' ? await store.scheduleGet({ id }) : await store.cronGet({ id });
  return job?.secrets ?? null;
}
