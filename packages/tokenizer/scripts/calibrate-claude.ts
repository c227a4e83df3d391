/**
 * `pnpm --filter @compactor/tokenizer calibrate` (root: `pnpm calibrate:claude`).
 *
 * Learns the Claude estimate from the pi sessions in the corpus: each assistant message there
 * carries the `usage` the Anthropic API reported, and the prompt grows between two consecutive
 * calls by exactly the messages appended in between. Those growths are regressed against the
 * exact o200k / cl100k measurement of the appended messages (a ratio per part kind, an overhead
 * per block and per message), the better base encoding is kept, its error is measured on
 * held-out sessions, and the calibration table source file is rewritten.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  EncodingName,
  ErrorStatistics,
  EstimateCalibration,
  MeasuredSample,
  Measurement,
} from '../src/index.js';
import {
  addMeasurement,
  calibrateRatio,
  createCountCache,
  createTokenizer,
  emptyMeasurement,
  errorStatistics,
  estimateTokens,
  fitEstimateCalibration,
  uncalibratedClaude,
} from '../src/index.js';
import { corpusPath, piCorpusAvailable, piSessionFiles } from './corpus-location.js';
import type { PromptGrowthSample } from './pi-calibration-samples.js';
import { promptGrowthSamples } from './pi-calibration-samples.js';
import { readPiSession } from './pi-session.js';

const overCountShare = 0.9;
const tableFile = join(
  dirname(fileURLToPath(import.meta.url)),
  '../src/calibration/claude-calibration-table.ts',
);

interface Measured extends MeasuredSample {
  sample: PromptGrowthSample;
}

function percent(value: number): string {
  return `${value.toFixed(1)}%`;
}

function describe(name: string, stats: ErrorStatistics): string {
  return [
    name.padEnd(44),
    `n=${String(stats.sampleCount).padStart(5)}`,
    `MAPE ${percent(stats.meanAbsolutePercentError).padStart(6)}`,
    `median ${percent(stats.medianAbsolutePercentError).padStart(6)}`,
    `p95 ${percent(stats.p95AbsolutePercentError).padStart(6)}`,
    `bias ${percent(stats.meanSignedPercentError).padStart(7)}`,
    `under-counted ${percent(stats.underCountShare * 100).padStart(6)}`,
  ].join('  ');
}

function loadSamples(): { samples: PromptGrowthSample[]; skipped: Record<string, number> } {
  const samples: PromptGrowthSample[] = [];
  const skipped: Record<string, number> = {};
  for (const file of piSessionFiles) {
    const extraction = promptGrowthSamples(file, readPiSession(corpusPath('pi', file)));
    samples.push(...extraction.samples);
    for (const [reason, count] of Object.entries(extraction.skipped))
      skipped[reason] = (skipped[reason] ?? 0) + count;
  }
  return { samples, skipped };
}

function measureAll(samples: readonly PromptGrowthSample[], encoding: EncodingName): Measured[] {
  const tokenizer = createTokenizer({
    model: 'claude-opus-4-5',
    encoding,
    cache: createCountCache({ maxEntries: 50_000 }),
  });
  return samples.map((sample) => {
    const measurement: Measurement = emptyMeasurement();
    for (const message of sample.messages) addMeasurement(measurement, tokenizer.measureMessage(message));
    return { sample, measurement, actualTokens: sample.actualTokens };
  });
}

function statsOf(samples: readonly Measured[], calibration: EstimateCalibration): ErrorStatistics {
  return errorStatistics(
    samples.map((sample) => ({
      estimate: estimateTokens(sample.measurement, calibration),
      actual: sample.actualTokens,
    })),
  );
}

/**
 * Leave one session out: every sample is estimated by a calibration fitted without its session.
 * Returns the per-sample errors and the errors on whole chains of calls.
 */
