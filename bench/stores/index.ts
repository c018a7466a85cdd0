/** The stores `--store` can name. Issue #4 registers `postgres` here. */
import { sqliteStore } from './sqlite.js';
import type { BenchStore } from './store.js';

export const STORES: Record<string, BenchStore> = {
  sqlite: sqliteStore,
};
