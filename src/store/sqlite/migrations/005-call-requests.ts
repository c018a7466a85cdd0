/** Version 5 of the SQLite schema (the conventions are in index.ts). */
import { addColumns, type Migration } from './migration.js';
import { CALL_REQUEST } from '../../sql/job-columns.js';

/*
 * The request of a job's calls (docs/calls.md, "Method, headers and body"): `method`, `headers`
 * (a JSON object), `body` (text sent as it is, NULL: the JSON of `data`), and for target
 * authentication `auth` (its public part, JSON) and `secrets` (sealed texts, JSON). Existing
 * jobs keep their calls: POST, no headers, no body, no authentication. No CHECK on `method`:
 * the service checks it, and a later method would otherwise rebuild the tables. Each attempt
 * records the method and URL it used; older attempts were POSTs to a URL not kept (NULL).
 */
export const MIGRATION: Migration = {
  version: 5,
  sql: `
${addColumns({ schedules: CALL_REQUEST, cron_jobs: CALL_REQUEST })}
ALTER TABLE execution_attempts ADD COLUMN method TEXT NOT NULL DEFAULT 'POST';
ALTER TABLE execution_attempts ADD COLUMN url    TEXT;
`,
};