function heldOut(
  samples: readonly Measured[],
  encoding: EncodingName,
): { samples: ErrorStatistics; chains: ErrorStatistics } {
  const estimated = piSessionFiles.flatMap((file) => {
    const training = samples.filter((sample) => sample.sample.file !== file);
    const test = samples.filter((sample) => sample.sample.file === file);
    if (test.length === 0 || training.length === 0) return [];
    const { calibration } = fitEstimateCalibration(training, { baseEncoding: encoding, overCountShare });
    return test.map((sample) => ({ sample, estimate: estimateTokens(sample.measurement, calibration) }));
  });
  return {
    samples: errorStatistics(
      estimated.map(({ sample, estimate }) => ({ estimate, actual: sample.actualTokens })),
    ),
    chains: chainErrors(estimated.map(({ sample, estimate }) => ({ sample, estimate }))),
  };
}

/** Error on the growth of each uninterrupted chain of calls as a whole (errors partly cancel). */
function chainErrors(estimated: readonly { sample: Measured; estimate: number }[]): ErrorStatistics {
  const chains = new Map<string, { estimate: number; actual: number }>();
  for (const { sample, estimate } of estimated) {
    const key = `${sample.sample.file}#${sample.sample.chain}`;
    const chain = chains.get(key) ?? { estimate: 0, actual: 0 };
    chain.estimate += estimate;
    chain.actual += sample.actualTokens;
    chains.set(key, chain);
  }
  return errorStatistics([...chains.values()].filter((chain) => chain.actual >= 5_000));
}

function chainStats(samples: readonly Measured[], calibration: EstimateCalibration): ErrorStatistics {
  return chainErrors(
    samples.map((sample) => ({ sample, estimate: estimateTokens(sample.measurement, calibration) })),
  );
}

function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function summary(stats: ErrorStatistics) {
  return {
    meanAbsolutePercentError: round(stats.meanAbsolutePercentError, 2),
    p95AbsolutePercentError: round(stats.p95AbsolutePercentError, 2),
    underCountShare: round(stats.underCountShare, 4),
  };
}

function roundCalibration(calibration: EstimateCalibration): EstimateCalibration {
  const roundAll = <K extends string>(values: Record<K, number>) =>
    Object.fromEntries(Object.entries<number>(values).map(([key, value]) => [key, round(value)])) as Record<
      K,
      number
    >;
  return {
    baseEncoding: calibration.baseEncoding,
    ratios: roundAll(calibration.ratios),
    overheads: roundAll(calibration.overheads),
    safetyFactor: round(calibration.safetyFactor),
  };
}

