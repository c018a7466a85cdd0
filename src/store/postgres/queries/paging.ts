/**
 * Page scans of the job lists in PostgreSQL (the shared rules are in ../paging.ts).
 * A page is ONE statement, so it sees one snapshot and costs one round trip:
 *
 *   hits  the driver index read in list order from the cursor, at most `PAGE_SCAN_MAX` entries
 *         (`LIMIT $3`), each row (read through the driver index, or by primary key from a tag's
 *         entry) checked against the other filters, until `limit + 1` match (`LIMIT $4 + 1`).
 *         Limit nodes pull rows lazily, so a page that fills early stops early.
 *   tail  only when the hits did not fill the page (a one-time filter, evaluated once): the
 *         `PAGE_SCAN_MAX`th driver entry, if there is one. Then the scan stopped at its bound and
 *         the next page continues after that entry (an index-only walk of at most
 *         `PAGE_SCAN_MAX` entries; OFFSET within one page's bounded scan, never across pages).
 *
 * The answer is one row per hit with the tail's position on each, or one row without a hit when
 * there is none. Parameters: `$1` position instant, `$2` position id, `$3` scan bound, `$4` page
 * size, then those of the filters. Statements are unnamed (planned with their values): a
 * generic plan cannot know how small `$3` and `$4` are.
 */
import { cutPage, jobPageBounds, pageTags, type JobTable, type ListPosition } from '../../rules/paging.js';
import type { JobPageParams } from '../../store.js';

/** What a page statement answers: a hit's columns (null without one) and the tail's position. */
export type PageRow<R> = { [K in keyof R]: R[K] | null } & {
  k_at: number | null;
  k_id: string | null;
  tail_at: number | null;
  tail_id: string | null;
};

/**
 * The SQL of a page.
 * @param p.hits the hits: a SELECT of the row's columns plus `k_at`, `k_id` (its list position)
 *   from the driver read in list order with `LIMIT $3`, filtered row by row, ordered by position,
 *   `LIMIT $4 + 1`
 * @param p.driver `FROM … WHERE …` of the driver (the same rows as in `hits`, before `LIMIT $3`)
 * @param p.order the driver's key columns, in list order (`created_at, id`)
 */
export function pageSql(p: { hits: string; driver: string; order: string }): string {
  return `WITH hits AS (
  ${p.hits}
), tail AS (
  SELECT ${p.order.replace(/, (\w+)$/, ', $1 AS id')} ${p.driver} AND (SELECT count(*) FROM hits) <= $4
  ORDER BY ${p.order} OFFSET $3 - 1 LIMIT 1
)
SELECT tail.created_at AS tail_at, tail.id AS tail_id, hits.*
  FROM (VALUES (1)) AS one (x) LEFT JOIN tail ON true LEFT JOIN hits ON true
 ORDER BY hits.k_at, hits.k_id`;
}

/**
 * Cuts the page from a page statement's answer (`cutPage`).
 * @returns the hits' rows (with `k_at`, `k_id`, `tail_*` still on them) and the next cursor
 */
export function pageOf<R>(answer: PageRow<R>[], limit: number): { rows: R[]; nextCursor: string | null } {
  const hits = answer.filter((r) => r.k_id !== null) as unknown as (R & { k_at: number; k_id: string })[];
  const first = answer[0];
  const scanEnd: ListPosition | null =
    first && first.tail_id !== null && first.tail_at !== null ? { at: first.tail_at, id: first.tail_id } : null;
  return cutPage(hits, limit, (r) => ({ at: r.k_at, id: r.k_id }), scanEnd);
}

/**
 * The SQL that folds a name as `foldNameNeedle` does: A–Z to a–z and nothing else, whatever the
 * database's locale (`lower()` would follow it, `ILIKE` too).
 */
