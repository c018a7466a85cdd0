import type { JobType } from '../../../domain/types.js';
import { jsonText } from '../../rows/jobs.js';
import { JOB_TABLES, sameSealedSecrets, secretsEntryFromRow, secretsNewestSql, secretsPageBinding, secretsPageSql, storedSecrets, type SecretsRow } from '../../sql/secrets.js';
import type { JobSecretsEntry, SecretsPageParams, SecretsReplaceParams } from '../../contract/secrets.js';
import type { Db } from '../connection.js';
import { SQLITE_CODEC } from '../connection.js';
import type { Operations } from '../../sql-store.js';

type ByJobType<T> = Record<JobType, T>;

/** The `secrets` column of both job tables (store/contract/secrets.ts): statements prepared once. */
export class SecretsQueries {
  private readonly page;
  private readonly newest;
  private readonly read: ByJobType<ReturnType<typeof readStatement>>;
  private readonly write: ByJobType<ReturnType<typeof writeStatement>>;
  private readonly replaceTx;

  constructor(db: Db) {
    this.page = db.prepare<[object], SecretsRow>(secretsPageSql((name) => `:${name}`));
    this.newest = db.prepare<[], SecretsRow>(secretsNewestSql());
    this.read = { schedule: readStatement(db, 'schedule'), cron: readStatement(db, 'cron') };
    this.write = { schedule: writeStatement(db, 'schedule'), cron: writeStatement(db, 'cron') };
    this.replaceTx = db.transaction((p: SecretsReplaceParams): boolean => {
      const stored = storedSecrets(SQLITE_CODEC, this.read[p.jobType].get(p.id)?.secrets);
      if (!sameSealedSecrets(stored, p.expected)) return false;
      this.write[p.jobType].run(jsonText(p.secrets), p.id);
      return true;
    });
  }

  /** See `Store.secretsPage`: one read statement. */
  secretsPage(p: SecretsPageParams): JobSecretsEntry[] {
    return this.page.all(secretsPageBinding(p)).map((r) => secretsEntryFromRow(SQLITE_CODEC, r));
  }

  /** See `Store.secretsNewest`: one read statement. */
  secretsNewest(): JobSecretsEntry[] {
    return this.newest.all().map((r) => secretsEntryFromRow(SQLITE_CODEC, r));
  }

  /** See `Store.secretsReplace`: an IMMEDIATE transaction of one read and one write by primary key. */
  secretsReplace(p: SecretsReplaceParams): boolean {
    return this.replaceTx.immediate(p);
  }
}

function readStatement(db: Db, type: JobType) {
  return db.prepare<[string], { secrets: string | null }>(`SELECT secrets FROM ${JOB_TABLES[type]} WHERE id = ?`);
}

function writeStatement(db: Db, type: JobType) {
  return db.prepare<[string | null, string]>(`UPDATE ${JOB_TABLES[type]} SET secrets = ? WHERE id = ?`);
}

/** The store operations of job secrets (../../sql-store.ts), on the statements of SecretsQueries. */
export const secretsOperations = {
  secretsPage: (q, p) => q.secrets.secretsPage(p),
  secretsReplace: (q, p) => q.secrets.secretsReplace(p),
  secretsNewest: (q) => q.secrets.secretsNewest(),
} satisfies Partial<Operations<{ secrets: SecretsQueries }>>;
