import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompactionPolicy, type EventInput, foldThread, noopLogger, systemClock } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine } from '@compactor/engine';
import { importTranscriptFile } from '@compactor/importers';
import { createResilientSummarizer } from '@compactor/summarizer';
import { createTokenizer, resolveModelInfo } from '@compactor/tokenizer';
import { providerForModel } from '../replay/replay-transcript.js';
import { answerMatches, wordsOf } from './answer-match.js';
import { imagesAsCaptions } from './captions.js';
import {
  type ConditionedSystem,
  type EmergencyFigures,
  type PreparedSystem,
  questionMessage,
} from './conditioned-system.js';
import type { EvalTranscript } from './eval-types.js';
import { generateNeedles, type PlantedNeedle, seedOf } from './needles.js';
import { OURS, oursPrepared, windowForCeiling } from './ours-conditioned.js';
import { plantNeedles } from './plant-needles.js';
import { containsNormalized, requestText } from './request-text.js';

export const NEEDLE_ROUNDS = 10;
export const NEEDLES_PER_TRANSCRIPT = 6;
/**
 * The turn asked when checking instructions: a neutral next turn sharing no word with any needle
 * template (so a recall search on it cannot find an instruction by its wording).
 */
export const NEUTRAL_TURN = 'Continue.';

export interface NeedleRound {
  round: number;
  /** Needles whose message had been appended by this round. */
  instructions: number;
  instructionsPresent: number;
  facts: number;
  factsRecalled: number;
  /** Tokens of the request with the neutral turn (independent count). */
  requestTokens: number;
  /** What that render used and had to do: emergency fit, summary size vs budget, recall tokens. */
  emergency: EmergencyFigures | null;
  summaryTokens: number;
  summaryBudget: number | null;
  recallTokens: number;
}

export interface NeedleRun {
  system: string;
  transcript: string;
  kind: string;
  ceiling: number;
  contextWindow: number;
  needles: PlantedNeedle[];
  rounds: NeedleRound[];
  /** Needles present (instructions) or recalled (facts) in every round from their planting on. */
  keptEveryRound: number;
  /** Ours: compactions committed over the run. */
  compactions?: number;
}

export interface NeedleOptions {
  transcripts: readonly EvalTranscript[];
  /** Render ceilings (default 8k, 16k, 32k). */
  ceilings: readonly number[];
  seed: number;
  policy?: Partial<CompactionPolicy>;
  systems: readonly ConditionedSystem[];
  onProgress?: (step: string) => void;
}

/**
 * Planted needles through 10 chained compactions. The transcript (needles planted) is appended a
 * tenth at a time; the workers' debounced checks run as it grows (every 1% of the window, at most
 * 100 per round) and a forced compaction closes each tenth. After each round every system renders the thread so far
 * with a neutral newest turn (instructions must be in that request) and with each fact's question
 * as the newest turn (its value must be in that request, on word boundaries).
 */
export async function runNeedles(options: NeedleOptions): Promise<NeedleRun[]> {
  const runs: NeedleRun[] = [];
  for (const transcript of options.transcripts) {
    const imported = await importTranscriptFile(transcript.file, { conversation: transcript.conversation });
    const seed = (options.seed ^ seedOf(transcript.label)) >>> 0;
    const needles = generateNeedles(seed, NEEDLES_PER_TRANSCRIPT);
    const { events, planted } = plantNeedles(imagesAsCaptions(imported.events), needles, seed);
    for (const ceiling of options.ceilings) {
      runs.push(...(await needleRunAt(transcript, imported.model, events, planted, ceiling, options)));
      options.onProgress?.(`needles ${transcript.label} @ ${ceiling}`);
    }
  }
  return runs;
}

