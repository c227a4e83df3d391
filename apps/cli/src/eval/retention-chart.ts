import type { RunMetrics } from './eval-types.js';
import { addCounts, share } from './probe-retention.js';

const WIDTH = 720;
const HEIGHT = 420;
const MARGIN = { top: 30, right: 200, bottom: 50, left: 60 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2'];

/**
 * Retention (retained / compacted probes, summed over transcripts) against budget, one line per
 * system, log-scaled x axis; a budget where a system compacted nothing has no point.
 */
export function retentionChart(
  runs: readonly RunMetrics[],
  systems: readonly string[],
  title = 'Probe retention by budget',
): string {
  const budgets = [...new Set(runs.map((run) => run.budget))].sort((left, right) => left - right);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const logMin = Math.log(budgets[0] ?? 1);
  const logMax = Math.log(budgets.at(-1) ?? 1);
  const x = (budget: number) =>
    MARGIN.left +
    (logMax === logMin ? plotWidth / 2 : ((Math.log(budget) - logMin) / (logMax - logMin)) * plotWidth);
  const y = (value: number) => MARGIN.top + (1 - value) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2 - MARGIN.right / 2}" y="18" text-anchor="middle" font-size="14">${escapeXml(title)}</text>`,
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
  for (const budget of budgets) {
    parts.push(
      `<line x1="${x(budget)}" y1="${y(0)}" x2="${x(budget)}" y2="${y(0) + 4}" stroke="black"/>`,
      `<text x="${x(budget)}" y="${y(0) + 18}" text-anchor="middle">${formatBudget(budget)}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 10}" text-anchor="middle">budget (tokens, log scale)</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">probes retained</text>`,
  );
  systems.forEach((system, index) => {
    const color = COLORS[index % COLORS.length];
    const points = budgets.flatMap((budget) => {
      const count = runs
        .filter((run) => run.system === system && run.budget === budget)
        .reduce((total, run) => addCounts(total, run.retention.overall), { retained: 0, compacted: 0 });
      const value = share(count);
      return value === null ? [] : [[x(budget), y(value)] as const];
    });
    parts.push(
      `<g class="series" data-system="${escapeXml(system)}">`,
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ')}"/>`,
      ...points.map(
        ([px, py]) => `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="3" fill="${color}"/>`,
      ),
      `</g>`,
    );
    const legendY = MARGIN.top + 10 + index * 20;
    const legendX = WIDTH - MARGIN.right + 20;
    parts.push(
      `<line x1="${legendX}" y1="${legendY}" x2="${legendX + 20}" y2="${legendY}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${legendX + 26}" y="${legendY + 4}">${escapeXml(system)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function formatBudget(budget: number): string {
  return budget >= 1000 ? `${Math.round(budget / 1000)}k` : String(budget);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
