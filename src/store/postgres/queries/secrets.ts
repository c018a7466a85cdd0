import { jsonText, PASS_THROUGH } from '../../rows/jobs.js';
import { JOB_TABLES, sameSealedSecrets, secretsEntryFromRow, secretsNewestSql, secretsPageBinding, secretsPageSql, storedSecrets, type SecretsRow } from '../../sql/secrets.js';
import type { JobSecretsEntry, SecretsPageParams, SecretsReplaceParams } from '../../contract/secrets.js';
import type { PgContext, Sql } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** `$n` and its cast for each parameter of the page statement (store/sql/secrets.ts). */
const PAGE_PARAMS = { schedulesAfter: '$1::text', cronAfter: '$2::text', limit: '$3::int' } as const;
const PAGE_SQL = secretsPageSql((name) => PAGE_PARAMS[name]);
const NEWEST_SQL = secretsNewestSql();

/** The `secrets` column of both job tables (store/contract/secrets.ts). */
export const secrets = {
  /** See `Store.secretsPage`: one read statement. */
  async page(sql: Sql, p: SecretsPageParams): Promise<JobSecretsEntry[]> {
    const b = secretsPageBinding(p);
    const rows = await sql.rows<SecretsRow>(PAGE_SQL, [b.schedulesAfter, b.cronAfter, b.limit], 'punctual_secrets_page');
    return rows.map((r) => secretsEntryFromRow(PASS_THROUGH, r));
  },

  /** See `Store.secretsNewest`: one read statement. */
  async newest(sql: Sql): Promise<JobSecretsEntry[]> {
    const rows = await sql.rows<SecretsRow>(NEWEST_SQL, [], 'punctual_secrets_newest');
    return rows.map((r) => secretsEntryFromRow(PASS_THROUGH, r));
  },

  /**
   * See `Store.secretsReplace`. Run in a transaction (`Database.tx`): the row is locked
   * (`FOR UPDATE`) from the read to the write, so a concurrent PATCH waits or wins.
   */
  async replace(sql: Sql, p: SecretsReplaceParams): Promise<boolean> {
    const table = JOB_TABLES[p.jobType];
    const [row] = await sql.rows<{ secrets: unknown }>(`SELECT secrets FROM ${table} WHERE id = $1 FOR UPDATE`, [p.id]);
    if (!sameSealedSecrets(storedSecrets(PASS_THROUGH, row?.secrets), p.expected)) return false;
    await sql.count(`UPDATE ${table} SET secrets = $2::json WHERE id = $1`, [p.id, jsonText(p.secrets)]);
    return true;
  },
};

/** The store operations of job secrets (store/sql-store.ts). */
export const secretsOperations = {
  secretsPage: (c, p) => secrets.page(c.sql, p),
  secretsReplace: (c, p) => c.tx((sql) => secrets.replace(sql, p)),
  secretsNewest: (c) => secrets.newest(c.sql),
} satisfies Partial<Operations<PgContext>>;
