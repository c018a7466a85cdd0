/**
 * The route of a job list, GET /schedules or GET /cron (docs/interface.md, "Lists"): the same
 * query, paging and filters for both kinds, and the same texts but for the name of the jobs.
 */
import type { JobListSchemas } from '../schemas/lists.js';
import type { JobServiceContext } from '../../service/context.js';
import type { JobListInput } from '../../service/job-lists.js';
import type { TagName } from '../schemas/operations.js';
import { pageReply, queryNumber, readSchema, type App } from './operations.js';
import { repeatable } from './query.js';

/** A job list's query string as its schema (`JobListQuery`) lets it through, `tag` made an array. */
interface JobListQueryString<S extends string> {
  limit?: string;
  cursor?: string;
  status?: S;
  tag?: string[];
  name?: string;
  key?: string;
  flowControlKey?: string;
}

/** What sets one job list apart from the other. */
export interface JobListRoute<S extends string, K extends string, J> {
  /** E.g. `'/cron'`. */
  path: string;
  operationId: string;
  tags: TagName[];
  /** The list's schemas (`jobListSchemas` of schemas/lists.ts): its query, its page, its jobs under `key`, their names. */
  schemas: JobListSchemas<K>;
  /**
   * The service's list function, reading a page.
   * @param pathPrefix prefixed to the field paths of the problems it throws (`/query`)
   * @throws InvalidInputError for a faulty parameter
   */
  list: (ctx: JobServiceContext, input: JobListInput<S>, pathPrefix: string) => Promise<{ nextCursor: string | null } & Record<K, J[]>>;
  /** The wire form of a job. */
  toWire: (job: J) => unknown;
}

/**
 * Registers GET `route.path`: a page of jobs, oldest first, `limit` at a time, filtered by `status`,
 * `tag` (repeatable: every tag must match), `name` (a substring), `key` and `flowControlKey` (exact); 200 with
 * `{ size, [key]: jobs, nextCursor }`, 400 naming the faulty query parameter.
 */
export function jobListRoute<S extends string, K extends string, J>(app: App, ctx: JobServiceContext, route: JobListRoute<S, K, J>): void {
  const { schemas } = route;
  const jobs = schemas.nouns.many;
  const text = {
    operationId: route.operationId,
    scope: 'jobs:read' as const,
    tags: route.tags,
    summary: `List ${jobs}`,
    description:
      `A page of ${jobs}, oldest first (by \`createdAt\`, then id), \`limit\` at a time; pass \`nextCursor\` as \`cursor\` for ` +
      'the next page (null on the last one). Filters combine: `status`, `tag` (repeatable: every tag must match), ' +
      '`name` (a substring), `key` (exact) and `flowControlKey` (exact). `size` is the length of this page.',
  };
  app.get(
    route.path,
    {
      schema: readSchema(text, schemas.query, `A page of ${jobs}.`, schemas.page),
      // `?tag=a` parses to a string and `?tag=a&tag=b` to an array: always an array for the schema.
      preValidation: async (req) => repeatable(req.query as Record<string, unknown>, 'tag'),
    },
    async (req) => {
      const { limit, cursor, status, tag, name, key, flowControlKey } = req.query as JobListQueryString<S>;
      const page = await route.list(ctx, { limit: queryNumber(limit), cursor, status, tag, name, key, flowControlKey }, '/query');
      return pageReply(schemas.key, page, route.toWire);
    },
  );
}
