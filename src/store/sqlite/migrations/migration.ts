/** One numbered schema change. Versions start at 1, increase by 1, and are never edited once released. */
export interface Migration {
  version: number;
  /** Statements run in the migration's transaction. */
  sql: string;
}
