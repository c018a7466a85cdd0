import type { JsonObject } from '../../domain/types.js';

/** Parses a JSON object column; `{}` when the column is NULL. */
export function objectFromColumn(text: string | null): JsonObject {
  return (text === null ? null : (JSON.parse(text) as JsonObject | null)) ?? {};
}

/** Parses a nullable JSON object column, keeping NULL as null. */
export function nullableObjectFromColumn(text: string | null): JsonObject | null {
  return text === null ? null : (JSON.parse(text) as JsonObject);
}

/** Parses a JSON array-of-strings column; `[]` when the column is NULL. */
export function stringsFromColumn(text: string | null): string[] {
  return (text === null ? null : (JSON.parse(text) as string[] | null)) ?? [];
}
