/** The cron helper: an expression and a zone → its reading and next occurrences (GET /cron/preview). */
import { useEffect, useState } from 'preact/hooks';
import { CronPreview } from '../components/cron-preview';
import { Field } from '../components/ui';
import { LOCAL_ZONE, timeZones } from '../format';
import { Link, navigate, useLocation } from '../router';

const EXAMPLES: Array<[string, string]> = [
  ['*/5 * * * *', 'every 5 minutes'],
  ['0 9 * * MON-FRI', 'weekdays at 09:00'],
  ['30 2 1 * *', 'monthly, on the 1st at 02:30'],
  ['0 0 * * 0', 'Sundays at midnight'],
  ['0 */6 * * *', 'every 6 hours'],
  ['*/10 * * * * *', 'every 10 seconds (6 fields)'],
  ['@daily', 'every day at midnight'],
  ['0 18 L * *', 'the last day of the month at 18:00'],
  ['0 9 * * MON#1', 'the first Monday of the month at 09:00'],
  ['0 17 * * FRIL', 'the last Friday of the month at 17:00'],
  ['@every 1h30m', 'every 90 minutes (absolute time)'],
];

let zoneList: string[] | null = null;

/** A time-zone text input with every IANA zone the browser knows as suggestions. Blank: UTC. */
export function ZoneInput({ value, onInput, error }: { value: string; onInput: (v: string) => void; error?: string }) {
  zoneList ??= timeZones();
  return (
    <Field name="timezone" label="Time zone" hint={`IANA name; blank means UTC. Yours: ${LOCAL_ZONE}.`} error={error}>
      {(attrs) => (
        <>
          <input
            {...attrs}
            type="text"
            list="tz-list"
            autocomplete="off"
            spellcheck={false}
            placeholder="UTC"
            value={value}
            onInput={(e) => onInput(e.currentTarget.value)}
          />
          <datalist id="tz-list">
            {zoneList!.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
        </>
      )}
    </Field>
  );
}

export function CronHelperPage() {
  const loc = useLocation();
  const [expression, setExpression] = useState(loc.query.get('expression') ?? '0 9 * * MON-FRI');
  const [timezone, setTimezone] = useState(loc.query.get('timezone') ?? LOCAL_ZONE);
  const [count, setCount] = useState(10);

  useEffect(() => {
    document.title = 'Cron helper · Punctual';
  }, []);

  const create = `/cron/new?${new URLSearchParams({ expression, timezone }).toString()}`;
  return (
    <>
      <h1 tabIndex={-1}>Cron helper</h1>
      <p class="lead">
        Type an expression and a time zone: the reading and the next occurrences update as you type, computed by the same code
        that runs real jobs (daylight-saving changes included).
      </p>
      <div class="helper-layout">
        <form class="card form" aria-label="Try an expression" onSubmit={(e) => (e.preventDefault(), navigate(create))}>
          <Field name="expression" label="Cron expression" hint="minute hour day-of-month month day-of-week (seconds first when 6 fields)">
            {(attrs) => (
              <input
                {...attrs}
                type="text"
                class="mono input-large"
                autocomplete="off"
                spellcheck={false}
                value={expression}
                onInput={(e) => setExpression(e.currentTarget.value)}
              />
            )}
          </Field>
          <ZoneInput value={timezone} onInput={setTimezone} />
          <Field name="count" label="Occurrences to show">
            {(attrs) => (
              <select {...attrs} value={String(count)} onChange={(e) => setCount(Number(e.currentTarget.value))}>
                {[5, 10, 20, 50].map((n) => (
                  <option key={n} value={String(n)}>
                    {n}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div class="actions">
            <button type="submit" class="button button-primary">
              Create a cron job with this expression
            </button>
          </div>
          <h2 class="small-heading">Examples</h2>
          <ul class="examples">
            {EXAMPLES.map(([expr, label]) => (
              <li key={expr}>
                <button type="button" class="link-button mono" onClick={() => setExpression(expr)}>
                  {expr}
                </button>{' '}
                <span class="muted">{label}</span>
              </li>
            ))}
          </ul>
        </form>
        <section class="card" aria-labelledby="reading-title">
          <h2 id="reading-title">What it means</h2>
          <CronPreview expression={expression} timezone={timezone} count={count} headingLevel={3} />
          <details class="syntax">
            <summary>Syntax</summary>
            <table class="table">
              <caption class="visually-hidden">Cron fields</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Values</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <td>seconds (6 fields only)</td>
                  <td>0–59</td>
                </tr>
                <tr>
                  <td>minute</td>
                  <td>0–59</td>
                </tr>
                <tr>
                  <td>hour</td>
                  <td>0–23</td>
                </tr>
                <tr>
                  <td>day of month</td>
                  <td>1–31</td>
                </tr>
                <tr>
                  <td>month</td>
                  <td>1–12 or JAN–DEC</td>
                </tr>
                <tr>
                  <td>day of week</td>
                  <td>0–7 or SUN–SAT (0 and 7 are Sunday)</td>
                </tr>
              </tbody>
            </table>
            <p class="small">
              <code>*</code> any, <code>a-b</code> range, <code>a,b</code> list, <code>*/n</code> step. When both day fields are
              restricted, a day matches if either does (Vixie cron). See also <Link href="/cron">cron jobs</Link>.
            </p>
          </details>
        </section>
      </div>
    </>
  );
}
