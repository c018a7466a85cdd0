/** PostgreSQL's migration of flow control (domain/flow-control.ts; store/contract/flow-control.ts). */
import { columnDefs, type Migration } from './migration.js';
import { FLOW_CONTROL_COLUMNS } from '../../sql/flow-control.js';

/*
 * One row per configured key: its name (byte order, as every key of the schema), then the
 * columns of store/sql/flow-control.ts (its limits, period, pause, hold, instants and revision).
 * A key named by jobs but never configured has no row.
 */
export const MIGRATION: Migration = {
  version: 19,
  sql: `
CREATE TABLE flow_control_keys (
  key         text COLLATE "C" NOT NULL PRIMARY KEY,
${columnDefs(FLOW_CONTROL_COLUMNS, { nameWidth: 11 })}
);
`,
};
