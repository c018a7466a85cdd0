import type { JsonObject } from '../../domain/types.js';
import type { RowCodec } from '../rows/jobs.js';

/** Parses a JSON object column; `{}` when the column is NULL. */
export function objectFromColumn(text: string | null): JsonObject {
  return (text === null ? null : (JSON.parse(text) as JsonObject | null)) ?? {};
}

/**
 * How better-sqlite3 hands back the values that differ from the domain's (see store/rows/jobs.ts): JSON
 * columns as text (parsed here; NULL stays null), booleans as INTEGER 0/1.
 */
export const SQLITE_CODEC: RowCodec = {
  json: (v) => (v === null || v === undefined ? null : (JSON.parse(v as string) as unknown)),
  bool: (v) => v === 1,
  boolValue: (b) => (b ? 1 : 0),
};
