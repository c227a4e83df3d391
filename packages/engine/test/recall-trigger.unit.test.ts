import {
  type CompactionPlan,
  compactionPlanSchema,
  spanOf,
  structuredSummarySchema,
  type Thread,
  tokenBudget,
} from '@compactor/core';
import { createRenderCache, renderPromptSync } from '@compactor/render';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { describe, expect, it } from 'vitest';
import { RECALL_TRIGGER, recallBlocksTrigger } from '../src/recall-trigger.js';

const MARKER = '[Recalled from earlier in this conversation';
const WORDS = ['locker', 'violin', 'harbour', 'pottery', 'marathon', 'glacier', 'lantern', 'orchard'];

/** Compacted notes, then coding turns asking about them, each reading a long file. */
function scenario(recall: Partial<Thread['policy']['recall']> = {}): {
  thread: Thread;
  plan: CompactionPlan;
} {
  const builder = threadBuilder('recall-trigger', { tenantId: 'tenant-1' });
  for (let note = 0; note < 12; note += 1)
    builder
      .user(`Note ${note}: the ${WORDS[note % 8]} and the ${WORDS[(note + 3) % 8]} have code ${1000 + note}.`)
      .assistant('Noted.');
  for (let turn = 0; turn < 4; turn += 1) {
    builder.user(`Question ${turn}: what code do the ${WORDS[turn]} and the ${WORDS[(turn + 5) % 8]} have?`);
    for (let call = 0; call < 3; call += 1) {
      builder.assistant(`Reading ${turn}.${call}.`, {
        toolCalls: [{ id: `c${turn}x${call}`, name: 'read_file', input: { path: `f-${turn}-${call}.txt` } }],
      });
      builder.toolResult(`c${turn}x${call}`, `file ${turn}.${call}: ${'shelf lamp desk '.repeat(60)}`);
    }
    builder.assistant(`Answer ${turn}.`);
  }
  const built = builder.build().thread;
  const thread: Thread = {
    ...built,
    policy: {
      ...built.policy,
      recall: { ...built.policy.recall, placement: 'append', appendCommitWhenLeftOut: true, ...recall },
    },
  };
  const notes = thread.messages.slice(0, 24);
  const plan = compactionPlanSchema.parse({
    threadId: thread.id,
    version: 3,
    basedOnSeq: notes.at(-1)!.seq,
    createdAt: '2025-01-01T00:00:00.000Z',
    externalizations: [],
    summarizations: [
      {
        kind: 'summarize',
        span: spanOf(notes),
        summary: structuredSummarySchema.parse({ facts: [{ text: 'twelve notes with codes' }] }),
        summaryTokenCount: 0,
        round: 1,
      },
    ],
    clearings: [],
    drops: [],
    abridgements: [],
  });
  return { thread, plan };
}

const tokenizer = createTokenizer({ model: 'claude-sonnet-4-5' });

function prefix(thread: Thread, count: number, contextWindow: number): Thread {
  const messages = thread.messages.slice(0, count);
  return { ...thread, messages, version: messages.at(-1)!.seq, contextWindow };
}

/** The agent's call points after the plan: before each assistant message that follows another role. */
function callPoints(thread: Thread): number[] {
  const points: number[] = [];
  for (let index = 25; index < thread.messages.length; index += 1)
    if (thread.messages[index]!.role === 'assistant' && thread.messages[index - 1]!.role !== 'assistant')
      points.push(index);
  return points;
}

function blocks(thread: Thread, plan: CompactionPlan): string[] {
  const rendered = renderPromptSync({
    thread,
    plan,
    system: '',
    tools: [],
    budget: tokenBudget({
      maxInputTokens: thread.contextWindow,
      outputReserveTokens: thread.policy.outputReserveTokens,
      safetyBufferTokens: thread.policy.safetyBufferTokens,
      rehydrationReserveTokens: thread.policy.rehydrationReserveTokens,
    }),
    provider: 'anthropic',
    tokenizer,
  });
  const wire = rendered.request.messages.map((message) => JSON.stringify(message.content));
  // Inside blocks only (an end block is ephemeral by design).
  return wire.slice(0, -1).filter((text) => text.includes(MARKER));
}

function decide(thread: Thread, plan: CompactionPlan | null, floorTokens = 0, highWaterTokens = 1_000) {
  return recallBlocksTrigger({
    thread,
    plan,
    tokenizer,
    provider: 'anthropic',
    cache: createRenderCache(),
    overheadTokens: 0,
    messageTokens: 1_000,
    floorTokens,
    highWaterTokens,
  });
}