export function foldNameSql(column: string): string {
  return `translate(${column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
}

/** The driver condition "after the cursor" in list order (`$1` instant, `$2` id). */
const AFTER = '(created_at, id) > ($1::bigint, $2::text)';

/**
 * The page statements of a job table driven by itself: over every row (`<table>_by_created`), or
 * over one status (`<table>_<status>_by_created`). A status is written into its statement: the
 * planner uses a partial index only for a condition it can see.
 * @param hits the hits' SELECT for a driver condition (see {@link pageSql} `p.hits`)
 */
export function tablePageSql<S extends string>(
  table: string,
  statuses: readonly S[],
  hits: (where: string) => string,
): { all: string; status: Record<S, string> } {
  const page = (where: string) => pageSql({ hits: hits(where), driver: `FROM ${table} WHERE ${where}`, order: 'created_at, id' });
  return {
    all: page(AFTER),
    status: Object.fromEntries(statuses.map((st) => [st, page(`status = '${st}' AND ${AFTER}`)])) as Record<S, string>,
  };
}

/** The driver condition "one tag, after the cursor" in a tag table (`$9` the tag). */
const tagAfter = (t: JobTable) => `tag = $9::text AND (created_at, ${t.tagJob}) > ($1::bigint, $2::text)`;

/**
 * The page statements of a kind of job (migration 2): driven by every row (`<table>_by_created`),
 * one status (`<table>_<status>_by_created`) or one tag (the tag table, `$9`). Checked row by
 * row: the status (`$5`), the name (`$6`, folded; a null name never matches), the other tags
 * (`$7`, each a primary-key lookup in the tag table), the flow-control key (`$8`). Null parameters are not checked.
 * @param row how a hit is read: `alias` of the job row, `select` its columns (as `<alias>.`, plus
 *   any of `join`), `join` what is joined to it once filtered (or '')
 */
export function jobPageSql<S extends string>(
  t: JobTable,
  statuses: readonly S[],
  row: { alias: string; select: string; join: string },
): { all: string; status: Record<S, string>; tag: string; key: string } {
  const a = row.alias;
  const filter = `($5::text IS NULL OR ${a}.status = $5::text)
     AND ($6::text IS NULL OR strpos(${foldNameSql(`${a}.name`)}, $6::text) > 0)
     AND ($8::text IS NULL OR ${a}.flow_control_key = $8::text)
     AND ($7::text[] IS NULL OR NOT EXISTS (
           SELECT 1 FROM unnest($7::text[]) AS u (tag)
            WHERE NOT EXISTS (SELECT 1 FROM ${t.tagTable} x
                               WHERE x.tag = u.tag AND x.created_at = ${a}.created_at AND x.${t.tagJob} = ${a}.id)))`;
  const tableHits = (where: string) =>
    `SELECT ${row.select}, ${a}.created_at AS k_at, ${a}.id AS k_id
       FROM (SELECT * FROM ${t.table} WHERE ${where} ORDER BY created_at, id LIMIT $3) AS ${a} ${row.join}
      WHERE ${filter}
      ORDER BY ${a}.created_at, ${a}.id LIMIT $4 + 1`;
  return {
    ...tablePageSql(t.table, statuses, tableHits),
    key: keyPageSql(t.table, '$9', tableHits),
    tag: pageSql({
      hits: `SELECT ${row.select}, k.created_at AS k_at, k.${t.tagJob} AS k_id
               FROM (SELECT created_at, ${t.tagJob} FROM ${t.tagTable} WHERE ${tagAfter(t)}
                      ORDER BY created_at, ${t.tagJob} LIMIT $3) AS k
               JOIN ${t.table} ${a} ON ${a}.id = k.${t.tagJob} ${row.join}
              WHERE ${filter}
              ORDER BY k.created_at, k.${t.tagJob} LIMIT $4 + 1`,
      driver: `FROM ${t.tagTable} WHERE ${tagAfter(t)}`,
      order: `created_at, ${t.tagJob}`,
    }),
  };
}

/**
 * The statement and values of a page (`Store.schedulePage`, `Store.cronPage`) from
 * {@link jobPageSql}'s statements: driven by the key (`$9`), else the first tag (`$9`), else the
 * status, else every job.
 * @throws InvalidInputError (path `/query/cursor`) for a cursor the store did not make
 */
export function jobPageQuery<S extends string>(
  sql: { all: string; status: Record<S, string>; tag: string; key: string },
  p: JobPageParams<S>,
): { text: string; values: unknown[]; limit: number } {
  const b = jobPageBounds(p);
  const key = p.key ?? null;
  const tags = pageTags(p.tags, key);
  const values: unknown[] = [b.at, b.id, b.scan, b.limit, p.status, b.name, tags.others, p.flowControlKey ?? null];
  // An unknown status (not from the API, which checks) has no index: the scan over every job
  // then finds nothing, within its bound.
  let text = (p.status === null ? undefined : sql.status[p.status]) ?? sql.all;
  if (key !== null) {
    text = sql.key;
    values.push(key);
  } else if (tags.driver !== null) {
    text = sql.tag;
    values.push(tags.driver);
  }
  return { text, values, limit: b.limit };
}

/**
 * The page statement of a job table driven by one key (its unique index `<table>_by_key`,
 * ../job-keys.ts: at most one row).
 * @param keyParam the key's parameter, e.g. `$9`
 * @param hits the hits' SELECT for a driver condition (see {@link pageSql} `p.hits`)
 */
export function keyPageSql(table: string, keyParam: string, hits: (where: string) => string): string {
  const where = `key = ${keyParam}::text AND ${AFTER}`;
  return pageSql({ hits: hits(where), driver: `FROM ${table} WHERE ${where}`, order: 'created_at, id' });
}
