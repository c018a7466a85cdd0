/** Version 4 of the PostgreSQL schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

/*
 * The request of a job's calls (docs/calls.md, "Method, headers and body"): `method`, `headers`
 * (a JSON object), `body` (text sent as it is, NULL: the JSON of `data`), and for target
 * authentication `auth` (its public part) and `secrets` (sealed texts). Existing jobs keep
 * their calls: POST, no headers, no body, no authentication. No CHECK on `method`, as in
 * SQLite: the service checks it. Each attempt records the method and URL it used; older
 * attempts were POSTs to a URL not kept (NULL). Constant defaults: no table is rewritten.
 */
export const MIGRATION: Migration = {
  version: 4,
  sql: `
ALTER TABLE schedules ADD COLUMN method text NOT NULL DEFAULT 'POST', ADD COLUMN headers json NOT NULL DEFAULT '{}',
  ADD COLUMN body text, ADD COLUMN auth json, ADD COLUMN secrets json;
ALTER TABLE cron_jobs ADD COLUMN method text NOT NULL DEFAULT 'POST', ADD COLUMN headers json NOT NULL DEFAULT '{}',
  ADD COLUMN body text, ADD COLUMN auth json, ADD COLUMN secrets json;
ALTER TABLE execution_attempts ADD COLUMN method text NOT NULL DEFAULT 'POST', ADD COLUMN url text;
`,
};
