/**
 * Render benchmark: `pnpm --filter @compactor/render bench` (needs ../shared/corpus).
 *
 * A ~2,000-message, ~150k-token thread built from the pi sessions, with a 50-record plan, rendered
 * the way a runtime calls the renderer: warm (a RenderCache kept between calls, the thread
 * unchanged or grown by one event), plus the cold first render; and, in the same run, the baseline's
 * way (ADR-0023): every message re-tokenized with js-tiktoken on every call.
 */
import { foldMore, foldThread, type ProviderName, type Tokenizer } from '@compactor/core';
import { createCountCache, createTokenizer } from '@compactor/tokenizer';
import { createRenderCache, type RenderInput, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { benchPlan } from './bench-plan.js';
import { corpusAvailable, corpusDirectory, corpusThread } from './corpus-thread.js';
import { benchBudget as budget, benchSystem as system, benchTools as tools } from './render-setup.js';
import { createRetokenizingTokenizer } from './retokenizing-tokenizer.js';
import { percentile, time } from './timing.js';

if (!corpusAvailable) {
  console.log(`skipped: no pi sessions under ${corpusDirectory} (set COMPACTOR_CORPUS_DIR)`);
  process.exit(0);
}

const WARM_RUNS = 1_000;
const BASELINE_RUNS = 15;
const PROVIDERS: ProviderName[] = ['anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'];

const claude = createTokenizer({ model: 'claude-sonnet-4-5' });
const gpt = createTokenizer({ model: 'gpt-4o' });
const setupStart = performance.now();
const { thread, events } = corpusThread(gpt);
const plan = benchPlan(thread);
const rawTokens = (tokenizer: Tokenizer, provider: ProviderName) =>
  thread.messages.reduce((sum, message) => sum + tokenizer.countMessage(message, provider), 0);
const records =
  plan.summarizations.length + plan.externalizations.length + plan.clearings.length + plan.drops.length;
const input = (
  provider: ProviderName,
  tokenizer: Tokenizer,
  extra: Partial<RenderInput> = {},
): RenderInput => ({
  thread,
  plan,
  system,
  tools,
  budget,
  provider,
  tokenizer,
  ...extra,
});

// Cold: a fresh render cache and a fresh tokenizer count cache: everything formatted and tokenized.
const coldTokenizer = createTokenizer({ model: 'claude-sonnet-4-5', cache: createCountCache() });
let coldResult = renderPromptSync(input('anthropic', coldTokenizer));
const coldMs = time(() => {
  coldResult = renderPromptSync(
    input('anthropic', createTokenizer({ model: 'claude-sonnet-4-5', cache: createCountCache() })),
  );
});
const validation = validateProviderRequest('anthropic', coldResult.request);
if (!validation.valid) throw new Error(`invalid request: ${validation.errors.slice(0, 3).join('; ')}`);

// Warm, unchanged thread (a runtime re-rendering in a tool loop), per provider.
const warm: Record<string, { p50: number; p99: number }> = {};
for (const provider of PROVIDERS) {
  const tokenizer = provider.startsWith('openai') ? gpt : claude;
  const cache = createRenderCache();
  for (let run = 0; run < 20; run += 1) renderPromptSync(input(provider, tokenizer, { cache }));
  const samples = Array.from({ length: WARM_RUNS }, () =>
    time(() => renderPromptSync(input(provider, tokenizer, { cache }))),
  );
  warm[provider] = { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

// Warm, one event appended before each call (the steady state between model calls).
const appendCount = 200;
const grown = [foldThread(events.slice(0, events.length - appendCount))];
for (const event of events.slice(events.length - appendCount)) grown.push(foldMore(grown.at(-1)!, [event]));
const appendCache = createRenderCache();
renderPromptSync({ ...input('anthropic', claude, { cache: appendCache }), thread: grown[0]! });
const appendSamples = grown
  .slice(1)
  .map((grownThread) =>
    time(() =>
      renderPromptSync({ ...input('anthropic', claude, { cache: appendCache }), thread: grownThread }),
    ),
  );

// Baseline (ADR-0023): a per-step walk that re-counts every message, with js-tiktoken instead of length/4, and no memo at all.
const baselineTokenizer = createRetokenizingTokenizer();
const baselineSamples = Array.from({ length: BASELINE_RUNS }, () =>
  time(() => renderPromptSync(input('anthropic', baselineTokenizer))),
);
const setupMs = performance.now() - setupStart;

const ours = warm.anthropic!;
const baseline = { p50: percentile(baselineSamples, 0.5), p99: percentile(baselineSamples, 0.99) };
const appended = { p50: percentile(appendSamples, 0.5), p99: percentile(appendSamples, 0.99) };
const format = (ms: number) => `${ms < 10 ? ms.toFixed(3) : ms.toFixed(1)} ms`;
console.log(
  `thread: ${thread.messages.length} messages, ${rawTokens(gpt, 'openai-chat')} tokens (gpt-4o, o200k_base), ` +
    `${rawTokens(claude, 'anthropic')} as claude-sonnet-4-5 estimates; ${records}-record plan`,
);
console.log(
  `rendered: ${coldResult.tokens.total} tokens, ${coldResult.report.counts.wireMessages} wire messages, ` +
    `stable prefix ${coldResult.report.stablePrefixTokens} tokens, ${coldResult.report.cacheBreakpoints} breakpoints`,
);
console.log('');
console.log('| render (anthropic unless named) | p50 | p99 | runs |');
console.log('|---|---|---|---|');
console.log(`| cold first render (empty caches) | ${format(coldMs)} | – | 1 |`);
for (const provider of PROVIDERS) {
  console.log(
    `| warm, unchanged thread, ${provider} | ${format(warm[provider]!.p50)} | ${format(warm[provider]!.p99)} | ${WARM_RUNS} |`,
  );
}
console.log(
  `| warm, one event appended per call | ${format(appended.p50)} | ${format(appended.p99)} | ${appendSamples.length} |`,
);
console.log(
  `| baseline: js-tiktoken re-tokenizing every message per call | ${format(baseline.p50)} | ${format(baseline.p99)} | ${BASELINE_RUNS} |`,
);
console.log('');
console.log(
  `p50 speed-up over the baseline: ${(baseline.p50 / ours.p50).toFixed(0)}× (unchanged), ${(baseline.p50 / appended.p50).toFixed(0)}× (append)`,
);
console.log(
  `target: p50 ≤ 2 ms → ${ours.p50 <= 2 && appended.p50 <= 2 ? 'met' : 'NOT met'}; ≥ 50× → ${baseline.p50 / Math.max(ours.p50, appended.p50) >= 50 ? 'met' : 'NOT met'}`,
);
console.log(`(whole run ${(setupMs / 1000).toFixed(1)} s, node ${process.version})`);
