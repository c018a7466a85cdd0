/**
 * What a cron expression means: a plain-language reading (cronstrue) and its next occurrences as
 * the service computes them (GET /cron/preview), in the job's zone and in UTC.
 */
import * as cronstrue from 'cronstrue';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, previewCron } from '../api';
import { describeEvery, forCronstrue } from '../cron-reading';
import { formatInstant, formatRelative } from '../format';

/**
 * The reading of `expression` in English, or null when neither cronstrue nor our reading of
 * `@every` can read it. Punctual's rules (docs/cron.md) decide what runs; this is a reading aid.
 * Nicknames, `X#L` and steps larger than their range are rewritten first (cron-reading.ts).
 */
export function describeCron(expression: string): string | null {
  const expr = expression.trim();
  if (!expr) return null;
  if (/^@every\b/i.test(expr)) return describeEvery(expr);
  try {
    return cronstrue.toString(forCronstrue(expr), {
      use24HourTimeFormat: true,
      throwExceptionOnParseError: true,
      verbose: false,
    });
  } catch {
    return null;
  }
}

interface PreviewState {
  occurrences: string[] | null;
  error: string | null;
  loading: boolean;
}

/**
 * The next `count` occurrences of `expression` in `timezone`, fetched `delayMs` after the last
 * change; an `@every` expression counts from `startAt` (ISO 8601; the service's default: now).
 */
export function useCronPreview(expression: string, timezone: string, count: number, delayMs = 300, startAt?: string): PreviewState {
  const [state, setState] = useState<PreviewState>({ occurrences: null, error: null, loading: false });
  useEffect(() => {
    const expr = expression.trim();
    if (!expr) {
      setState({ occurrences: null, error: null, loading: false });
      return;
    }
    let alive = true;
    setState((s) => ({ ...s, loading: true }));
    const timer = window.setTimeout(async () => {
      try {
        const occurrences = await previewCron(expr, timezone.trim() || null, count, undefined, startAt);
        if (alive) setState({ occurrences, error: null, loading: false });
      } catch (err) {
        if (!alive) return;
        const message =
          err instanceof ApiError
            ? err.fieldErrors.map((e) => e.message).join('; ') || err.problem.detail
            : (err as Error).message;
        setState({ occurrences: null, error: message, loading: false });
      }
    }, delayMs);
    return () => {
      alive = false;
      window.clearTimeout(timer);
    };
  }, [expression, timezone, count, startAt]);
  return state;
}

/** The reading and the occurrences, as a live region (polite) so changes are read out. */
export function CronPreview({
  expression,
  timezone,
  count = 5,
  headingLevel = 3,
  startAt,
}: {
  expression: string;
  timezone: string;
  count?: number;
  headingLevel?: 2 | 3;
  /** Where an `@every` expression counts from (a job's start or creation); default now. */
  startAt?: string;
}) {
  const { occurrences, error, loading } = useCronPreview(expression, timezone, count, 300, startAt);
  const description = describeCron(expression);
  const zone = timezone.trim() || 'UTC';
  const H = headingLevel === 2 ? 'h2' : 'h3';
  // Seconds are shown when an occurrence is not on a whole minute (6-field expressions).
  const seconds = (occurrences ?? []).some((iso) => new Date(iso).getUTCSeconds() !== 0);
  return (
    <div class="cron-preview" aria-live="polite" aria-busy={loading ? 'true' : 'false'}>
      {expression.trim() === '' ? (
        <p class="muted">Type an expression to see what it means and when it runs.</p>
      ) : (
        <>
          <p class="cron-description" data-testid="cron-description">
            {error ? (
              <span class="field-error">{error}</span>
            ) : description ? (
              <>
                <strong>{description}</strong>
                <span class="muted"> ({zone})</span>
              </>
            ) : (
              <span class="muted">No plain-language reading for this expression.</span>
            )}
          </p>
          {occurrences && (
            <>
              <H class="preview-title">
                Next {occurrences.length} occurrences, {zone} time
              </H>
              <ol class="occurrences" data-testid="occurrences">
                {occurrences.map((iso) => (
                  <li key={iso}>
                    <time dateTime={iso}>{formatInstant(iso, zone, seconds)}</time>
                    <span class="muted">
                      {' '}
                      · {zone === 'UTC' ? '' : `${formatInstant(iso, 'UTC', seconds)} UTC · `}
                      {formatRelative(iso)}
                    </span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </>
      )}
    </div>
  );
}
