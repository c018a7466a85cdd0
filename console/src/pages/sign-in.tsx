/** Sign in with an API key, checked with GET /schedules before it is kept (sessionStorage). */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, verifyKey } from '../api';
import { Field } from '../components/ui';

export function SignInPage({ note, onSignedIn }: { note: string | null; onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Sign in · Punctual';
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const t = token.trim();
    if (!t) {
      setError('Enter an API key.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await verifyKey(t);
      onSignedIn(t);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError('This API key was not accepted. Check it and try again.');
      else if (err instanceof ApiError && err.status === 403) setError('This API key is disabled.');
      else if (err instanceof ApiError) setError(err.problem.detail || err.problem.title);
      else setError(String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="signin">
      <h1 tabIndex={-1}>Sign in to Punctual</h1>
      {note && (
        <p class="notice" role="status">
          {note}
        </p>
      )}
      <form onSubmit={submit} class="card form" noValidate>
        <Field
          name="token"
          label="API key"
          error={error}
          hint={
            <>
              A key's token (<code>pk_…</code>), e.g. from <code>npx punctual keys create admin</code>. It is kept in this
              tab only, until you sign out or close the tab.
            </>
          }
        >
          {(attrs) => (
            <input
              {...attrs}
              type="password"
              autocomplete="off"
              spellcheck={false}
              value={token}
              onInput={(e) => setToken(e.currentTarget.value)}
            />
          )}
        </Field>
        <div class="actions">
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </div>
      </form>
    </div>
  );
}
