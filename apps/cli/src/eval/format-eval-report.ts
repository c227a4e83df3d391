import { imageTokensByProvider } from '@compactor/tokenizer';
import type {
  EvaluationResult,
  NeedleSummaryRow,
  QaSummaryRow,
  RetentionCount,
  RunMetrics,
  SystemSummary,
} from './eval-types.js';
import { NEUTRAL_TURN } from './needle-rounds.js';
import { addCounts, share } from './probe-retention.js';
import { CACHE_PRICES, meanRequestTokens } from './prompt-cache.js';
import type { QaTally } from './qa-tally.js';

function percent(count: RetentionCount): string {
  const value = share(count);
  return value === null ? '–' : `${(value * 100).toFixed(1)}% (${count.retained}/${count.total})`;
}

function of(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((part / whole) * 100).toFixed(1)}%`;
}

function summaryTable(rows: readonly SystemSummary[]): string[] {
  return [
    '| system | runs | within budget | valid | compression (geo. mean) | fill of ceiling | coding probes retained | cached share (mean) | cost, Sonnet | time |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.system} | ${row.runs} | ${of(row.withinBudget, row.runs)} | ${of(row.valid, row.runs)} | ${row.compression.toFixed(2)}× | ${(row.fill * 100).toFixed(0)}% | ${percent(row.retention)} | ${row.cache ? row.cache.cachedShare.toFixed(3) : '–'} | ${row.cache ? dollars(row.cache.costUsd) : '–'} | ${(row.elapsedMs / 1000).toFixed(1)} s |`,
    ),
  ];
}

/** Tokens in thousands, one decimal: `22.0k`. */
function thousands(tokens: number): string {
  return `${(tokens / 1000).toFixed(1)}k`;
}

/**
 * Ours beside the sliding window given as many tokens as we send (ADR-0275): whether we are behind
 * because we send more, or at equal token use too.
 */
export function equalTokenTable(result: EvaluationResult): string[] {
  const rows = result.runs.filter((run) => run.cache && run.cacheAtOurTokens);
  if (rows.length === 0) return [];
  return [
    '',
    'At equal token use: the sliding window replayed at the ceiling whose mean request is closest to ours (its compaction target at the same ratio to the ceiling):',
    '',
    '| run | system | mean request | cached share | cost, Sonnet | sliding window at our tokens: ceiling | its mean request | its cached share | its cost |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((run) => {
      const ours = run.cache!;
      const equal = run.cacheAtOurTokens!;
      return `| ${run.transcript} @ ${Math.round(run.window / 1000)}k | ${run.system} | ${Math.round(meanRequestTokens(ours))} | ${ours.cachedShare.toFixed(3)} | ${dollars(ours.costUsd)} | ${equal.ceiling} | ${Math.round(meanRequestTokens(equal.figures))} | ${equal.figures.cachedShare.toFixed(3)} | ${dollars(equal.figures.costUsd)} |`;
    }),
  ];
}

/**
 * Per run, the best cached share any system could reach given that the tokens new since the previous
 * call must be written (ADR-0315), beside ours and the best baseline: a target above the ceiling is
 * out of reach by construction.
 */
export function ceilingTable(result: EvaluationResult): string[] {
  const rows = result.runs.filter((run) => run.cache && run.cacheCeiling);
  if (rows.length === 0) return [];
  return [
    '',
    'Ceiling (ADR-0315): the best cached share any system could reach, mean over calls of 1 − new_i / ceiling (new_i: meter tokens of the messages since the previous call, which every system writes; the ceiling scaled to meter tokens), the same with min(thread so far, ceiling) for a system that adds nothing to the thread, and the cost floor (the new tokens at the cache-write price):',
    '',
    '| run | ceiling share | thread-only ceiling | cost floor | ours | best baseline |',
    '|---|---|---|---|---|---|',
    ...rows.map((run) => {
      const ceiling = run.cacheCeiling!;
      const others = result.runs.filter(
        (other) =>
          other !== run &&
          other.cache &&
          other.transcript === run.transcript &&
          other.window === run.window &&
          !other.system.startsWith('preset:'),
      );
      const best = others.reduce<RunMetrics | null>(
        (top, other) => (top === null || other.cache!.cachedShare > top.cache!.cachedShare ? other : top),
        null,
      );
      const bestCell = best
        ? `${best.cache!.cachedShare.toFixed(3)} (${dollars(best.cache!.costUsd)}; ${best.system})`
        : '–';
      return `| ${run.transcript} @ ${Math.round(run.window / 1000)}k | ${ceiling.cachedShare.toFixed(3)} | ${ceiling.threadOnlyShare.toFixed(3)} | ${dollars(ceiling.costFloorUsd)} | ${run.cache!.cachedShare.toFixed(3)} (${dollars(run.cache!.costUsd)}) | ${bestCell} |`;
    }),
  ];
}

