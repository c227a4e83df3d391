import type { ScalingBenchResult } from './scaling-benchmark.js';

const CHART_TITLE = 'p50 latency after one appended event, by thread size (already compacted)';

const ms = (value: number) => `${value < 10 ? value.toFixed(3) : value.toFixed(1)} ms`;
const count = (value: number) => value.toLocaleString('en-US');
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

/**
 * The scaling curve as Markdown: one row per thread size, then the targets, each said met or not.
 *
 * @param result - The scaling benchmark's result.
 * @returns The tables.
 */
export function formatScalingReport(result: ScalingBenchResult): string {
  const { rows, manyThreads } = result;
  const lines = [
    `## Cost as threads grow (issue #18) — ${result.source}, each already compacted`,
    '',
    '| messages | plan records | cold check | check after 1 append p50 / p99 | peer: refolding check p50 | render after 1 append p50 / p99 | load + plan + render p50 | fold bytes/msg | render bytes/msg | recall index builds |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${count(row.messages)} | ${row.planRecords} | ${ms(row.coldCheckMs)} | ${ms(row.check.p50Ms)} / ${ms(row.check.p99Ms)} | ${ms(row.checkRefolding.p50Ms)} | ${ms(row.render.p50Ms)} / ${ms(row.render.p99Ms)} | ${ms(row.loadAndRender.p50Ms)} | ${row.foldBytesPerMessage.toFixed(0)} | ${row.renderBytesPerMessage.toFixed(0)} | ${row.recallIndexBuilds} |`,
    ),
    '',
    `check p50, largest ÷ smallest: ${result.checkP50Ratio.toFixed(2)}× (target ≤ 2×: ${verdict(result.checkP50Ratio <= 2)})`,
    `render p50, largest ÷ smallest: ${result.renderP50Ratio.toFixed(2)}× (target ≤ 2×: ${verdict(result.renderP50Ratio <= 2)})`,
    `render p50 at ${count(result.renderP50At10k.messages)} messages: ${ms(result.renderP50At10k.p50Ms)} (target ≤ 1 ms: ${verdict(result.renderP50At10k.p50Ms <= 1)})`,
    '',
    ...manyThreadsLines(manyThreads),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The many-threads phase, one row per heap compaction mode (each run in a fresh process), and
 * whether RSS growth stays within the caches' bounds under the servers' default (issue #18).
 */
function manyThreadsLines(runs: ScalingBenchResult['manyThreads']): string[] {
  const first = runs[0];
  if (!first) return [];
  const split = (range: { before: number; after: number } | undefined) =>
    range ? `+${(range.after - range.before).toFixed(1)} MiB` : '—';
  const worker = runs.find((run) => run.heapCompaction === 'every-full-gc');
  const ingest = runs.find((run) => run.heapCompaction === 'when-over-bounds');
  const defaults: Partial<Record<string, string>> = {
    'every-full-gc': ' (worker)',
    'when-over-bounds': ' (ingest, serve)',
  };
  return [
    `### ${count(first.threads)} threads of ${first.messagesPerThread} messages touched (loaded and rendered once each), per heap compaction mode`,
    '',
    '| heap compaction | RSS before | RSS after | RSS growth: anonymous / file-backed | heap used before | heap used after | heap committed before / after | fold cache (bytes / bound, threads kept) | render cache (bytes / bound, threads kept) | RSS growth ÷ (fold + render + store bounds) | same after the next full collection | heap growth ÷ bounds | heap committed growth ÷ bounds | full collections (compacting) | their pauses: in all / longest |',
    '|---|---:|---:|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (run) =>
        `| ${run.heapCompaction}${defaults[run.heapCompaction] ?? ''} | ${run.rssBeforeMiB.toFixed(1)} MiB | ${run.rssAfterMiB.toFixed(1)} MiB | ${split(run.rssAnonymousMiB)} / ${split(run.rssFileMiB)} | ${run.heapUsedBeforeMiB.toFixed(1)} MiB | ${run.heapUsedAfterMiB.toFixed(1)} MiB | ${run.heapCommittedBeforeMiB.toFixed(1)} / ${run.heapCommittedAfterMiB.toFixed(1)} MiB | ${mib(run.foldCache.bytes)} / ${mib(run.foldCache.maxBytes)}, ${count(run.foldCache.threads)} | ${mib(run.renderCache.bytes)} / ${mib(run.renderCache.maxBytes)}, ${count(run.renderCache.threads)} | ${run.growthOverBounds.toFixed(2)} | ${run.growthOverBoundsAfterNextCollection.toFixed(2)} | ${run.heapGrowthOverBounds.toFixed(2)} | ${run.heapCommittedGrowthOverBounds.toFixed(2)} | ${run.fullCollections.count} (${run.heapCompaction === 'every-full-gc' ? 'all' : run.scheduledCompactions}) | ${run.fullCollections.totalPauseMs.toFixed(0)} / ${run.fullCollections.longestPauseMs.toFixed(0)} ms |`,
    ),
    '',
    ...(worker
      ? [
          `RSS growth ÷ bounds with every-full-gc (the worker's default, ADR-0355): ${worker.growthOverBounds.toFixed(2)} (target ≤ 1: ${verdict(worker.growthOverBounds <= 1)})`,
        ]
      : []),
    ...(ingest
      ? [
          `RSS growth ÷ bounds with when-over-bounds (the ingest's and serve's default, ADR-0425): ${ingest.growthOverBounds.toFixed(2)}, after the next full collection ${ingest.growthOverBoundsAfterNextCollection.toFixed(2)} (target ≤ 1: ${verdict(ingest.growthOverBoundsAfterNextCollection <= 1)})`,
        ]
      : []),
  ];
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

const WIDTH = 720;
const HEIGHT = 400;
const MARGIN = { top: 36, right: 230, bottom: 50, left: 64 };
const SERIES = [
  {
    name: 'check after 1 append',
    color: '#1f77b4',
    pick: (row: ScalingBenchResult['rows'][number]) => row.check.p50Ms,
  },
  {
    name: 'peer: refolding check',
    color: '#d62728',
    dashed: true,
    pick: (row: ScalingBenchResult['rows'][number]) => row.checkRefolding.p50Ms,
  },
  {
    name: 'render after 1 append',
    color: '#2ca02c',
    pick: (row: ScalingBenchResult['rows'][number]) => row.render.p50Ms,
  },
  {
    name: 'load + plan + render',
    color: '#ff7f0e',
    pick: (row: ScalingBenchResult['rows'][number]) => row.loadAndRender.p50Ms,
  },
];

/**
 * The scaling curve as an SVG line chart: thread size on a log axis, p50 milliseconds on a log axis,
 * one line per measurement (the peer dashed).
 *
 * @param result - The scaling benchmark's result.
 * @returns The SVG document.
 */
export function scalingChart(result: ScalingBenchResult): string {
  const rows = result.rows;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const values = rows.flatMap((row) => SERIES.map((series) => series.pick(row))).filter((value) => value > 0);
  const low = Math.floor(Math.log10(Math.min(...values)));
  const high = Math.ceil(Math.log10(Math.max(...values)));
  const xLow = Math.log10(rows[0]!.messages);
  const xHigh = Math.log10(rows.at(-1)!.messages);
  const x = (messages: number) =>
    MARGIN.left +
    (xHigh === xLow ? plotWidth / 2 : ((Math.log10(messages) - xLow) / (xHigh - xLow)) * plotWidth);
  const y = (value: number) =>
    MARGIN.top +
    plotHeight -
    ((Math.log10(Math.max(value, 10 ** low)) - low) / Math.max(1, high - low)) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12" role="img">`,
    `<title>${CHART_TITLE}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="20" font-size="14">${CHART_TITLE}</text>`,
  ];
  for (let power = low; power <= high; power += 1) {
    const at = y(10 ** power);
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${at}" y2="${at}" stroke="#ddd"/>`,
      `<text x="${MARGIN.left - 6}" y="${at + 4}" text-anchor="end">${formatMs(10 ** power)}</text>`,
    );
  }
  for (const row of rows) {
    parts.push(
      `<text x="${x(row.messages)}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${count(row.messages)}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 10}" text-anchor="middle">messages in the thread (log scale)</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">p50 (log scale)</text>`,
  );
  SERIES.forEach((series, index) => {
    const points = rows
      .map((row) => `${x(row.messages).toFixed(1)},${y(series.pick(row)).toFixed(1)}`)
      .join(' ');
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    parts.push(`<polyline points="${points}" fill="none" stroke="${series.color}" stroke-width="2"${dash}/>`);
    for (const row of rows) {
      parts.push(
        `<circle cx="${x(row.messages).toFixed(1)}" cy="${y(series.pick(row)).toFixed(1)}" r="3" fill="${series.color}"/>`,
      );
    }
    const legendY = MARGIN.top + 10 + index * 20;
    parts.push(
      `<line x1="${WIDTH - MARGIN.right + 16}" x2="${WIDTH - MARGIN.right + 40}" y1="${legendY}" y2="${legendY}" stroke="${series.color}" stroke-width="2"${dash}/>`,
      `<text x="${WIDTH - MARGIN.right + 46}" y="${legendY + 4}">${series.name}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function formatMs(value: number): string {
  return value >= 1 ? `${Math.round(value)} ms` : `${Math.round(value * 1000)} µs`;
}
