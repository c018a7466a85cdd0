/** Two small charts of the overview, as plain HTML bars and an inline SVG (no chart library). */
import { formatDuration } from '../format';

/** One bar: a label, a count and a tone (colour class). */
export interface Bar {
  label: string;
  count: number;
  tone: 'ok' | 'bad' | 'warn' | 'info' | 'neutral';
}

/** Horizontal bars with their counts written out (readable without colour, and by screen readers). */
export function BarList({ bars, label }: { bars: Bar[]; label: string }) {
  const max = Math.max(1, ...bars.map((b) => b.count));
  return (
    <ul class="bars" aria-label={label}>
      {bars.map((b) => (
        <li key={b.label}>
          <span class="bar-label">{b.label}</span>
          <span class="bar-track" aria-hidden="true">
            <span class={`bar bar-${b.tone}`} style={{ width: `${(b.count / max) * 100}%` }} />
          </span>
          <span class="bar-count">{b.count}</span>
        </li>
      ))}
    </ul>
  );
}

/** One point of the lateness chart: when (epoch ms) and how late (ms). */
export interface LatePoint {
  at: number;
  lateMs: number;
  failed: boolean;
}

/** The q-quantile (0..1) by nearest rank; 0 for none. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

function niceMax(v: number): number {
  if (v <= 10) return 10;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function ago(ms: number): string {
  if (ms <= 0) return 'now';
  if (ms < 90_000) return `−${Math.round(ms / 1_000)} s`;
  return `−${Math.round(ms / 60_000)} min`;
}

/**
 * Lateness (first attempt's start minus the occurrence) of each execution, as dots over time; the
 * 95th percentile as a dashed line. The time axis spans the window `[from, to]`, narrowed to the
 * span of the points (at least a minute) so that a burst of recent executions is not a single
 * column. The SVG is an image with a text summary (`<title>`, `<desc>`) for screen readers.
 */
export function LatenessChart({ points, from, to }: { points: LatePoint[]; from: number; to: number }) {
  const W = 640;
  const H = 220;
  const m = { l: 56, r: 16, t: 12, b: 30 };
  const lates = points.map((p) => p.lateMs);
  const p50 = quantile(lates, 0.5);
  const p95 = quantile(lates, 0.95);
  const max = lates.length ? Math.max(...lates) : 0;
  const yMax = niceMax(max * 1.1);
  const earliest = points.length ? Math.min(...points.map((p) => p.at)) : from;
  const span = Math.min(to - from, Math.max(60_000, (to - earliest) * 1.05));
  const start = to - span;
  const x = (t: number) => m.l + ((Math.max(t, start) - start) / Math.max(1, span)) * (W - m.l - m.r);
  const y = (v: number) => H - m.b - (Math.min(v, yMax) / yMax) * (H - m.t - m.b);
  const yTicks = [0, yMax / 4, yMax / 2, (3 * yMax) / 4, yMax];
  const xTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => ({ t: start + f * span, label: ago((1 - f) * span) }));
  const summary =
    points.length === 0
      ? 'No executions started in the last hour.'
      : `${points.length} executions in the last hour; median lateness ${formatDuration(p50)}, ` +
        `95th percentile ${formatDuration(p95)}, maximum ${formatDuration(max)}.`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="late-title late-desc" preserveAspectRatio="xMidYMid meet">
        <title id="late-title">Lateness of each execution, over the last {ago(span).slice(1)}</title>
        <desc id="late-desc">{summary}</desc>
        {yTicks.map((v) => (
          <g key={`y${v}`}>
            <line x1={m.l} x2={W - m.r} y1={y(v)} y2={y(v)} class="grid" />
            <text x={m.l - 6} y={y(v) + 4} text-anchor="end" class="axis-label">
              {formatDuration(v)}
            </text>
          </g>
        ))}
        {xTicks.map(({ t, label }, i) => (
          <text key={`x${t}`} x={x(t)} y={H - 8} text-anchor={i === 0 ? 'start' : i === 4 ? 'end' : 'middle'} class="axis-label">
            {label}
          </text>
        ))}
        {points.length > 0 && <line x1={m.l} x2={W - m.r} y1={y(p95)} y2={y(p95)} class="p95" />}
        {points.map((p, i) => (
          <circle key={i} cx={x(p.at)} cy={y(p.lateMs)} r={4} class={p.failed ? 'dot dot-bad' : 'dot'} />
        ))}
      </svg>
      <figcaption>
        {summary}
        {points.length > 0 && <span class="muted"> Dashed line: 95th percentile; red dots: failed executions.</span>}
      </figcaption>
    </figure>
  );
}
