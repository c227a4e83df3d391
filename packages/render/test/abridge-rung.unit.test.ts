import {
  abridgedMessage,
  type CompactionPlan,
  computeProtectedRegions,
  emptyPlan,
  normalizePlan,
  type PlannerInput,
  planCompaction,
  type Thread,
  type ThreadMessage,
  tokenBudget,
} from '@compactor/core';
import { arbitraryThread } from '@compactor/testkit/arbitraries';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { capturingSummarizer } from './support/capturing-summarizer.js';
import { mediaThread, SECURITY_CONTEXT } from './support/fixtures.js';
import { MemoryArtifactStore } from './support/memory-artifact-store.js';
import { renderInput, requestText } from './support/render-helpers.js';
import { tokenizerFor } from './support/tokenizers.js';

/** The abridge rung (ADR-0265, ADR-0266) planned against the real renderer's measure. */

const ceiling = (maxInputTokens: number) =>
  tokenBudget({ maxInputTokens, outputReserveTokens: 0, safetyBufferTokens: 0, rehydrationReserveTokens: 0 });

const tokenizer = tokenizerFor('anthropic');
const countMessage = (message: ThreadMessage) => tokenizer.countMessages([message], 'anthropic');

function measureOf(thread: Thread) {
  return (plan: CompactionPlan) =>
    renderPromptSync(renderInput('anthropic', thread, plan, { budget: ceiling(1_000_000) })).tokens.total;
}

function plannerInput(thread: Thread, targetTokens: number, store = new MemoryArtifactStore()) {
  const summarizer = capturingSummarizer();
  const input: PlannerInput = {
    thread,
    currentPlan: null,
    targetTokens,
    measure: measureOf(thread),
    countMessage,
    countText: (text) => tokenizer.count(text),
    summarizer,
    artifactStore: store,
    now: '2025-01-02T00:00:00.000Z',
  };
  return { input, summarizer, store };
}

const byId = (thread: Thread, id: string) => thread.messages.find((message) => message.id === id)!;

describe('the abridge rung', () => {
  it('replaces an old image by its caption before anything is summarized; the tail keeps its image', async () => {
    const thread = mediaThread();
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    // One image's worth below the full prompt: the first rung alone reaches it.
    const { input, summarizer } = plannerInput(thread, full - 1_000);
    const outcome = await planCompaction(input);
    expect(outcome.status).toBe('compacted');
    expect(outcome.rungsUsed).toEqual(['abridge']);
    expect(summarizer.requests).toEqual([]);
    const records = outcome.plan.abridgements;
    expect(records.map((record) => record.span.messageIds[0])).toContain('photo');
    expect(records.map((record) => record.span.messageIds[0])).not.toContain('photo2');

    const photo = byId(thread, 'photo');
    const record = records.find((candidate) => candidate.span.messageIds[0] === 'photo')!;
    const before = countMessage(photo);
    const after = countMessage(abridgedMessage(photo, record));
    // Anthropic's fixed image estimate (1,600) against a caption of a few dozen tokens.
    expect(before - after).toBeGreaterThan(1_400);

    const result = renderPromptSync(renderInput('anthropic', thread, outcome.plan));
    expect(validateProviderRequest('anthropic', result.request).errors).toEqual([]);
    const text = requestText(result.request);
    expect(text).toContain('Caption: a photo of a whiteboard with a deployment diagram');
    expect(text).toContain('This is how the deploy is wired.');
    expect(text).not.toContain('"url":"https://example.com/board.jpg"');
    expect(text).toContain('"url":"https://example.com/board2.png"');
  });

  it("takes the media of the tail's older turns after everything before it, never the newest turn's (ADR-0267)", async () => {
    // The tail is turns 2–4 (the paste, the PDF, the new photo): its token suffix alone covers them.
    const thread = mediaThread(3, 7_600);
    const regions = computeProtectedRegions(
      thread,
      thread.policy,
      countMessage,
      normalizePlan(emptyPlan(thread.id, 'now')),
      1_000,
    );
    expect(regions.protectedStart).toBeGreaterThan(byId(thread, 'photo').index);
    expect(regions.protectedStart).toBeLessThanOrEqual(byId(thread, 'paste').index);
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    // More than the old photo frees: the tail's PDF goes too, its paste stays whole.
    const { input } = plannerInput(thread, full - 3_000);
    const outcome = await planCompaction(input);
    const byMessage = new Map(outcome.plan.abridgements.map((record) => [record.span.messageIds[0], record]));
    expect([...byMessage.keys()].sort()).toEqual(['pdf', 'photo']);
    for (const record of byMessage.values())
      expect(record.parts.every((part) => part.reason === 'media')).toBe(true);
    const text = requestText(renderPromptSync(renderInput('anthropic', thread, outcome.plan)).request);
    expect(text).toContain('2025-01-01T10:20:00Z INFO deploy step 20 ok');
    expect(text).toContain('"url":"https://example.com/board2.png"');
  });

  it('is not used when the policy turns it off: the ladder summarizes instead', async () => {
    const thread = threadBuilder('media-off', {
      policy: {
        keepRecentTurns: 1,
        keepRecentTokens: 0,
        strategies: { abridge: false, externalize: true, summarize: true, clear: true, drop: true },
      },
    })
      .message({
        id: 'photo',
        role: 'user',
        content: [
          { type: 'text', text: 'Look at this.' },
          {
            type: 'image',
            mediaType: 'image/png',
            source: { kind: 'url', url: 'https://example.com/a.png' },
          },
        ],
      })
      .assistant('Seen.')
      .user('Next question.')
      .build().thread;
    const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
    const { input } = plannerInput(thread, full - 1_000);
    const outcome = await planCompaction(input);
    expect(outcome.plan.abridgements).toEqual([]);
    expect(outcome.rungsUsed).not.toContain('abridge');
  });
});

