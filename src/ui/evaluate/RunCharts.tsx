/**
 * A run's charts: success rate by difficulty, success rate by database, and the distribution of episode returns.
 * chart.js (through react-chartjs-2) is imported here only, and this module is loaded lazily by the Evaluate view,
 * so no other view downloads it. Each canvas is an image whose accessible name states its figures; the same
 * figures are in the tables beside the charts.
 */
import { BarElement, CategoryScale, Chart as ChartJS, LinearScale, Tooltip, type ChartData, type ChartOptions } from 'chart.js';
import { Bar } from 'react-chartjs-2';
import type { EvalReport } from '../../eval/evaluate.ts';
import { binDigits, groupRows, histogram, percent, type GroupRow } from './figures.ts';
import { useThemeColors, type ThemeColors } from './useThemeColors.ts';

ChartJS.register(BarElement, CategoryScale, LinearScale, Tooltip);

type Summary = Pick<EvalReport, 'by_difficulty' | 'by_database'>;

interface AxisTitles {
  value: string;
  category?: string;
  /** Upper end of the value axis (100 for percentages). */
  max?: number;
}

/** Tooltip lines: a title for the bar's category and a label for its value, given the bar's index. */
interface TooltipText {
  title: (index: number) => string;
  label: (index: number) => string;
}

function baseOptions(colors: ThemeColors, horizontal: boolean, titles: AxisTitles, tooltip: TooltipText): ChartOptions<'bar'> {
  const title = (text: string | undefined) => ({ display: text !== undefined, text: text ?? '', color: colors.muted });
  const valueAxis = { beginAtZero: true, ...(titles.max !== undefined && { max: titles.max }), title: title(titles.value), ticks: { color: colors.muted, precision: 0 }, grid: { color: colors.border } };
  const categoryAxis = { title: title(titles.category), ticks: { color: colors.fg, autoSkip: false }, grid: { display: false } };
  return {
    indexAxis: horizontal ? 'y' : 'x',
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    plugins: {
      legend: { display: false },
      tooltip: { callbacks: { title: (items) => (items.length > 0 ? tooltip.title(items[0].dataIndex) : ''), label: (item) => tooltip.label(item.dataIndex) } },
    },
    scales: horizontal ? { x: valueAxis, y: categoryAxis } : { x: categoryAxis, y: valueAxis },
  };
}

function SuccessChart({ title, rows, horizontal, colors }: { title: string; rows: GroupRow[]; horizontal: boolean; colors: ThemeColors }) {
  const data: ChartData<'bar', number[], string> = {
    labels: rows.map((r) => r.name),
    datasets: [{ label: 'success rate (%)', data: rows.map((r) => r.success_rate * 100), backgroundColor: colors.accent, borderRadius: 3, maxBarThickness: 48 }],
  };
  const options = baseOptions(colors, horizontal, { value: 'success rate (%)', max: 100 }, {
    title: (i) => rows[i].name,
    label: (i) => `${percent(rows[i].success_rate)} of ${rows[i].episodes} episode${rows[i].episodes === 1 ? '' : 's'}`,
  });
  const description = `${title}: ${rows.map((r) => `${r.name} ${percent(r.success_rate)} of ${r.episodes}`).join('; ')}.`;
  // Horizontal bars grow with the number of databases (Spider has many); vertical charts keep one height.
  const height = horizontal ? Math.max(160, 28 * rows.length + 60) : 220;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div className="chart-box" style={{ height }}>
        <Bar data={data} options={options} role="img" aria-label={description} fallbackContent={<p>{description}</p>} />
      </div>
    </figure>
  );
}

function ReturnHistogram({ returns, colors }: { returns: number[]; colors: ThemeColors }) {
  // Returns are sums of rewards in hundredths, so bins finer than 0.01 would only split equal-looking values.
  const bins = histogram(returns, 16, 0.01);
  const digits = binDigits(bins);
  const data: ChartData<'bar', number[], string> = {
    labels: bins.map((b) => b.from.toFixed(digits)),
    datasets: [{ label: 'episodes', data: bins.map((b) => b.count), backgroundColor: colors.accent, borderRadius: 2, categoryPercentage: 1, barPercentage: 0.95 }],
  };
  const options = baseOptions(colors, false, { value: 'episodes', category: 'episode return (bin start)' }, {
    title: (i) => `return ${bins[i].from.toFixed(digits)} to ${bins[i].to.toFixed(digits)}`,
    label: (i) => `${bins[i].count} episode${bins[i].count === 1 ? '' : 's'}`,
  });
  const description = `Episode returns: ${bins
    .filter((b) => b.count > 0)
    .map((b) => `${b.count} between ${b.from.toFixed(digits)} and ${b.to.toFixed(digits)}`)
    .join('; ')}.`;
  return (
    <figure className="chart">
      <figcaption>Return distribution</figcaption>
      <div className="chart-box" style={{ height: 220 }}>
        <Bar data={data} options={options} role="img" aria-label={description} fallbackContent={<p>{description}</p>} />
      </div>
    </figure>
  );
}

export default function RunCharts({ summary, returns }: { summary: Summary; returns: number[] }) {
  const colors = useThemeColors();
  const databases = groupRows(summary.by_database);
  return (
    <div className="charts" aria-label="Charts" role="group">
      <SuccessChart title="Success by difficulty" rows={groupRows(summary.by_difficulty)} horizontal={false} colors={colors} />
      <SuccessChart title="Success by database" rows={databases} horizontal={databases.length > 4} colors={colors} />
      <ReturnHistogram returns={returns} colors={colors} />
    </div>
  );
}
