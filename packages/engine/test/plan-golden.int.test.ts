/**
 * The planner's output, pinned byte for byte: work done to make planning cheaper must not change what
 * is planned (ADR-0280). Fixture threads are planned with the real renderer, tokenizer, extractive
 * summarizer and embedded artifact store; the plan, its records and its figures are compared with
 * goldens written before the planner's repeated work was removed. A change that means to plan differently
 * (a rung, the renderer's counts, the summarizer) updates them on purpose: `vitest run -u` rewrites the
 * files, and the pi digests are printed by the failing assertion; say why in the commit.
 */
import { createHash } from 'node:crypto';
import {
  availableForMessages,
  type CompactionPlan,
  type PlannerOutcome,
  planCompaction,
  stableStringify,
  type Thread,
} from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { corpusAvailable } from '@compactor/testkit/corpus';
import { type ThreadPolicyOverrides, threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { piThread } from '../bench/pi-thread.js';
import { createRenderMeasurer, threadBudget } from '../src/index.js';
import { type EmbeddedStores, withEmbeddedStores } from './support.js';

const NOW = '2025-01-01T00:00:00.000Z';

/** A deterministic pseudo-random text of about `words` words (no corpus, no Math.random). */
function prose(seed: number, words: number): string {
  const vocabulary = [
    'config',
    'server',
    'port',
    'retry',
    'deploy',
    'cache',
    'index',
    'query',
    'latency',
    'token',
    'thread',
    'render',
    'budget',
    'error',
    'result',
    'schema',
    'migration',
    'worker',
    'queue',
    'lock',
  ];
  let state = seed * 2654435761;
  const out: string[] = [];
  for (let index = 0; index < words; index += 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out.push(vocabulary[state % vocabulary.length]!);
    if (index % 13 === 12) out.push('.\n');
  }
  return out.join(' ');
}

/**
 * A coding session of `turns` turns: a request, a tool call, a result of varying size (some above the
 * externalize threshold), an answer; a pinned message and a standing instruction along the way.
 */
function codingThread(turns: number, policy: ThreadPolicyOverrides = {}): Thread {
  const builder = threadBuilder('golden', { contextWindow: 32_000, policy });
  for (let turn = 1; turn <= turns; turn += 1) {
    const request =
      turn === 3
        ? 'Always run the tests before you commit, and never push to main.'
        : `Turn ${turn}: ${prose(turn, 12)}`;
    builder.user(request, turn === 5 ? { pinned: true } : {});
    const tool = turn % 4 === 0 ? 'bash' : 'read_file';
    builder.assistant(`Looking at part ${turn}.`, {
      toolCalls: [{ id: `call_${turn}`, name: tool, input: { path: `src/file-${turn}.ts` } }],
    });
    const size = turn % 3 === 0 ? 900 : turn % 3 === 1 ? 120 : 400;
    builder.toolResult(`call_${turn}`, prose(turn * 7, size), {
      keyFields: { path: `src/file-${turn}.ts` },
      outcome: turn % 5 === 0 ? 'failure' : 'success',
    });
    builder.assistant(`Part ${turn} is done: ${prose(turn * 3, 30)}`);
  }
  return builder.build().thread;
}

async function plan(
  thread: Thread,
  options: { stores?: EmbeddedStores; currentPlan?: CompactionPlan | null; force?: boolean } = {},
): Promise<PlannerOutcome> {
  const tokenizer = createTokenizer({ model: thread.model });
  const measurer = createRenderMeasurer(thread, tokenizer, 'anthropic');
  return planCompaction({
    thread,
    currentPlan: options.currentPlan ?? null,
    targetTokens: availableForMessages(threadBudget(thread)),
    measure: measurer.measure,
    countMessage: measurer.countMessage,
    countText: measurer.countText,
    summarizer: createExtractiveSummarizer(),
    now: NOW,
    ...(options.force ? { manual: { force: true } } : {}),
    ...(options.stores ? { artifactStore: options.stores.artifacts } : {}),
  });
}

/** Everything the planner decides, as stable bytes. */
function planned(outcome: PlannerOutcome): string {
  const { status, reason, plan: committed, tokensBefore, tokensAfter, targetTokens } = outcome;
  const stable = stableStringify({
    status,
    reason,
    tokensBefore,
    tokensAfter,
    targetTokens,
    rungsUsed: outcome.rungsUsed,
    proposals: outcome.proposals,
    added: outcome.added,
    plan: committed,
  });
  // Sorted keys (stable), laid out as the formatter lays JSON out.
  return `${JSON.stringify(JSON.parse(stable), null, 2)}\n`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('plans stay the same bytes (ADR-0280)', () => {
  let stores: EmbeddedStores;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ stores, cleanup } = await withEmbeddedStores());
  });
  afterAll(async () => cleanup());

  it('a coding session planned with the artifact store (externalize, summarize)', async () => {
    const outcome = await plan(codingThread(60), { stores });
    expect(outcome.rungsUsed).toContain('externalize');
    await expect(planned(outcome)).toMatchFileSnapshot('__golden__/plan-coding-with-store.golden');
  });

  it('the same session planned without a store', async () => {
    const outcome = await plan(codingThread(60));
    await expect(planned(outcome)).toMatchFileSnapshot('__golden__/plan-coding-without-store.golden');
  });

  it('summaries off: the clear and drop rungs', async () => {
    const outcome = await plan(
      codingThread(60, {
        strategies: { abridge: false, externalize: false, summarize: false, clear: true, drop: true },
      }),
    );
    expect(outcome.rungsUsed.length).toBeGreaterThan(0);
    await expect(planned(outcome)).toMatchFileSnapshot('__golden__/plan-coding-clear-drop.golden');
  });

  it('a second plan on top of the first after the thread grew', async () => {
    const first = await plan(codingThread(60), { stores });
    const outcome = await plan(codingThread(90), { stores, currentPlan: first.plan, force: true });
    await expect(planned(outcome)).toMatchFileSnapshot('__golden__/plan-coding-second-round.golden');
  });

  it('rolling summaries: a second round folds the first summary in', async () => {
    const policy: ThreadPolicyOverrides = { summaryComposition: 'rolling' };
    const first = await plan(codingThread(60, policy), { stores });
    const outcome = await plan(codingThread(90, policy), { stores, currentPlan: first.plan, force: true });
    expect(outcome.rungsUsed).toContain('summarize');
    await expect(planned(outcome)).toMatchFileSnapshot('__golden__/plan-coding-rolling.golden');
  });

  // The benchmark's thread (2,000 pi messages): its plans' digests, recorded before ADR-0280's change. With a store,
  // re-recorded for ADR-0310: its six abridged inline PNGs are kept as artifacts, their stand-ins name `artifact:ID`;
  // for ADR-0330: the 12 artifacts its tightest summary thinned out of its text stay the plan's (externalizedArtifacts;
  // the rendered text and every token count are unchanged); for ADR-0400–0403 (extractive-v4: what searches looked
  // for, successful outcomes trimmed first, a coding session's budget merge joining enough of the oldest blocks).
  it.skipIf(!corpusAvailable('pi'))(
    'the 2,000-message pi bench thread plans to the same bytes: with a new store, with one that holds its outputs, without',
    { timeout: 120_000 },
    async () => {
      const thread = await piThread(2000);
      const withStore = planned(await plan(thread, { stores }));
      // Planned again with the same store, which now holds every output (a put answered from memory, ADR-0345).
      const withWarmStore = planned(await plan(thread, { stores }));
      const withoutStore = planned(await plan(thread));
      expect({
        withStore: sha256(withStore),
        withWarmStore: sha256(withWarmStore),
        withoutStore: sha256(withoutStore),
      }).toEqual({
        withStore: '902376e4d96594aa1d5694927d62560709047249414b814bcd5d2fbc09cdfe20',
        withWarmStore: '902376e4d96594aa1d5694927d62560709047249414b814bcd5d2fbc09cdfe20',
        withoutStore: 'e0cb979ad557ea567652cf30f50d2aafcf294cce719a53c13646f3d773304f7f',
      });
    },
  );
});