describe('a user message with a large paste (ADR-0266)', () => {
  function pastedThread(keepUserTokens: number, abridge = true): Thread {
    const log = Array.from(
      { length: 80 },
      (_, index) => `2025-01-01T10:${index % 60}:00Z INFO worker ${index} ok`,
    );
    log.push('2025-01-01T11:20:00Z ERROR worker 80 failed: ECONNREFUSED 10.0.0.7:5432');
    return threadBuilder('paste', {
      policy: {
        keepRecentTurns: 1,
        keepRecentTokens: 0,
        keepUserTokens,
        keepUserInstructionTokens: 0,
        clearAtLeastTokens: 0,
        strategies: { abridge, externalize: true, summarize: true, clear: true, drop: true },
      },
    })
      .user(`The worker keeps crashing. Here is the log:\n${log.join('\n')}\nWhat is going on?`, {
        id: 'paste',
      })
      .assistant(`The worker cannot reach the database. ${'It retries with backoff. '.repeat(40)}`, {
        id: 'a1',
      })
      .user('Fix it, please.', { id: 'last' })
      .build().thread;
  }

  it('is kept with its prose verbatim and the paste clipped when whole it does not fit keepUserTokens', async () => {
    const thread = pastedThread(400);
    const paste = byId(thread, 'paste');
    expect(countMessage(paste)).toBeGreaterThan(400);
    const regions = computeProtectedRegions(
      thread,
      thread.policy,
      countMessage,
      normalizePlan(emptyPlan(thread.id, 'now')),
      1_000,
    );
    expect(regions.keptUserWords.has('paste')).toBe(true);

    const { input, summarizer, store } = plannerInput(thread, 300);
    const outcome = await planCompaction(input);
    expect(outcome.plan.abridgements.map((record) => record.span.messageIds)).toEqual([['paste']]);
    // Summarized around it, never over it.
    for (const record of outcome.plan.summarizations) expect(record.span.messageIds).not.toContain('paste');
    expect(summarizer.requests.flatMap((request) => request.span.messageIds)).not.toContain('paste');

    const text = requestText(renderPromptSync(renderInput('anthropic', thread, outcome.plan)).request);
    expect(text).toContain('The worker keeps crashing. Here is the log:');
    expect(text).toContain('What is going on?');
    expect(text).toContain('[pasted 81 lines, 71 in the middle left out]');
    expect(text).toContain('ECONNREFUSED 10.0.0.7:5432');
    expect(text).not.toContain('worker 40 ok');

    const record = outcome.plan.abridgements[0]!;
    expect(record.artifactId).toBeDefined();
    const read = await store.retrieve(record.artifactId!, SECURITY_CONTEXT);
    expect(read.status === 'ok' && read.content).toContain('worker 40 ok');
    expect(text).toContain(`read_artifact(\\"${record.artifactId}\\")`);
  });

  it('without the abridge rung the same message does not fit and is not kept', () => {
    const thread = pastedThread(400, false);
    const regions = computeProtectedRegions(
      thread,
      thread.policy,
      countMessage,
      normalizePlan(emptyPlan(thread.id, 'now')),
      1_000,
    );
    expect(regions.keptUserWords.has('paste')).toBe(false);
  });
});

