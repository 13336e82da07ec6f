/**
 * A line chart that grows while a run streams: chart.js on one canvas, created once (again only when the theme's
 * colours change) and fed by appending the rows it has not drawn yet, then `update('none')` — no chart is rebuilt
 * and no old point is re-read per step. A new run (fewer rows than drawn, or another first row) starts it over.
 *
 * `series` must be stable (a module constant): each line reads its y from a row, and a row where it reads null is
 * left out of that line. The canvas is an image whose accessible name says how many points there are and the latest
 * values, so tests and screen readers read the chart as text.
 */
import { Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartDataset } from 'chart.js';
import { useEffect, useRef } from 'react';
import type { ThemeColors } from '../evaluate/useThemeColors.ts';

Chart.register(LineController, LineElement, PointElement, LinearScale, Legend, Tooltip);

export interface Series<T> {
  label: string;
  color: keyof ThemeColors | 'warn';
  value: (row: T) => number | null;
  dashed?: boolean;
}

export interface LiveChartProps<T> {
  title: string;
  rows: readonly T[];
  /** The x of a row (its step, unless `xTitle` says otherwise). */
  x: (row: T) => number;
  xTitle?: string;
  series: ReadonlyArray<Series<T>>;
  yTitle: string;
  /** Digits of the latest values in the accessible name. */
  digits?: number;
  yMax?: number;
  colors: ThemeColors;
}

type Point = { x: number; y: number };

/** A fifth colour for a fourth line (the theme has three line colours beside the text ones). */
const WARN = '#b7791f';

function lineColor(colors: ThemeColors, key: Series<unknown>['color']): string {
  return key === 'warn' ? WARN : colors[key];
}

function describe<T>(title: string, rows: readonly T[], series: ReadonlyArray<Series<T>>, digits: number): string {
  const last = rows.at(-1);
  if (last === undefined) return `${title}: no points yet.`;
  const latest = series
    .map((s) => ({ label: s.label, y: s.value(last) }))
    .filter((p): p is { label: string; y: number } => p.y !== null)
    .map((p) => `${p.label} ${p.y.toFixed(digits)}`);
  return `${title}: ${rows.length} point${rows.length === 1 ? '' : 's'}; latest ${latest.join(', ')}.`;
}

/** Draws the rows `drawn` has not seen (all of them when they are another run's), then redraws without animation. */
function appendRows<T>(chart: Chart<'line', Point[]>, drawn: { first: T | undefined; count: number }, rows: readonly T[], x: (row: T) => number, series: ReadonlyArray<Series<T>>): void {
  if (rows.length < drawn.count || (drawn.count > 0 && rows[0] !== drawn.first)) {
    for (const d of chart.data.datasets) d.data = [];
    drawn.count = 0;
  }
  for (let i = drawn.count; i < rows.length; i++) {
    series.forEach((s, j) => {
      const y = s.value(rows[i]);
      if (y !== null && Number.isFinite(y)) chart.data.datasets[j].data.push({ x: x(rows[i]), y });
    });
  }
  drawn.count = rows.length;
  drawn.first = rows[0];
  chart.update('none');
}

export function LiveChart<T>({ title, rows, x, series, yTitle, xTitle = 'step', digits = 3, yMax, colors }: LiveChartProps<T>) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'line', Point[]> | null>(null);
  const drawn = useRef<{ first: T | undefined; count: number }>({ first: undefined, count: 0 });

  useEffect(() => {
    const target = canvas.current;
    if (!target) return;
    const datasets: Array<ChartDataset<'line', Point[]>> = series.map((s) => ({
      label: s.label,
      data: [],
      borderColor: lineColor(colors, s.color),
      backgroundColor: lineColor(colors, s.color),
      borderDash: s.dashed ? [5, 4] : [],
      pointRadius: 2,
      borderWidth: 2,
      tension: 0,
    }));
    const created = new Chart<'line', Point[]>(target, {
      type: 'line',
      data: { datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        parsing: false,
        normalized: true,
        plugins: { legend: { display: series.length > 1, labels: { color: colors.fg, boxWidth: 12 } } },
        scales: {
          x: { type: 'linear', title: { display: true, text: xTitle, color: colors.muted }, ticks: { color: colors.muted, precision: 0 }, grid: { color: colors.border } },
          y: { type: 'linear', ...(yMax !== undefined && { min: 0, max: yMax }), title: { display: true, text: yTitle, color: colors.muted }, ticks: { color: colors.muted }, grid: { color: colors.border } },
        },
      },
    });
    chart.current = created;
    drawn.current = { first: undefined, count: 0 };
    return () => {
      created.destroy();
      chart.current = null;
    };
  }, [colors, series, yTitle, xTitle, yMax]);

  useEffect(() => {
    if (chart.current) appendRows(chart.current, drawn.current, rows, x, series);
  }, [rows, x, series, colors, yTitle, xTitle, yMax]);

  const label = describe(title, rows, series, digits);
  return (
    <figure className="train-chart">
      <figcaption>{title}</figcaption>
      <div className="train-chart-box">
        <canvas ref={canvas} role="img" aria-label={label}>
          {label}
        </canvas>
      </div>
    </figure>
  );
}
