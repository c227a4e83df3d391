import type { BenchReport } from './run-benchmarks.js';

const number = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (value: number) => `${value < 10 ? value.toFixed(3) : value.toFixed(1)} ms`;
const times = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(0)}×`;

/** The report as Markdown tables, one per section, each measurement beside its peer and the ratio. */
export function formatBenchReport(report: BenchReport): string {
  const { ingest, render, planning, tokenizer } = report;
  const lines = [
    `compactor bench${report.quick ? ' --quick' : ''} (node ${report.node}, ${report.seconds.toFixed(1)} s)`,
    report.corpusAvailable
      ? `corpus: ${report.corpusDirectory}`
      : `corpus absent (${report.corpusDirectory}): every section runs on built-in synthetic text and threads`,
    '',
    `## Ingest throughput over HTTP (embedded) — ${ingest.source}`,
    '',
    '| batch | clients | HTTP events/s | direct EventStore events/s | HTTP ÷ direct |',
    '|---:|---:|---:|---:|---:|',
    ...ingest.http.map((run, index) => {
      const direct = ingest.direct[index]!;
      return `| ${run.batchSize} | ${run.clients} | ${number(run.eventsPerSecond)} (${run.events} events) | ${number(direct.eventsPerSecond)} (${direct.events} events) | ${ingest.ratios[index]!.httpOverDirect.toFixed(2)} |`;
    }),
    '',
    "The client above shares the server's event loop, so this understates the server. The deployed figure (the",
    'ingest in its own process, autocannon in another, beside the #17 target of 5,000 appends/s at p99 ≤ 20 ms):',
    '`pnpm bench:ingest` (docs/BENCHMARKS.md).',
    '',
    `## Render — ${render.source}: ${render.messages} messages, ${render.planRecords}-record plan, ${number(render.renderedTokens)} tokens rendered (anthropic)`,
    '',
    '| renderer | p50 | p99 | runs |',
    '|---|---:|---:|---:|',
    `| ours, warm render cache | ${ms(render.ours.p50Ms)} | ${ms(render.ours.p99Ms)} | ${render.ours.runs} |`,
    `| baseline: js-tiktoken re-tokenizing every message per call | ${ms(render.baseline.p50Ms)} | ${ms(render.baseline.p99Ms)} | ${render.baseline.runs} |`,
    '',
    `p50 speed-up over the baseline: ${times(render.speedupP50)}`,
    '',
    `## Planning latency — ${planning.source}: ${planning.messages} messages, ${number(planning.tokensBefore)} → ${number(planning.tokensAfter)} tokens (target ${number(planning.targetTokens)}), ${planning.records} records, extractive summarizer`,
    '',
    '| planner | p50 | p99 | runs |',
    '|---|---:|---:|---:|',
    `| ours (render cache), cold first plan ${ms(planning.coldMs)} | ${ms(planning.ours.p50Ms)} | ${ms(planning.ours.p99Ms)} | ${planning.ours.runs} |`,
    `| naive: every measurement re-rendered without the render cache | ${ms(planning.naive.p50Ms)} | ${ms(planning.naive.p99Ms)} | ${planning.naive.runs} |`,
    `| target | ${ms(planning.targetMs)} | – | – |`,
    '',
    `target ÷ p50: ${times(planning.targetOverP50)} (${planning.targetOverP50 >= 1 ? 'met' : 'NOT met'}); naive ÷ ours p50: ${times(planning.speedupOverNaiveP50)}`,
    '',
    `## Tokenizer throughput — ${tokenizer.encoding}, ${tokenizer.source} (${tokenizer.megabytes.toFixed(2)} MB)`,
    '',
    `| backend | large MB/s | short MB/s | ${tokenizer.ours} ÷ this (large / short) | counts identical to ${tokenizer.ours} |`,
    '|---|---:|---:|---:|---|',
    ...tokenizer.backends.map(
      (backend) =>
        `| ${backend.backend}${backend.backend === tokenizer.ours ? ' (ours)' : ''} | ${backend.largeMBps.toFixed(2)} | ${backend.shortMBps.toFixed(2)} | ${backend.oursOverThisLarge.toFixed(2)} / ${backend.oursOverThisShort.toFixed(2)} | ${backend.countsIdentical ? 'yes' : 'NO'} |`,
    ),
    '',
    '## Tokenizer worst case — bounded counting (default counting encoder: gpt-tokenizer, long multi-byte stretches on tiktoken WASM; o200k_base, each text counted once)',
    '',
    '| input | MB | tokens | MB/s (CPU) | MB/s (wall) | ordinary ÷ this |',
    '|---|---:|---:|---:|---:|---:|',
    ...[tokenizer.worstCase.ordinary, ...tokenizer.worstCase.worstCases].map(
      (row) =>
        `| ${row.input} | ${row.megabytes.toFixed(2)} | ${row.tokens.toLocaleString('en-US')} | ${row.cpuMBps.toFixed(2)} | ${row.wallMBps.toFixed(2)} | ${times(row.slowdown)} |`,
    ),
    '',
    `worst ÷ ordinary: ${times(tokenizer.worstCase.worstOverOrdinary)} (target ≤ 5×: ${tokenizer.worstCase.worstOverOrdinary <= 5 ? 'met' : 'NOT met'})`,
  ];
  return `${lines.join('\n')}\n`;
}
