/*
 * Columns described once for both databases and written in each one's types: a column is its
 * name, a portable type and what follows the type (NOT NULL, DEFAULT, CHECK). Each database's
 * migrations/migration.ts gives the names of the types ({@link columnWriters}); the groups of
 * columns that both databases' migrations add are in store/sql/job-columns.ts.
 */

/**
 * A portable column type: `text`; `json` (a JSON text); `integer` (a count or a small number);
 * `bigint` (epoch ms in UTC, durations in ms, and other numbers past 2^31).
 */
export type ColumnType = 'text' | 'json' | 'integer' | 'bigint';

/** One column: its name, its portable type and what follows the type (none: a nullable column). */
export type Column = readonly [name: string, type: ColumnType, constraint?: string];

/** Columns added to tables: table name -> its new columns, in the order they are added. */
export type AddedColumns = Readonly<Record<string, readonly Column[]>>;

/** The name of each portable type in one database's DDL, e.g. `bigint` -> `INTEGER` on SQLite. */
export type TypeNames = Readonly<Record<ColumnType, string>>;

/**
 * How the columns of one statement are laid out: `aligned` (the default), names and types padded
 * to the longest, or not; `nameWidth`, names padded to at least that many characters (a released
 * migration's own layout).
 */
export interface ColumnLayout {
  aligned?: boolean;
  nameWidth?: number;
}

/**
 * The text of each column, `name type constraint`: with `aligned`, names padded to the longest
 * name and types to the longest type, so that the types and constraints stand in columns; never
 * with trailing spaces.
 */
function columnTexts(columns: readonly Column[], types: TypeNames, { aligned = true, nameWidth: least = 0 }: ColumnLayout): string[] {
  const width = (texts: string[]) => (aligned ? Math.max(...texts.map((t) => t.length)) : 0);
  const nameWidth = Math.max(least, width(columns.map(([name]) => name)));
  const typeWidth = width(columns.map(([, type]) => types[type]));
  return columns.map(([name, type, constraint]) =>
    [name.padEnd(nameWidth), types[type].padEnd(typeWidth), constraint ?? ''].join(' ').trimEnd(),
  );
}

/** What one database writes from column descriptions: see {@link columnWriters}. */
export interface ColumnWriters {
  /**
   * One `ALTER TABLE <table> ADD COLUMN <column>;` line per column, tables in the given order,
   * laid out across all the lines of the call (lines joined by `\n`, no final newline).
   */
  addColumns(added: AddedColumns, layout?: ColumnLayout): string;
  /**
   * The columns as lines of a CREATE TABLE: two spaces, the aligned column, lines joined by
   * `,\n` (the caller writes the comma after the last one when more follow).
   */
  columnDefs(columns: readonly Column[], layout?: ColumnLayout): string;
}

/** The writers of column DDL in one database's type names. */
export function columnWriters(types: TypeNames): ColumnWriters {
  return {
    addColumns(added, layout = {}) {
      const rows = Object.entries(added).flatMap(([table, columns]) => columns.map((c) => [table, c] as const));
      const texts = columnTexts(rows.map(([, c]) => c), types, layout);
      return rows.map(([table], i) => `ALTER TABLE ${table} ADD COLUMN ${texts[i]!};`).join('\n');
    },
    columnDefs(columns, layout = {}) {
      return columnTexts(columns, types, layout).map((t) => `  ${t}`).join(',\n');
    },
  };
}
