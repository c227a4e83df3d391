import type { NeedleSummaryRow, QaSummaryRow, RunMetrics } from './eval-types.js';
import { addCounts, share } from './probe-retention.js';

const WIDTH = 760;
const HEIGHT = 420;
const MARGIN = { top: 30, right: 240, bottom: 50, left: 60 };
const COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];

/** One line of a chart: a system's share (0–1) at each x it has a value for. */
export interface ChartSeries {
  name: string;
  points: Array<{ x: number; value: number }>;
  dashed?: boolean;
}

export interface ChartAxes {
  title: string;
  xLabel: string;
  yLabel: string;
  formatX: (x: number) => string;
}

/** A hand-written SVG line chart: log-scaled x, 0–100% y, one polyline and legend entry per series. */
export function lineChart(series: readonly ChartSeries[], axes: ChartAxes): string {
  const xs = [...new Set(series.flatMap((line) => line.points.map((point) => point.x)))].sort(
    (a, b) => a - b,
  );
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const logMin = Math.log(xs[0] ?? 1);
  const logMax = Math.log(xs.at(-1) ?? 1);
  const x = (value: number) =>
    MARGIN.left +
    (logMax === logMin ? plotWidth / 2 : ((Math.log(value) - logMin) / (logMax - logMin)) * plotWidth);
  const y = (value: number) => MARGIN.top + (1 - value) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12" role="img">`,
    `<title>${escapeXml(axes.title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2 - MARGIN.right / 2}" y="18" text-anchor="middle" font-size="14">${escapeXml(axes.title)}</text>`,
    `<g class="axes" stroke="black">`,
    `<line x1="${MARGIN.left}" y1="${y(0)}" x2="${MARGIN.left + plotWidth}" y2="${y(0)}"/>`,
    `<line x1="${MARGIN.left}" y1="${y(0)}" x2="${MARGIN.left}" y2="${y(1)}"/>`,
    `</g>`,
  ];
  for (let tick = 0; tick <= 10; tick += 2) {
    const value = tick / 10;
    parts.push(
      `<line x1="${MARGIN.left - 4}" y1="${y(value)}" x2="${MARGIN.left + plotWidth}" y2="${y(value)}" stroke="#ddd"/>`,
      `<text x="${MARGIN.left - 8}" y="${y(value) + 4}" text-anchor="end">${tick * 10}%</text>`,
    );
  }
  for (const value of xs) {
    parts.push(
      `<line x1="${x(value)}" y1="${y(0)}" x2="${x(value)}" y2="${y(0) + 4}" stroke="black"/>`,
      `<text x="${x(value)}" y="${y(0) + 18}" text-anchor="middle">${escapeXml(axes.formatX(value))}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 10}" text-anchor="middle">${escapeXml(axes.xLabel)}</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(axes.yLabel)}</text>`,
  );
  series.forEach((line, index) => {
    const color = COLORS[index % COLORS.length];
    const points = [...line.points]
      .sort((a, b) => a.x - b.x)
      .map((point) => [x(point.x), y(point.value)] as const);
    const dash = line.dashed ? ' stroke-dasharray="5,3"' : '';
    parts.push(
      `<g class="series" data-system="${escapeXml(line.name)}">`,
      `<polyline fill="none" stroke="${color}" stroke-width="2"${dash} points="${points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ')}"/>`,
      ...points.map(
        ([px, py]) => `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="3" fill="${color}"/>`,
      ),
      `</g>`,
    );
    const legendY = MARGIN.top + 10 + index * 20;
    const legendX = WIDTH - MARGIN.right + 20;
    parts.push(
      `<line x1="${legendX}" y1="${legendY}" x2="${legendX + 20}" y2="${legendY}" stroke="${color}" stroke-width="2"${dash}/>`,
      `<text x="${legendX + 26}" y="${legendY + 4}">${escapeXml(line.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/**
 * Coding-probe retention (retained / probes, summed over transcripts) against the context window,
 * one line per system; a window where a system had no probes has no point.
 */
export function retentionChart(
  runs: readonly RunMetrics[],
  systems: readonly string[],
  title = 'Coding-probe retention by context window',
): string {
  const windows = [...new Set(runs.map((run) => run.window))];
  return lineChart(
    systems.map((system) => ({
      name: system,
      points: windows.flatMap((window) => {
        const count = runs
          .filter((run) => run.system === system && run.window === window)
          .reduce((total, run) => addCounts(total, run.retention.overall), { retained: 0, total: 0 });
        const value = share(count);
        return value === null ? [] : [{ x: window, value }];
      }),
    })),
    { title, xLabel: 'context window (log scale)', yLabel: 'probes retained', formatX: formatBudget },
  );
}

/** Question-conditioned strict evidence against the text-compression ratio, one line per system. */
export function qaChart(
  rows: readonly QaSummaryRow[],
  title = 'LoCoMo, question-conditioned: strict evidence',
): string {
  const systems = [...new Set(rows.map((row) => row.system))];
  return lineChart(
    systems.map((system) => ({
      name: system,
      dashed: system.includes('@'),
      points: rows
        .filter((row) => row.system === system && row.overall.questions > 0)
        .map((row) => ({ x: row.ratio, value: row.overall.evidence / row.overall.questions })),
    })),
    {
      title,
      xLabel: 'compression of the text (ceiling = text tokens ÷ ratio, log scale)',
      yLabel: 'questions with every evidence turn present',
      formatX: (ratio) => `${ratio}×`,
    },
  );
}

/** Needles (instructions present + facts recalled, over every round) against the ceiling. */
export function needleChart(
  rows: readonly NeedleSummaryRow[],
  title = 'Planted needles over 10 chained compactions',
): string {
  const systems = [...new Set(rows.map((row) => row.system))];
  return lineChart(
    systems.map((system) => ({
      name: system,
      points: rows.flatMap((row) => {
        if (row.system !== system) return [];
        const value = share(addCounts(row.instructions, row.facts));
        return value === null ? [] : [{ x: row.ceiling, value }];
      }),
    })),
    {
      title,
      xLabel: 'render ceiling (tokens, log scale)',
      yLabel: 'needle checks passed (all rounds)',
      formatX: formatBudget,
    },
  );
}

function formatBudget(budget: number): string {
  return budget >= 1000 ? `${Math.round(budget / 1000)}k` : String(budget);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
