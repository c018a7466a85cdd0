/**
 * A small history-API router under `/console` (the service answers index.html for any page path,
 * src/http/console.ts). Paths inside the app are written without the base: `/schedules/…`.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Where the app is served (Vite's `base` without the trailing slash). */
export const BASE = '/console';

/** The current path inside the app (`/`, `/schedules/…`) and its query. */
export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  let path = window.location.pathname;
  if (path.startsWith(BASE)) path = path.slice(BASE.length);
  if (path === '') path = '/';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return { path, query: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();

/** Goes to `to` (an app path such as `/cron/<id>`, with an optional query). */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = BASE + (to.startsWith('/') ? to : `/${to}`);
  if (opts.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const l of listeners) l();
}

window.addEventListener('popstate', () => {
  for (const l of listeners) l();
});

/** The current location; re-renders on navigation. */
export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return loc;
}

/** `pattern` such as `/schedules/:id` against `path`; the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('/');
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    const seg = s[i]!;
    if (part.startsWith(':')) {
      if (!seg) return null;
      params[part.slice(1)] = decodeURIComponent(seg);
    } else if (part !== seg) return null;
  }
  return params;
}

interface LinkProps {
  /** An app path, e.g. `/cron/<id>`. */
  href: string;
  class?: string;
  'aria-current'?: 'page';
  children?: ComponentChildren;
}

/** A real link (works with middle-click and "open in new tab") that navigates in place on a plain click. */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={BASE + href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