/**
 * Retention beside the cache (ADR-0365), per run whose conversation has QA items: each system's cached
 * share and cost beside the strict evidence of those questions asked at the run's ceiling, and the
 * cheapest baseline (presets and ours left out) keeping at least our strict evidence — issue #19's cost
 * target compares with that one, not with the cheapest at all.
 */
export function cacheRetentionTable(result: EvaluationResult): string[] {
  const asked = result.runs.filter((run) => run.cache && run.questions);
  const ours = asked.filter((run) => run.system === result.systems[0]?.name);
  if (ours.length === 0) return [];
  const evidence = (run: RunMetrics) =>
    run.questions!.overall.evidence / Math.max(1, run.questions!.overall.questions);
  const lines = [
    '',
    "Retention beside the cache (ADR-0365): the conversation's questions asked of each system at the run's ceiling (each system compacts the conversation once, then each question is appended as the newest turn, as in the question-conditioned part), strict evidence all / early / late, beside the cache figures of the same run; then the cheapest baseline (presets left out) that keeps at least our strict evidence:",
    '',
    '| run | system | cached share | cost, Sonnet | strict evidence | early | late | mean request (questions) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const notes: string[] = [];
  for (const run of ours) {
    const same = asked.filter((other) => other.transcript === run.transcript && other.window === run.window);
    const label = `${run.transcript} @ ${Math.round(run.window / 1000)}k`;
    for (const row of same) {
      const { overall, early, late, meanTokens } = row.questions!;
      lines.push(
        `| ${label} | ${row.system} | ${row.cache!.cachedShare.toFixed(3)} | ${dollars(row.cache!.costUsd)} | ${tallyCell(overall, 'evidence')} (${overall.evidence}/${overall.questions}) | ${tallyCell(early, 'evidence')} | ${tallyCell(late, 'evidence')} | ${meanTokens} |`,
      );
    }
    const keeping = same.filter(
      (other) => other !== run && !other.system.startsWith('preset:') && evidence(other) >= evidence(run),
    );
    const cheapest = keeping.reduce<RunMetrics | null>(
      (low, other) => (low === null || other.cache!.costUsd < low.cache!.costUsd ? other : low),
      null,
    );
    notes.push(
      cheapest
        ? `- ${label}: the cheapest baseline keeping at least our strict evidence (${tallyCell(run.questions!.overall, 'evidence')}) is ${cheapest.system}, ${dollars(cheapest.cache!.costUsd)} (${tallyCell(cheapest.questions!.overall, 'evidence')}); ours ${dollars(run.cache!.costUsd)}.`
        : `- ${label}: no baseline keeps our strict evidence (${tallyCell(run.questions!.overall, 'evidence')}); ours ${dollars(run.cache!.costUsd)}.`,
    );
  }
  return [...lines, '', ...notes];
}

function dollars(value: number): string {
  return `$${value.toFixed(2)}`;
}

/** One row per run (transcript @ budget), one cell per system: cached share, Sonnet cost, commits. */
export function cacheTable(result: EvaluationResult): string[] {
  const measured = result.runs.filter((run) => run.cache);
  if (measured.length === 0) return [];
  const systems = result.systems.filter((system) => measured.some((run) => run.system === system.name));
  const keys = [...new Set(measured.map((run) => `${run.transcript}\u0000${run.window}`))];
  const lines = [
    `| run | ${systems.map((system) => system.name).join(' | ')} |`,
    `|---|${systems.map(() => '---').join('|')}|`,
  ];
  for (const key of keys) {
    const [transcript, budget] = key.split('\u0000');
    const cells = systems.map((system) => {
      const cache = measured.find(
        (run) => run.system === system.name && run.transcript === transcript && String(run.window) === budget,
      )?.cache;
      return cache
        ? `${cache.cachedShare.toFixed(3)} (${dollars(cache.costUsd)}; ${cache.commits} c${cache.emergencyFits > 0 ? `, ${cache.emergencyFits} fits` : ''}; ${thousands(meanRequestTokens(cache))})`
        : '–';
    });
    lines.push(`| ${transcript} @ ${Math.round(Number(budget) / 1000)}k | ${cells.join(' | ')} |`);
  }
  lines.push(...equalTokenTable(result), ...ceilingTable(result), ...cacheRetentionTable(result));
  const ours = measured.filter((run) => run.system === result.systems[0]?.name);
  if (ours.length > 0) {
    lines.push(
      '',
      `Where ${result.systems[0]!.name}'s uncached tokens come from (recall blocks written on whatever call; the rest by calls right after a commit, calls with an emergency fit, the rest):`,
      '',
      '| run | uncached tokens | mean request | after a commit | emergency fit | recall block | other | fits: messages / summaries dropped, summaries trimmed |',
      '|---|---|---|---|---|---|---|---|',
      ...ours.map((run) => {
        const cache = run.cache!;
        const share = (part: number) => of(part, cache.uncachedTokens);
        const dropped = cache.emergencyDropped;
        const meanRequest = cache.calls > 0 ? Math.round(cache.inputTokens / cache.calls) : 0;
        return `| ${run.transcript} @ ${Math.round(run.window / 1000)}k | ${cache.uncachedTokens} | ${meanRequest} | ${share(cache.uncachedBy.commit)} | ${share(cache.uncachedBy.emergencyFit)} | ${share(cache.uncachedBy.recall ?? 0)} | ${share(cache.uncachedBy.other)} | ${dropped.messages} / ${dropped.summaries}, ${dropped.trimmedSummaries} |`;
      }),
    );
  }
  return lines;
}

function tallyCell(tally: QaTally, field: 'evidence' | 'answer' | 'chance'): string {
  return `${of(tally[field], tally.questions)}`;
}

function qaTable(rows: readonly QaSummaryRow[]): string[] {
  return [
    '| system | questions | strict evidence | early | late | answer (word boundary) | chance floor | tokens used / ceiling | requests over ceiling | emergency fits | summaries dropped | summary tokens (budget) | recall tokens |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const usage = row.usage;
      return `| ${row.system} | ${row.overall.questions} | ${tallyCell(row.overall, 'evidence')} | ${tallyCell(row.early, 'evidence')} | ${tallyCell(row.late, 'evidence')} | ${tallyCell(row.overall, 'answer')} | ${tallyCell(row.overall, 'chance')} | ${usage.meanTokens} / ${usage.ceiling} (${(usage.fill * 100).toFixed(0)}%) | ${usage.overCeiling} | ${usage.emergencyFits} | ${usage.droppedSummaries} | ${usage.meanSummaryTokens}${usage.summaryBudget === null ? '' : ` (${usage.summaryBudget})`} | ${usage.meanRecallTokens} |`;
    }),
  ];
}

