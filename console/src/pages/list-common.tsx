/** What the two job lists share: filters kept in the URL, cursor paging, the pager. */
import { useEffect, useState } from 'preact/hooks';
import type { ListQuery, Page } from '../api';
import { errorText } from '../components/ui';
import { navigate } from '../router';

export const PAGE_SIZES = [25, 50, 100];

/** Filters of a list as read from and written to the page's query string. */
export interface Filters {
  name: string;
  status: string;
  tag: string;
  limit: number;
}

export function filtersFrom(query: URLSearchParams): Filters {
  const limit = Number(query.get('limit'));
  return {
    name: query.get('name') ?? '',
    status: query.get('status') ?? '',
    tag: query.get('tag') ?? '',
    limit: PAGE_SIZES.includes(limit) ? limit : PAGE_SIZES[0]!,
  };
}

/** Writes `f` to the URL of `path` (replacing the entry: filtering is not a new page). */
export function applyFilters(path: string, f: Filters): void {
  const p = new URLSearchParams();
  if (f.name) p.set('name', f.name);
  if (f.status) p.set('status', f.status);
  if (f.tag) p.set('tag', f.tag);
  if (f.limit !== PAGE_SIZES[0]) p.set('limit', String(f.limit));
  const qs = p.toString();
  navigate(qs ? `${path}?${qs}` : path, { replace: true });
}

/** Tags typed as `a, b c` → `['a', 'b', 'c']`. */
export function splitTags(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter(Boolean);
}

export interface PagedList<T> {
  items: T[] | null;
  error: string | null;
  loading: boolean;
  pageNumber: number;
  hasNext: boolean;
  next(): void;
  previous(): void;
  reload(): void;
}

/**
 * One page of a list at a time for `filters`: the cursors of the pages seen are kept, so
 * "Previous" goes back without the API paging backwards.
 */
export function usePagedList<T>(fetchPage: (q: ListQuery) => Promise<Page<T>>, filters: Filters): PagedList<T> {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [page, setPage] = useState<Page<T> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [reloads, setReloads] = useState(0);
  const key = JSON.stringify(filters);

  useEffect(() => setCursors([null]), [key]);

  const cursor = cursors[cursors.length - 1] ?? null;
  useEffect(() => {
    let alive = true;
    setLoading(true);
    fetchPage({
      limit: filters.limit,
      cursor,
      name: filters.name || undefined,
      status: filters.status || undefined,
      tag: splitTags(filters.tag),
    })
      .then((p) => {
        if (!alive) return;
        setPage(p);
        setError(null);
      })
      .catch((err) => alive && setError(errorText(err)))
      .finally(() => alive && setLoading(false));
    return () => {
      alive = false;
    };
  }, [key, cursor, reloads]);

  return {
    items: page?.items ?? null,
    error,
    loading,
    pageNumber: cursors.length,
    hasNext: Boolean(page?.nextCursor),
    next: () => page?.nextCursor && setCursors((c) => [...c, page.nextCursor]),
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
    reload: () => setReloads((n) => n + 1),
  };
}

/** "Previous · Page n · Next" as real buttons, with the page announced politely. */
export function Pager({ list, label }: { list: PagedList<unknown>; label: string }) {
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" class="button" onClick={list.previous} disabled={list.pageNumber <= 1 || list.loading}>
        ← Previous
      </button>
      <span aria-live="polite">Page {list.pageNumber}</span>
      <button type="button" class="button" onClick={list.next} disabled={!list.hasNext || list.loading}>
        Next →
      </button>
    </nav>
  );
}

/** The filter form of a list: name, status, optionally tags, page size. Applies on submit. */
export function FilterForm({
  path,
  filters,
  statuses,
  withTags,
  label,
}: {
  path: string;
  filters: Filters;
  statuses: readonly string[];
  withTags: boolean;
  label: string;
}) {
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [JSON.stringify(filters)]);
  const set = (k: keyof Filters) => (e: Event) => {
    const v = (e.currentTarget as HTMLInputElement).value;
    setDraft((d) => ({ ...d, [k]: k === 'limit' ? Number(v) : v }));
  };
  const submit = (e: Event) => {
    e.preventDefault();
    applyFilters(path, draft);
  };
  const any = filters.name || filters.status || filters.tag;
  return (
    <form class="filters" role="search" aria-label={`Filter ${label}`} onSubmit={submit}>
      <div class="field">
        <label for="flt-name">Name contains</label>
        <input id="flt-name" type="search" value={draft.name} onInput={set('name')} />
      </div>
      <div class="field">
        <label for="flt-status">Status</label>
        <select id="flt-status" value={draft.status} onChange={set('status')}>
          <option value="">Any</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      {withTags && (
        <div class="field">
          <label for="flt-tag">Tags (all of)</label>
          <input id="flt-tag" type="text" value={draft.tag} onInput={set('tag')} placeholder="billing, eu" />
        </div>
      )}
      <div class="field">
        <label for="flt-limit">Per page</label>
        <select id="flt-limit" value={String(draft.limit)} onChange={set('limit')}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={String(n)}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <div class="filter-actions">
        <button type="submit" class="button">
          Apply
        </button>
        {any && (
          <button type="button" class="button button-quiet" onClick={() => applyFilters(path, { ...filters, name: '', status: '', tag: '' })}>
            Clear
          </button>
        )}
      </div>
    </form>
  );
}
