/**
 * Query parameters and answer fields shared by the job lists, `GET /schedules` and `GET /cron`
 * (docs/interface.md, "Lists"): keyset paging with an opaque cursor, the filters, and the page.
 */
import { FLOW_CONTROL_KEY_PATTERN } from '../../domain/flow-control.js';
import { Type, type TSchema } from 'typebox';
import { LIST_LIMIT_DEFAULT } from '../../service/job-lists.js';
import { LIST_LIMIT_MAX, LIST_LIMIT_MIN } from '../../service/rules.js';
import { PAGE_SCAN_MAX } from '../../store/rules/paging.js';
import { Nullable, RuleString, SizedList, StringEnum, TagQuery } from './common.js';
import { KeyQuery } from './job-identity.js';

/** `limit`: jobs per page, as decimal digits. */
export function ListLimitQuery(what: string) {
  return RuleString(
    'list-limit',
    `${what} per page, ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX.toLocaleString('en')} (default ${LIST_LIMIT_DEFAULT}).`,
  );
}

/** `cursor`: the previous page's `nextCursor`. */
export const ListCursorQuery = Type.String({
  minLength: 1,
  description:
    'The `nextCursor` of the previous page (opaque); absent for the first page. A page continues strictly after the previous ' +
    'one, so jobs created or deleted meanwhile never make one appear twice. A cursor this service did not make is a 400.',
});

/** `name`: a substring of the name. */
export function ListNameQuery(what: string) {
  return RuleString(
    'name-filter',
    `Only ${what} whose name contains this text: the letters A–Z match in either case, every other character only itself ` +
      '(no wildcards). Checked row by row: a page looks at ' +
      `${PAGE_SCAN_MAX.toLocaleString('en')} ${what} at most, so a page may hold fewer than \`limit\` (even none) while \`nextCursor\` goes on.`,
  );
}

/** Description of a list's `nextCursor`. */
export const LIST_NEXT_CURSOR_DESCRIPTION =
  'Pass as `cursor` to get the next page; null on the last page. (A page may be short, even empty, while this is not null: ' +
  'only null ends the list.)';

/** How the texts of a job list name its jobs, in lower case: e.g. `{ one: 'cron job', many: 'cron jobs' }`. */
export interface JobNouns {
  one: string;
  many: string;
}

/**
 * Query of a job list (GET /schedules, GET /cron): `limit`, `cursor`, and the filters `status` (one
 * of `statuses`), `tag` (repeatable), `name` (a substring), `key` (exact) and `flowControlKey` (exact). Numbers are digit
 * strings: query strings are not coerced.
 */
export function JobListQuery<const V extends readonly string[]>(statuses: V, nouns: JobNouns) {
  return Type.Object(
    {
      limit: Type.Optional(ListLimitQuery(nouns.many.charAt(0).toUpperCase() + nouns.many.slice(1))),
      cursor: Type.Optional(ListCursorQuery),
      status: Type.Optional(StringEnum(statuses, `Only ${nouns.many} in this status.`)),
      tag: Type.Optional(TagQuery(nouns.many)),
      name: Type.Optional(ListNameQuery(nouns.many)),
      key: Type.Optional(KeyQuery(nouns.one)),
      flowControlKey: Type.Optional(
        Type.String({ pattern: FLOW_CONTROL_KEY_PATTERN, description: `Only ${nouns.many} whose calls count against this flow-control key (exact).` }),
      ),
    },
    { additionalProperties: false },
  );
}

/** Description of `nextCursor` in a page that is never short but on the last (the audit log, the executions). */
const PAGE_NEXT_CURSOR_DESCRIPTION = 'Pass as `cursor` to get the next page; null on the last page.';

/**
 * A page of a list paged by cursor: `size`, the items of the page under `key` (described by
 * `itemsDescription`) and `nextCursor`, a string or null (described by `nextCursorDescription`);
 * `options` give the schema's title and description.
 */
export function CursorPageSchema<K extends string, T extends TSchema>(
  key: K,
  item: T,
  itemsDescription: string,
  options: { title: string; description: string },
  nextCursorDescription = PAGE_NEXT_CURSOR_DESCRIPTION,
) {
  return SizedList(key, item, itemsDescription, options, { nextCursor: Nullable(Type.String({ description: nextCursorDescription })) });
}

/**
 * A page of a job list: `size`, the jobs of the page under `key` (oldest first) and `nextCursor`;
 * `title` names the schema in the OpenAPI document, `many` names the jobs in its texts.
 */
function JobPageSchema<K extends string, T extends TSchema>(key: K, item: T, many: string, title: string) {
  return CursorPageSchema(
    key,
    item,
    `The ${many} of this page, oldest first (by \`createdAt\`, then id).`,
    { title, description: `A page of ${many}.` },
    LIST_NEXT_CURSOR_DESCRIPTION,
  );
}

/** What one kind's job list is made of (GET /schedules, GET /cron): its schemas and the names of its jobs. */
export interface JobListSchemas<K extends string, Q extends TSchema = TSchema, P extends TSchema = TSchema> {
  /** The field of a page that holds the jobs, e.g. `cronJobs`. */
  key: K;
  /** How the texts of the list name its jobs. */
  nouns: JobNouns;
  /** The query ({@link JobListQuery}). */
  query: Q;
  /** The page, `title`d in the OpenAPI document. */
  page: P;
}

/**
 * The job list of a kind whose jobs are `item`s with the `statuses`, named by `nouns`: the query
 * ({@link JobListQuery}) and the page, its jobs under `key` and its schema titled `title`.
 */
export function jobListSchemas<const K extends string, T extends TSchema, const V extends readonly string[]>(
  key: K,
  item: T,
  statuses: V,
  nouns: JobNouns,
  title: string,
) {
  return { key, nouns, query: JobListQuery(statuses, nouns), page: JobPageSchema(key, item, nouns.many, title) };
}
