import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompactionPlan, type EventInput, noopLogger, systemClock } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine } from '@compactor/engine';
import { importTranscriptFile } from '@compactor/importers';
import { createResilientSummarizer } from '@compactor/summarizer';
import { createTokenizer } from '@compactor/tokenizer';
import { providerForModel } from '../replay/replay-transcript.js';
import type { DriftResult, EvalTranscript } from './eval-types.js';

export const DRIFT_ROUNDS = 10;

/**
 * A short protected tail (2,000 tokens, no whole turns), so that each tenth of even a
 * one-task SWE-agent trajectory leaves something older to summarize.
 */
export const DRIFT_POLICY = { keepRecentTurns: 0, keepRecentTokens: 2_000 } as const;

/**
 * Ten chained compactions: the transcript is appended a tenth at a time and compacted with
 * `force` after each tenth, in a window the whole transcript fits (so only the forced rounds compact)
 * and under `DRIFT_POLICY`. Round 1's pinned facts (every pinned fact of the plan's summaries after
 * the first round that summarized) are then looked up verbatim among the plan's summary facts
 * after each round. Every pinned fact seen in any round is also tracked: `lostPinnedPerRound`
 * counts, after each round, those seen earlier and missing now.
 */
export async function measureDrift(transcript: EvalTranscript, contextWindow: number): Promise<DriftResult> {
  const imported = await importTranscriptFile(transcript.file, { conversation: transcript.conversation });
  const tokenizer = createTokenizer({
    model: imported.model,
    modelInfo: { contextWindow, maxOutputTokens: 4_096, tokenizerFamily: 'o200k_base' },
  });
  const provider = providerForModel(imported.model);
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-drift-'));
  const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
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
    const tenantId = 'drift';
    const events = imported.events.map((event): EventInput => {
      if (event.type === 'thread.created')
        return {
          ...event,
          contextWindow,
          model: imported.model,
          policy: { ...event.policy, ...DRIFT_POLICY },
        };
      if (event.type === 'message.appended')
        return { ...event, tokens: tokenizer.countMessage(event.message, provider) };
      return event;
    });
    const [created, ...rest] = events;
    if (created) await stores.events.append(tenantId, imported.threadId, [created]);
    let round1: string[] | undefined;
    const presentPerRound: Array<number | null> = [];
    const everPinned = new Set<string>();
    const lostPinnedPerRound: number[] = [];
    let summarizedRounds = 0;
    for (let round = 0; round < DRIFT_ROUNDS; round += 1) {
      const from = Math.floor((rest.length * round) / DRIFT_ROUNDS);
      const to = Math.floor((rest.length * (round + 1)) / DRIFT_ROUNDS);
      if (to > from) await stores.events.append(tenantId, imported.threadId, rest.slice(from, to));
      const result = await engine.compactThread(tenantId, imported.threadId, { force: true });
      const plan = (await stores.plans.getCurrent(tenantId, imported.threadId)).plan;
      const facts = summaryFacts(plan);
      if (result.commit.status === 'committed' && (result.planner?.summarizerCalls ?? 0) > 0)
        summarizedRounds += 1;
      if (round1 === undefined && facts.all.length > 0) round1 = facts.pinned;
      const presentNow = new Set(facts.all);
      lostPinnedPerRound.push([...everPinned].filter((fact) => !presentNow.has(fact)).length);
      for (const fact of facts.pinned) everPinned.add(fact);
      if (round1 === undefined) {
        presentPerRound.push(null);
        continue;
      }
      const present = new Set(facts.all);
      presentPerRound.push(round1.filter((fact) => present.has(fact)).length);
    }
    return {
      transcript: transcript.label,
      kind: transcript.kind,
      pinnedFactsRound1: round1?.length ?? 0,
      presentPerRound,
      pinnedFactsSeen: everPinned.size,
      lostPinnedPerRound,
      summarizedRounds,
    };
  } finally {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function summaryFacts(plan: CompactionPlan | null): { all: string[]; pinned: string[] } {
  const summaries = [
    ...(plan?.summarizations ?? []).map((record) => record.summary),
    ...(plan?.externalizations ?? []).map((record) => record.summary),
  ];
  const facts = summaries.flatMap((summary) => summary.facts);
  return {
    all: facts.map((fact) => fact.text),
    pinned: [...new Set(facts.filter((fact) => fact.pinned).map((fact) => fact.text))],
  };
}