describe('the abridge rung over random threads (fast-check)', () => {
  it('abridges user and assistant messages, and tool results by their media only (in the tail: older turns, media only), and the request stays valid', {
    timeout: 120_000,
  }, async () => {
    let abridged = 0;
    await fc.assert(
      fc.asyncProperty(
        arbitraryThread({ maxTurns: 5 }),
        fc.double({ min: 0.3, max: 0.95, noNaN: true }),
        async ({ thread: base }, fraction) => {
          const thread = { ...base, policy: { ...base.policy, keepRecentTurns: 1, keepRecentTokens: 0 } };
          const full = measureOf(thread)(emptyPlan(thread.id, 'now'));
          const target = Math.max(1, Math.floor(full * fraction));
          const { input } = plannerInput(thread, target);
          const outcome = await planCompaction(input);
          // The abridge rung climbs first, so the tail it saw is the one of the plan the climb began with.
          const { protectedStart } = computeProtectedRegions(
            thread,
            thread.policy,
            countMessage,
            normalizePlan(emptyPlan(thread.id, 'now')),
            target,
          );
          abridged += outcome.plan.abridgements.length;
          for (const record of outcome.plan.abridgements) {
            const message = byId(thread, record.span.messageIds[0]!);
            expect(['user', 'assistant', 'tool']).toContain(message.role);
            if (message.index >= protectedStart) {
              // In the tail (ADR-0267): an older turn's media only.
              expect(message.turn).toBeLessThan(thread.messages.at(-1)!.turn);
              for (const part of record.parts) expect(['media', 'result-media']).toContain(part.reason);
            }
            expect(message.pinned).not.toBe(true);
            for (const part of record.parts) {
              const replaced = message.content[part.index]!;
              // A tool message gives up only its results' media (ADR-0311): the result stays a result.
              if (message.role === 'tool') {
                expect(part.reason).toBe('result-media');
                expect(replaced.type === 'tool_result' && (replaced.media?.length ?? 0) > 0).toBe(true);
              } else expect(['image', 'document', 'text']).toContain(replaced.type);
            }
          }
          for (const provider of ['anthropic', 'openai-chat'] as const) {
            const result = renderPromptSync(renderInput(provider, thread, outcome.plan));
            expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
            expect(result.report.counts.orphanResults).toBe(0);
            expect(result.report.counts.missingResults).toBe(0);
          }
        },
      ),
      { numRuns: 40 },
    );
    // Not vacuous: generated threads carry images, and some runs abridge them.
    expect(abridged).toBeGreaterThan(0);
  });
});

describe('the emergency fit', () => {
  it('replaces an old image by its caption before it drops anything (a stale plan leaves one at full price)', () => {
    const thread = mediaThread();
    const full = renderPromptSync(renderInput('anthropic', thread, null, { budget: ceiling(1_000_000) }));
    const result = renderPromptSync(
      renderInput('anthropic', thread, null, { budget: ceiling(full.tokens.total - 1_000) }),
    );
    const fit = result.report.emergencyFit!;
    expect(fit.abridgedMessages).toContain('photo');
    expect(fit.dropped).toEqual([]);
    expect(validateProviderRequest('anthropic', result.request).errors).toEqual([]);
    const text = requestText(result.request);
    expect(text).toContain('Caption: a photo of a whiteboard with a deployment diagram');
    expect(text).toContain('"url":"https://example.com/board2.png"');
  });
});
