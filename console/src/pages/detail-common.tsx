/** What the two detail pages share: loading and refreshing the job, delivery facts. */
import { useState } from 'preact/hooks';
import type { RetryPolicy } from '../api';
import { usePolling } from '../components/executions';
import { errorText } from '../components/ui';
import { formatDuration } from '../format';

/** `undefined` while loading, `null` when the id names no job (the API answers null). */
export interface JobState<T> {
  job: T | null | undefined;
  error: string | null;
  reload(): Promise<void>;
  set(job: T): void;
}

/** The job with id `id`, refreshed every `pollMs` (its status moves while it runs). */
export function useJob<T>(get: (id: string) => Promise<T | null>, id: string, pollMs = 2_000): JobState<T> {
  const [job, setJob] = useState<T | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const reload = async () => {
    try {
      setJob(await get(id));
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  usePolling(reload, pollMs, [id]);
  return { job, error, reload, set: setJob };
}

/** Retry policy and timeout as definition-list entries. */
export function DeliveryFacts({ retry, timeoutMs }: { retry: RetryPolicy; timeoutMs: number }) {
  return (
    <>
      <div>
        <dt>Retries</dt>
        <dd>
          {retry.maxAttempts} attempt{retry.maxAttempts === 1 ? '' : 's'} in all;{' '}
          {retry.delaysMs
            ? `retries after ${retry.delaysMs.map((d) => formatDuration(d)).join(', ')} (each ±20 %, the last repeated)`
            : `delays from ${formatDuration(retry.initialDelayMs)} (doubling, jittered) up to ${formatDuration(retry.maxDelayMs)}`}
        </dd>
      </div>
      <div>
        <dt>Timeout per attempt</dt>
        <dd>{formatDuration(timeoutMs)}</dd>
      </div>
    </>
  );
}