/** A value as TypeScript source in the repository's style (single quotes, bare keys). */
function toSource(value: unknown, indent: string): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[${value.map((item) => toSource(item, inner)).join(', ')}]`;
  if (typeof value === 'string') return `'${value.replace(/'/g, "\\'")}'`;
  if (typeof value !== 'object' || value === null) return String(value);
  const lines = Object.entries(value).map(([key, child]) => {
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `'${key}'`;
    return `${inner}${name}: ${toSource(child, inner)},`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function main(): void {
  if (!piCorpusAvailable) {
    console.error(
      'The pi sessions are missing (set COMPACTOR_CORPUS_DIR or provide ../shared/corpus/pi). Nothing calibrated.',
    );
    process.exitCode = 1;
    return;
  }
  const { samples, skipped } = loadSamples();
  const models = [...new Set(samples.map((sample) => sample.model))].sort();
  console.log(
    `Claude calibration from ${piSessionFiles.length} pi sessions: ${samples.length} prompt-growth samples (${models.join(', ')})`,
  );
  console.log(
    `Skipped: ${Object.entries(skipped)
      .map(([reason, count]) => `${count} ${reason}`)
      .join(', ')}`,
  );
  console.log(`Safety factor target: over-count at least ${overCountShare * 100}% of samples.\n`);

  const results = (['o200k_base', 'cl100k_base'] as const).map((encoding) => {
    const measured = measureAll(samples, encoding);
    const fit = fitEstimateCalibration(measured, { baseEncoding: encoding, overCountShare });
    return { encoding, measured, fit, heldOut: heldOut(measured, encoding) };
  });
  for (const result of results) {
    console.log(`Base encoding ${result.encoding}`);
    console.log(describe('  fitted, no safety factor (in-sample)', result.fit.fitted));
    console.log(describe('  calibrated estimate (in-sample)', result.fit.safe));
    console.log(describe('  calibrated estimate (held-out sessions)', result.heldOut.samples));
    console.log(describe('  held-out, whole chains (≥ 5k tokens)', result.heldOut.chains));
  }
  const best = results.reduce((a, b) =>
    b.heldOut.samples.meanAbsolutePercentError < a.heldOut.samples.meanAbsolutePercentError ? b : a,
  );
  const calibration = roundCalibration(best.fit.calibration);
  const measured = best.measured;
  const inSample = statsOf(measured, calibration);

  console.log(`\nChosen: ${best.encoding} (lower held-out error). Calibration:`);
  console.log(`  ratios    ${JSON.stringify(calibration.ratios)}`);
  console.log(`  overheads ${JSON.stringify(calibration.overheads)}`);
  console.log(`  safety factor ${calibration.safetyFactor}`);

  console.log('\nComparisons (same samples, same base encoding):');
  const totalTokens = (measurement: Measurement) =>
    Math.max(
      1,
      Object.values(measurement.parts).reduce((sum, part) => sum + part.tokens, 0),
    );
  const totalBlocks = (measurement: Measurement) =>
    Object.values(measurement.parts).reduce((sum, part) => sum + part.blocks, 0);
  for (const withBlocks of [false, true]) {
    const ratio = calibrateRatio(
      measured.map((sample) => ({
        exactTokens: totalTokens(sample.measurement),
        actualTokens: sample.actualTokens,
        ...(withBlocks ? { items: totalBlocks(sample.measurement) } : {}),
      })),
      { overCountShare },
    );
    const label = withBlocks
      ? `  calibrateRatio: ${ratio.ratio.toFixed(3)} + ${ratio.overheadPerItem.toFixed(1)}/block, ×${ratio.safetyFactor.toFixed(3)}`
      : `  calibrateRatio: ${ratio.ratio.toFixed(3)}, ×${ratio.safetyFactor.toFixed(3)}`;
    console.log(describe(label, ratio.safe));
  }
  console.log(describe('  uncalibrated safety margin', statsOf(measured, uncalibratedClaude)));
  for (const model of models) {
    const own = measured.filter((sample) => sample.sample.model === model);
    console.log(describe(`  calibrated estimate on ${model}`, statsOf(own, calibration)));
  }
  console.log(describe('  calibrated, whole chains (≥ 5k tokens)', chainStats(measured, calibration)));
  console.log(
    describe('  no safety factor, whole chains', chainStats(measured, { ...calibration, safetyFactor: 1 })),
  );

  const entry = {
    calibration,
    measuredOn: {
      date: new Date().toISOString().slice(0, 10),
      files: piSessionFiles.map((file) => `pi/${file}`),
      models,
      samples: measured.length,
    },
    heldOutError: summary(best.heldOut.samples),
    inSampleError: summary(inSample),
  };
  const source = `// Generated by \`pnpm --filter @compactor/tokenizer calibrate\` (scripts/calibrate-claude.ts). Do not edit.
// Calibrated ${entry.measuredOn.date} on ${entry.measuredOn.files.join(', ')} (${models.join(', ')}):
// ${measured.length} prompt-growth samples, base encoding ${best.encoding}, safety factor for ${overCountShare * 100}% over-counts.
// Held-out sessions: MAPE ${percent(best.heldOut.samples.meanAbsolutePercentError)}, p95 ${percent(best.heldOut.samples.p95AbsolutePercentError)}, under-counted ${percent(best.heldOut.samples.underCountShare * 100)}.
// In-sample: MAPE ${percent(inSample.meanAbsolutePercentError)}, p95 ${percent(inSample.p95AbsolutePercentError)}, under-counted ${percent(inSample.underCountShare * 100)}.
import type { CalibrationTable } from './calibration-table.js';

/** \`claude-3\`: the tokenizer of Claude 3 through Opus 4.6, Sonnet 4.6 and Haiku 4.5. */
export const claudeCalibrationTable: CalibrationTable = {
  'claude-3': ${toSource(entry, '  ')},
};
`;
  writeFileSync(tableFile, source);
  console.log(`\nWrote ${tableFile}`);
}

main();