function categoryTable(rows: readonly QaSummaryRow[]): string[] {
  const categories = [...new Set(rows.flatMap((row) => Object.keys(row.byCategory)))].sort();
  return [
    `| system | ${categories.join(' | ')} |`,
    `|---|${categories.map(() => '---').join('|')}|`,
    ...rows.map(
      (row) =>
        `| ${row.system} | ${categories
          .map((category) => {
            const tally = row.byCategory[category];
            if (!tally) return '–';
            return `${tallyCell(tally, 'evidence')} ev. · ${tallyCell(tally, 'answer')} ans. (chance ${tallyCell(tally, 'chance')}) · n=${tally.questions}`;
          })
          .join(' | ')} |`,
    ),
  ];
}

function needleTable(rows: readonly NeedleSummaryRow[]): string[] {
  const kinds = [...new Set(rows.flatMap((row) => Object.keys(row.byKind)))].sort();
  return [
    `| system | ceiling | instructions present (all rounds) | facts recalled (all rounds) | needles kept in every round | mean tokens | emergency fits / renders | summaries dropped | summary over budget | ${kinds.map((kind) => `${kind}: instr. · facts`).join(' | ')} |`,
    `|---|---|---|---|---|---|---|---|---|${kinds.map(() => '---').join('|')}|`,
    ...rows.map(
      (row) =>
        `| ${row.system} | ${row.ceiling} | ${percent(row.instructions)} | ${percent(row.facts)} | ${percent(row.keptEveryRound)} | ${row.meanRequestTokens} | ${row.emergencyFits} / ${row.renders} | ${row.droppedSummaries} | ${row.summaryOverBudget} | ${kinds
          .map((kind) => {
            const counts = row.byKind[kind];
            return counts
              ? `${of(counts.instructions.retained, counts.instructions.total)} · ${of(counts.facts.retained, counts.facts.total)}`
              : '–';
          })
          .join(' | ')} |`,
    ),
  ];
}

