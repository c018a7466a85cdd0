/** SQLite's migration of flow control (domain/flow-control.ts; store/contract/flow-control.ts). */
import { columnDefs, type Migration } from './migration.js';
import { FLOW_CONTROL_COLUMNS } from '../../sql/flow-control.js';

/*
 * One row per configured key: its name, then the columns of store/sql/flow-control.ts (its
 * limits, period, pause, hold, instants and revision). A key named by jobs but never configured
 * has no row.
 */
export const MIGRATION: Migration = {
  version: 20,
  sql: `
CREATE TABLE flow_control_keys (
  key         TEXT    NOT NULL PRIMARY KEY,
${columnDefs(FLOW_CONTROL_COLUMNS, { nameWidth: 11 })}
) STRICT;
`,
};