async function needleRunAt(
  transcript: EvalTranscript,
  model: string,
  events: readonly EventInput[],
  planted: PlantedNeedle[],
  ceiling: number,
  options: NeedleOptions,
): Promise<NeedleRun[]> {
  const contextWindow = windowForCeiling(ceiling, options.policy);
  const known = (() => {
    try {
      return resolveModelInfo(model);
    } catch {
      return undefined;
    }
  })();
  const tokenizer = createTokenizer({
    model,
    modelInfo: known
      ? {}
      : { contextWindow, maxOutputTokens: Math.min(16_384, contextWindow), tokenizerFamily: 'o200k_base' },
  });
  const provider = providerForModel(model);
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-needles-'));
  const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
  const systems = [{ name: OURS }, ...options.systems];
  const perSystem = systems.map(() => ({ rounds: [] as NeedleRound[], lost: new Set<string>() }));
  let compactions = 0;
  try {
    const engine = createCompactionEngine({
      events: stores.events,
      plans: stores.plans,
      artifacts: stores.artifacts,
      lifecycle: stores.lifecycle,
      summarizer: createResilientSummarizer(),
      clock: systemClock,
      provider,
      tokenizerFor: () => tokenizer,
    });
    const tenantId = 'needles';
    const threadId = `needles-${transcript.label}`;
    const prepared = events.map((event): EventInput => {
      if (event.type === 'thread.created')
        return {
          ...event,
          contextWindow,
          model,
          ...(options.policy ? { policy: { ...event.policy, ...options.policy } } : {}),
        };
      if (event.type === 'message.appended')
        return { ...event, tokens: tokenizer.countMessage(event.message, provider) };
      return event;
    });
    const [created, ...rest] = prepared;
    if (created) await stores.events.append(tenantId, threadId, [created]);
    // The workers' debounce (1% of the window), capped at 100 checks per round so that a 600k-token
    // session at an 8k window stays minutes, not hours.
    const messageTokens = rest.reduce(
      (sum, event) => sum + (event.type === 'message.appended' ? (event.tokens ?? 0) : 0),
      0,
    );
    const checkEvery = Math.max(
      1,
      Math.floor(contextWindow * 0.01),
      Math.ceil(messageTokens / NEEDLE_ROUNDS / 100),
    );
    const appended = new Set<string>();
    for (let round = 1; round <= NEEDLE_ROUNDS; round += 1) {
      const from = Math.floor((rest.length * (round - 1)) / NEEDLE_ROUNDS);
      const to = Math.floor((rest.length * round) / NEEDLE_ROUNDS);
      let since = 0;
      for (const event of rest.slice(from, to)) {
        await stores.events.append(tenantId, threadId, [event]);
        if (event.type !== 'message.appended') continue;
        appended.add(event.message.id);
        since += event.tokens ?? 0;
        if (since >= checkEvery) {
          since = 0;
          const result = await engine.check(tenantId, threadId);
          if (result.commit.status === 'committed') compactions += 1;
        }
      }
      const forced = await engine.compactThread(tenantId, threadId, { force: true });
      if (forced.commit.status === 'committed') compactions += 1;
      const thread = foldThread(await stores.events.readAll(tenantId, threadId));
      const plan = (await stores.plans.getCurrent(tenantId, threadId)).plan;
      const live = planted.filter((needle) => appended.has(needle.messageId));
      for (const [index, system] of systems.entries()) {
        const asker: PreparedSystem =
          index === 0
            ? oursPrepared({ thread, plan, tokenizer, provider })
            : await (system as ConditionedSystem).prepare({
                thread,
                ceiling,
                provider,
                tokenizer,
                questionReserve: 32,
              });
        const neutral = asker.ask(questionMessage(thread, `eval-neutral-${round}`, NEUTRAL_TURN));
        const neutralText = neutral.request === null ? '' : requestText(neutral.request);
        const state = perSystem[index]!;
        const tally: NeedleRound = {
          round,
          instructions: 0,
          instructionsPresent: 0,
          facts: 0,
          factsRecalled: 0,
          requestTokens:
            neutral.request === null ? 0 : tokenizer.countRequest(neutral.request as never, provider),
          emergency: neutral.emergency,
          summaryTokens: neutral.summaryTokens,
          summaryBudget: neutral.summaryBudget,
          recallTokens: neutral.recallTokens,
        };
        for (const needle of live) {
          if (needle.kind === 'instruction') {
            tally.instructions += 1;
            if (containsNormalized(neutralText, needle.text)) tally.instructionsPresent += 1;
            else state.lost.add(needle.id);
          } else {
            tally.facts += 1;
            const asked = asker.ask(
              questionMessage(thread, `eval-ask-${needle.id}-${round}`, needle.question ?? ''),
            );
            const words = asked.request === null ? '' : wordsOf(requestText(asked.request));
            if (answerMatches(words, needle.value)) tally.factsRecalled += 1;
            else state.lost.add(needle.id);
          }
        }
        state.rounds.push(tally);
      }
    }
  } finally {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  return systems.map((system, index) => ({
    system: system.name,
    transcript: transcript.label,
    kind: transcript.kind,
    ceiling,
    contextWindow,
    needles: planted,
    rounds: perSystem[index]!.rounds,
    keptEveryRound: planted.length - perSystem[index]!.lost.size,
    ...(index === 0 ? { compactions } : {}),
  }));
}