describe('the check sees the append-only recall blocks (ADR-0361)', () => {
  it('fires at every call whose request would send fewer of the plan version’s blocks than the call before', () => {
    const { thread, plan } = scenario();
    let fired = 0;
    let quiet = 0;
    // Windows from roomy to tight: the blocks fit, then the growing turns push them out.
    for (const window of [60_000, 24_000, 22_000, 20_000, 19_000]) {
      let before: string[] | undefined;
      for (const point of callPoints(thread)) {
        const now = prefix(thread, point, window);
        let sent: string[];
        try {
          sent = blocks(now, plan);
        } catch {
          before = undefined;
          continue;
        }
        const decision = decide(now, plan);
        const lost = before?.some((block) => !sent.includes(block)) ?? false;
        if (lost) {
          expect(decision?.trigger).toBe(RECALL_TRIGGER);
          expect(decision?.fire).toBe(true);
        }
        if (decision) fired += 1;
        else quiet += 1;
        before = sent;
      }
    }
    // Not vacuous: both outcomes occur over these windows.
    expect(fired).toBeGreaterThan(0);
    expect(quiet).toBeGreaterThan(0);
  });

  it('stays quiet when the option is off, without a plan, below the floor, or on a roomy window', () => {
    const { thread, plan } = scenario();
    const tight = callPoints(thread)
      .flatMap((point) => [22_000, 20_000, 19_000].map((window) => prefix(thread, point, window)))
      .find((candidate) => decide(candidate, plan) !== undefined);
    expect(tight).toBeDefined();
    const off = scenario({ appendCommitWhenLeftOut: false });
    expect(decide({ ...tight!, policy: off.thread.policy }, plan)).toBeUndefined();
    expect(decide(tight!, null)).toBeUndefined();
    expect(decide(tight!, plan, 1_001)).toBeUndefined();
    expect(decide({ ...tight!, contextWindow: 200_000 }, plan)).toBeUndefined();
  });

  it("with 'when-it-pays' fires exactly where the previous call's request still sent a block this one leaves out (ADR-0430)", () => {
    const always = scenario();
    const gated = scenario({ appendCommitWhenLeftOut: 'when-it-pays' });
    let fired = 0;
    let heldBack = 0;
    for (const window of [60_000, 24_000, 22_000, 20_000, 19_000]) {
      let before: string[] | undefined;
      for (const point of callPoints(gated.thread)) {
        const now = prefix(gated.thread, point, window);
        let sent: string[];
        try {
          sent = blocks(now, gated.plan);
        } catch {
          before = undefined;
          continue;
        }
        // At the high-water mark a commit spends nothing early: only whether the break is new decides.
        const decision = decide(now, gated.plan);
        const lost = before?.some((block) => !sent.includes(block)) ?? false;
        expect(decision !== undefined).toBe(lost);
        const ungated = decide({ ...now, policy: always.thread.policy }, always.plan);
        if (decision) {
          expect(ungated?.fire).toBe(true);
          fired += 1;
        } else if (ungated) heldBack += 1;
        before = sent;
      }
    }
    // Not vacuous: it fires, and holds back where the ungated rule fires on a break already paid.
    expect(fired).toBeGreaterThan(0);
    expect(heldBack).toBeGreaterThan(0);
    // Three renders per call over five windows: seconds on a loaded machine.
  }, 30_000);

  it("with 'when-it-pays' holds back a new break smaller than the share of a commit spent early", () => {
    const { thread, plan } = scenario({ appendCommitWhenLeftOut: 'when-it-pays' });
    const firing = callPoints(thread)
      .flatMap((point) => [22_000, 20_000, 19_000].map((window) => prefix(thread, point, window)))
      .find((candidate) => decide(candidate, plan) !== undefined);
    expect(firing).toBeDefined();
    // Far below the high-water mark, a commit writing far more than any break of this thread is spent
    // early; the same commit at the high-water mark spends nothing early and fires.
    const at = (highWaterTokens: number) =>
      recallBlocksTrigger({
        thread: firing!,
        plan,
        tokenizer,
        provider: 'anthropic',
        cache: createRenderCache(),
        overheadTokens: 0,
        messageTokens: 200_000,
        floorTokens: 150_000,
        highWaterTokens,
      });
    expect(at(1_000_000)).toBeUndefined();
    expect(at(200_000)?.fire).toBe(true);
  });
});