/** The evaluation as Markdown: question-conditioned LoCoMo, needles, budget runs, probes, drift. */
export function formatEvaluationReport(result: EvaluationResult): string {
  const lines: string[] = ['# compactor eval', ''];
  lines.push(
    `${result.transcripts.length} transcripts, ${result.runs.length} budget runs, ${result.qa.length} question-conditioned runs, ${result.needles.length} needle runs, ${(result.elapsedMs / 1000).toFixed(1)} s.`,
    '',
  );
  for (const skipped of result.skipped) lines.push(`- skipped ${skipped}`);
  if (result.skipped.length > 0) lines.push('');

  if (result.qaSummary.length > 0) {
    lines.push(
      '## LoCoMo, question-conditioned',
      '',
      `Images ${result.qaOptions.captions ? 'as their captions' : 'kept as URL images'}; ceiling = the conversation's text tokens ÷ ratio. Every QA item is one question for every system. Strict evidence: every evidence turn's whole text in the request. Answer: on word boundaries, 4+ characters, yes/no excluded; chance floor: the same check on a request of equal size holding none of the evidence. \`@ours-tokens\`: run with our mean request tokens as its ceiling.`,
      '',
    );
    for (const ratio of result.qaOptions.ratios) {
      const rows = result.qaSummary.filter((row) => row.ratio === ratio);
      lines.push(
        `### ${ratio}× of the text`,
        '',
        ...qaTable(rows),
        '',
        'By category:',
        '',
        ...categoryTable(rows),
        '',
      );
    }
  }

  if (result.needleSummary.length > 0) {
    lines.push(
      '## Planted needles, 10 chained compactions',
      '',
      `Seed ${result.needleSeed}. Each round counts each planted needle once: instructions must be in the rendered request (newest turn: "${NEUTRAL_TURN}"), facts must be in the request that asks for them.`,
      '',
      ...needleTable(result.needleSummary),
      '',
    );
  }

  for (const [kind, rows] of Object.entries(result.summaries)) {
    lines.push(`## Budget runs: ${kind}`, '', ...summaryTable(rows), '');
  }

  const cache = cacheTable(result);
  if (cache.length > 0) {
    lines.push(
      '## Prompt cache per run',
      '',
      `Every system's request before every assistant message of the replay, serialized in provider order (tools, system, messages) and counted by the run's tokenizer, images and documents as the provider bills them (the tokenizer's estimate: ${imageTokensByProvider.openai.toLocaleString('en-US')} tokens an image for OpenAI models, ${imageTokensByProvider.anthropic.toLocaleString('en-US')} for Claude, a PDF by its pages), not as their URL's text, a picture cached only whole (ADR-0470); cached share = mean over calls of the longest common prefix with the previous request ÷ request tokens. Cost at Claude Sonnet list prices: the common prefix as cache read ($${CACHE_PRICES.anthropic.cacheReadPerMTok}/MTok), the rest as cache write ($${CACHE_PRICES.anthropic.cacheWritePerMTok}/MTok), output not counted (plain input is $${CACHE_PRICES.anthropic.inputPerMTok}/MTok); results.json also has \`openAiCostUsd\` at ${CACHE_PRICES.openai.model} prices ($${CACHE_PRICES.openai.inputPerMTok} input, $${CACHE_PRICES.openai.cacheReadPerMTok} cached, prefixes of ${CACHE_PRICES.openai.minimumCachedTokens}+ tokens in ${CACHE_PRICES.openai.cachedIncrement}-token steps). Baselines compact on overflow to our planner's target and keep their result until the next overflow. Cells: share ($ cost; commits, emergency fits; mean request tokens).`,
      '',
      ...cache,
      '',
    );
  }

  const ours = result.runs.filter((run) => run.system === result.systems[0]?.name);
  if (ours.length > 0) {
    lines.push('## Our system: final renders, summaries, cost', '');
    const fits = ours.filter((run) => run.emergency);
    const droppedSummaries = ours.filter((run) => (run.emergency?.droppedSummaries ?? 0) > 0);
    const overBudget = ours.filter(
      (run) =>
        run.summaryBudget !== null &&
        run.summaryBudget !== undefined &&
        (run.summaryTokens ?? 0) > run.summaryBudget,
    );
    const calls = ours.reduce((sum, run) => sum + (run.summarizerCalls ?? 0), 0);
    const cost = ours.reduce((sum, run) => sum + (run.summarizerCostUsd ?? 0), 0);
    const compactions = ours.reduce((sum, run) => sum + (run.compactions ?? 0), 0);
    lines.push(
      `- ${fits.length} of ${ours.length} final renders needed the emergency fit; ${droppedSummaries.length} of them dropped a whole summary${droppedSummaries.length > 0 ? `: ${droppedSummaries.map((run) => `${run.transcript} @ ${run.window} (${run.emergency?.droppedSummaryTokens} tokens)`).join(', ')}` : ''}.`,
      `- Summary over its budget in ${overBudget.length} of ${ours.filter((run) => (run.summaryTokens ?? 0) > 0).length} runs with a summary${overBudget.length > 0 ? `: ${overBudget.map((run) => `${run.transcript} @ ${run.window} (${run.summaryTokens}/${run.summaryBudget})`).join(', ')}` : ''}.`,
      `- ${compactions} compactions, ${calls} summarizer calls, $${cost.toFixed(4)}.`,
      '',
    );
  }

  const probeKinds = [...new Set(result.runs.flatMap((run) => Object.keys(run.retention.byKind)))].sort();
  if (probeKinds.length > 0) {
    lines.push(
      '## Coding probes by kind (all context windows)',
      '',
      `| system | ${probeKinds.join(' | ')} |`,
      `|---|${probeKinds.map(() => '---').join('|')}|`,
    );
    for (const system of result.systems) {
      const runs = result.runs.filter((run) => run.system === system.name);
      lines.push(
        `| ${system.name} | ${probeKinds
          .map((kind) =>
            percent(
              runs.reduce(
                (total, run) => addCounts(total, run.retention.byKind[kind] ?? { retained: 0, total: 0 }),
                { retained: 0, total: 0 },
              ),
            ),
          )
          .join(' | ')} |`,
      );
    }
    lines.push('');
  }

  if (result.drift.length > 0) {
    lines.push('## Drift: round-1 pinned facts present after each of 10 chained compactions (plan data)', '');
    lines.push(
      '| transcript | pinned (round 1) | round-1 pinned present, per round | summarizing rounds | pinned seen (any round) | lost, per round |',
      '|---|---|---|---|---|---|',
      ...result.drift.map(
        (drift) =>
          `| ${drift.transcript} | ${drift.pinnedFactsRound1} | ${drift.presentPerRound.map((value) => (value === null ? '–' : String(value))).join(' ')} | ${drift.summarizedRounds} | ${drift.pinnedFactsSeen} | ${drift.lostPinnedPerRound.join(' ')} |`,
      ),
      '',
    );
  }
  const failures = result.runs.filter((run) => !run.withinBudget || !run.valid || run.error);
  if (failures.length > 0) {
    lines.push('## Budget runs over budget, invalid or failed', '');
    for (const run of failures.slice(0, 40)) {
      const why =
        run.error ??
        (run.valid ? `${run.requestTokens} > ${run.ceiling} tokens` : (run.validationErrors[0] ?? 'invalid'));
      lines.push(`- ${run.system} on ${run.transcript} @ ${run.window}: ${why}`);
    }
    if (failures.length > 40) lines.push(`- … and ${failures.length - 40} more (see results.json)`);
    lines.push('');
  }
  return lines.join('\n');
}
