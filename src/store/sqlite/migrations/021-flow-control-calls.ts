/** SQLite's migration that makes calls wait for their flow-control key (store/sql/flow-control.ts explains each change). */
import type { Migration } from './migration.js';
import { flowControlCallsSql } from '../../sql/flow-control.js';

export const MIGRATION: Migration = {
  version: 21,
  sql: flowControlCallsSql({ key: 'TEXT', ms: 'INTEGER', tableOptions: ' STRICT' }),
};
