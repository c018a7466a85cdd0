/** A job's request as it will be sent (secrets masked), "copy as curl", and its signing secret. */
import { useState } from 'preact/hooks';
import { newSigningSecret, type JobType } from '../api';
import { curlCommand, maskedHeaderLines, requestBody, type RequestView } from '../curl';
import { announce, ConfirmButton, errorText } from './ui';

/** Copies `text`; false when the browser refuses (no clipboard permission, not a secure context). */
async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** The request card of a job's page. */
export function RequestCard({ request }: { request: RequestView }) {
  const body = requestBody(request);
  const curl = curlCommand(request);
  const copyCurl = async () => {
    if (await copy(curl)) announce('Copied as curl: set the variables of its secrets before running it.');
    else announce('Could not copy: select the command below and copy it.', 'error');
  };
  return (
    <section class="card" aria-labelledby="request-title">
      <div class="page-head">
        <h2 id="request-title">Request</h2>
        <button type="button" class="button" onClick={copyCurl}>
          Copy as curl
        </button>
      </div>
      <pre class="request" data-testid="request">
        <span class="request-line">
          {request.method} {request.endpoint}
        </span>
        {body && `\nContent-Type: ${body.contentType}`}
        {maskedHeaderLines(request).map((h) => (
          <span key={h.name} class={h.secret ? 'secret' : undefined}>
            {`\n${h.name}: ${h.value}`}
          </span>
        ))}
        {body ? `\n\n${body.body}` : ''}
      </pre>
      <p class="hint">
        Punctual adds the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) and its User-Agent to
        each attempt. Secret values are never shown.
      </p>
      <details>
        <summary>As a curl command</summary>
        <pre class="request mono" data-testid="curl">
          {curl}
        </pre>
      </details>
    </section>
  );
}

/**
 * "New signing secret": generates the job's own secret and shows it this once, with a way to copy
 * it. `disabled` when the job can no longer take one (a schedule that is not Pending).
 */
export function SigningSecret({ jobType, id, set, disabled, onSaved }: { jobType: JobType; id: string; set: boolean; disabled: boolean; onSaved: () => void }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const generate = async () => {
    setError(null);
    try {
      setSecret(await newSigningSecret(jobType, id));
      onSaved();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <div>
      <dt>Signing secret</dt>
      <dd>
        {set ? 'Its own (set)' : 'The deployment’s'}
        {!disabled && (
          <>
            {' '}
            <ConfirmButton
              class="button"
              label="New signing secret"
              title="Generate a new signing secret?"
              body={<p>The next calls are signed with it{set ? ', not with the current one' : ''}. It is shown only once.</p>}
              confirmLabel="Generate"
              onConfirm={generate}
            />
          </>
        )}
        {error && <p class="field-error">{error}</p>}
        {secret && (
          <div class="secret-once" role="status">
            <p>Shown only this once: give it to the receiver to verify the signatures.</p>
            <code data-testid="signing-secret">{secret}</code>{' '}
            <button type="button" class="button" onClick={async () => announce((await copy(secret)) ? 'Signing secret copied.' : 'Could not copy.')}>
              Copy
            </button>
          </div>
        )}
      </dd>
    </div>
  );
}
