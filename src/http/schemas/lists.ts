/**
 * Query parameters and answer fields shared by the job lists, `GET /schedules` and `GET /cron`
 * (docs/interface.md, "Lists"): keyset paging with an opaque cursor, and the name filter.
 */
import { Type } from 'typebox';
import { LIST_LIMIT_DEFAULT } from '../../service/job-lists.js';
import { LIST_LIMIT_MAX, LIST_LIMIT_MIN } from '../../service/rules.js';
import { PAGE_SCAN_MAX } from '../../store/rules/paging.js';
import { RuleString } from './common.js';

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
