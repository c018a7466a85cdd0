/**
 * The console's frame: sign-in gate, header with the main navigation, the status live region,
 * and the page for the current path. Moves the focus to the page's heading after each navigation
 * so keyboard and screen-reader users start at the new content.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { onUnauthorized, session } from './api';
import { announce, StatusArea } from './components/ui';
import { LOCAL_ZONE } from './format';
import { AuditPage } from './pages/audit';
import { ChannelsPage } from './pages/channels';
import { KeysPage } from './pages/keys';
import { CronDetailPage } from './pages/cron-detail';
import { CronFormPage } from './pages/cron-form';
import { CronHelperPage } from './pages/cron-helper';
import { CronListPage } from './pages/cron-list';
import { FailuresPage } from './pages/failures';
import { FlowControlPage } from './pages/flow-control';
import { OverviewPage } from './pages/overview';
import { ScheduleDetailPage } from './pages/schedule-detail';
import { ScheduleFormPage } from './pages/schedule-form';
import { ScheduleListPage } from './pages/schedule-list';
import { SignInPage } from './pages/sign-in';
import { Link, match, navigate, useLocation } from './router';

const NAV: Array<{ href: string; label: string; section: string }> = [
  { href: '/', label: 'Overview', section: '' },
  { href: '/schedules', label: 'Schedules', section: 'schedules' },
  { href: '/cron', label: 'Cron jobs', section: 'cron' },
  { href: '/failures', label: 'Failures', section: 'failures' },
  { href: '/flow-control', label: 'Flow control', section: 'flow-control' },
  { href: '/cron-helper', label: 'Cron helper', section: 'cron-helper' },
  { href: '/channels', label: 'Channels', section: 'channels' },
  { href: '/keys', label: 'Keys', section: 'keys' },
  { href: '/audit', label: 'Audit log', section: 'audit' },
];

function route(path: string): ComponentChildren {
  let p: Record<string, string> | null;
  if (path === '/') return <OverviewPage />;
  if (path === '/schedules') return <ScheduleListPage />;
  if (path === '/schedules/new') return <ScheduleFormPage />;
  if ((p = match('/schedules/:id/edit', path))) return <ScheduleFormPage id={p.id} />;
  if ((p = match('/schedules/:id', path))) return <ScheduleDetailPage id={p.id!} />;
  if (path === '/cron') return <CronListPage />;
  if (path === '/cron/new') return <CronFormPage />;
  if ((p = match('/cron/:id/edit', path))) return <CronFormPage id={p.id} />;
  if ((p = match('/cron/:id', path))) return <CronDetailPage id={p.id!} />;
  if (path === '/cron-helper') return <CronHelperPage />;
  if (path === '/failures') return <FailuresPage />;
  if (path === '/flow-control') return <FlowControlPage />;
  if (path === '/channels') return <ChannelsPage />;
  if (path === '/keys') return <KeysPage />;
  if (path === '/audit') return <AuditPage />;
  return <NotFound />;
}

function NotFound() {
  useEffect(() => {
    document.title = 'Not found · Punctual';
  }, []);
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is no such page in the console. <Link href="/">Go to the overview</Link>.
      </p>
    </>
  );
}

/** The whole app. */
export function App() {
  const loc = useLocation();
  const [token, setToken] = useState(session.get());
  const [signInNote, setSignInNote] = useState<string | null>(null);
  const first = useRef(true);

  useEffect(() => {
    onUnauthorized((problem) => {
      session.clear();
      setToken(null);
      setSignInNote(
        problem.status === 403
          ? 'This API key is disabled. Sign in with another key.'
          : 'The service no longer accepts this API key. Sign in again.',
      );
    });
  }, []);

  // After a navigation (not the first render), focus the new page's heading and scroll to the top.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    window.scrollTo(0, 0);
    const h1 = document.querySelector<HTMLElement>('main h1');
    h1?.focus();
  }, [loc.path, token]);

  if (!token) {
    return (
      <Shell signedIn={false} path={loc.path}>
        <SignInPage
          note={signInNote}
          onSignedIn={(t) => {
            session.set(t);
            setSignInNote(null);
            setToken(t);
            announce('Signed in.');
          }}
        />
      </Shell>
    );
  }

  return (
    <Shell
      signedIn
      path={loc.path}
      onSignOut={() => {
        session.clear();
        setToken(null);
        setSignInNote('You are signed out. The key was removed from this tab.');
        navigate('/', { replace: true });
      }}
    >
      {route(loc.path)}
    </Shell>
  );
}

function Shell({
  signedIn,
  path,
  onSignOut,
  children,
}: {
  signedIn: boolean;
  path: string;
  onSignOut?: () => void;
  children: ComponentChildren;
}) {
  const section = path.split('/')[1] ?? '';
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="container topbar-inner">
          <Link href="/" class="brand">
            <svg viewBox="0 0 32 32" width="24" height="24" aria-hidden="true">
              <circle cx="16" cy="16" r="14" fill="currentColor" />
              <path d="M16 8v8l5 4" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" />
            </svg>
            <span>Punctual</span>
          </Link>
          {signedIn && (
            <nav aria-label="Main" class="nav">
              <ul>
                {NAV.map((n) => (
                  <li key={n.href}>
                    <Link href={n.href} aria-current={section === n.section ? 'page' : undefined}>
                      {n.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {signedIn && (
            <button type="button" class="button button-quiet signout" onClick={onSignOut}>
              Sign out
            </button>
          )}
        </div>
      </header>
      <StatusArea />
      <main id="main" tabIndex={-1} class="container">
        {children}
      </main>
      <footer class="container footer">
        <p>
          Punctual console. Times are in your time zone, {LOCAL_ZONE} (hover one for UTC). The API key stays in this browser
          tab (sessionStorage) until you sign out or close the tab.
        </p>
      </footer>
    </>
  );
}
