/**
 * The roles of a `punctual serve` process, apart from the rest of the configuration so that the
 * `punctual` command can list them without loading config.ts and what it imports.
 */

/**
 * What a `punctual serve` process does: `all` serves the HTTP API and dispatches;
 * `api` serves the HTTP API only; `dispatcher` dispatches (and prunes) and serves only the
 * probes `GET /healthz` and `GET /readyz`. `api` and `dispatcher` need a store shared by several
 * nodes (PostgreSQL).
 */
export const ROLES = ['all', 'api', 'dispatcher'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Parses a role name (`PUNCTUAL_ROLE`, `serve --role`).
 * @returns the role, or null when `text` names none
 */
export function parseRole(text: string): Role | null {
  const role = text.trim().toLowerCase();
  return (ROLES as readonly string[]).includes(role) ? (role as Role) : null;
}
