/**
 * The stores `--store` can name: the embedded SQLite store, and PostgreSQL (docs/benchmarks.md).
 */
import { postgresStore } from './postgres.js';
import { sqliteStore } from './sqlite.js';
import type { BenchStore } from './store.js';

export const STORES: Record<string, BenchStore> = {
  sqlite: sqliteStore,
  postgres: postgresStore,
};
