import {
  computeProtectedRegions,
  normalizePlan,
  type PlannerInput,
  planCompaction,
  type Thread,
  type ThreadMessage,
  tokenBudget,
} from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import { renderPromptSync } from '../src/index.js';
import { capturingSummarizer } from './support/capturing-summarizer.js';
import { deploySession } from './support/fixtures.js';
import { clear, externalize, planOf } from './support/plans.js';
import { renderInput, requestText } from './support/render-helpers.js';
import { PROVIDERS, tokenizerFor } from './support/tokenizers.js';

/** The planner and the renderer share one model of what the model sees (ADR-0070, ADR-0071, ADR-0072). */

const ceilingOf = (maxInputTokens: number) =>
  tokenBudget({ maxInputTokens, outputReserveTokens: 0, safetyBufferTokens: 0, rehydrationReserveTokens: 0 });

function resultMessageOf(thread: Thread, toolCallId: string): ThreadMessage {
  const message = thread.messages.find((candidate) =>
    candidate.content.some((part) => part.type === 'tool_result' && part.toolCallId === toolCallId),
  );
  if (!message) throw new Error(`fixture: no result for ${toolCallId}`);
  return message;
}

/** A JSON-escaped text, to find it inside a serialized request. */
const escaped = (text: string) => JSON.stringify(text).slice(1, -1);

describe('the protected tail', () => {
  /**
   * Turn 1 is a long request, turn 2 reads a large (ephemeral) listing, turn 3 is a short question.
   * keepRecentTokens covers turn 3 and not the last message of turn 2, so the tail is turn 3 alone;
   * a renderer that extended "until the tail holds keepRecentTokens" protected turn 2 as well and
   * dropped turn 1 rather than clear turn 2's listing.
   */
  function threeTurns() {
    return threadBuilder('tail', { policy: { keepRecentTurns: 1, keepRecentTokens: 100 } })
      .user(`Please review the importer. ${'It must keep every field the old importer kept. '.repeat(12)}`)
      .assistant('Understood.')
      .user('List the source directory.')
      .assistant(undefined, { toolCalls: [{ id: 'ls', name: 'ls', input: { path: 'src' } }] })
      .toolResult('ls', `src/file_${'x'.repeat(8)}.ts `.repeat(120), { durability: 'ephemeral' })
      .user('Which file parses dates?')
      .build().thread;
  }

  it('is the same for the planner and the renderer: the emergency fit clears what the planner may clear', () => {
    const thread = threeTurns();
    for (const provider of PROVIDERS) {
      const tokenizer = tokenizerFor(provider);
      const regions = computeProtectedRegions(
        thread,
        thread.policy,
        (message) => tokenizer.countMessages([message], provider),
        normalizePlan(planOf(thread, [])),
        1_000_000,
      );
      const lastUser = thread.messages.at(-1)!;
      expect(regions.protectedStart).toBe(lastUser.index);

      const full = renderPromptSync(renderInput(provider, thread, null, { budget: ceilingOf(1_000_000) }));
      const result = renderPromptSync(
        renderInput(provider, thread, null, { budget: ceilingOf(full.tokens.total - 30) }),
      );
      const fit = result.report.emergencyFit!;
      expect(fit.clearedResults.map((cleared) => cleared.toolCallId)).toEqual(['ls']);
      expect(fit.dropped).toEqual([]);
      expect(requestText(result.request)).toContain('Please review the importer.');
    }
  });
});

describe('what may be cleared', () => {
  /** Turn 1 reads a large replayable file (no determinism metadata to prove it unchanged) and an anchoring record. */
  function unverifiedRead() {
    return threadBuilder('clearable', { policy: { keepRecentTurns: 1, keepRecentTokens: 0 } })
      .user('Read the config and the order.')
      .assistant(undefined, { toolCalls: [{ id: 'read', name: 'read_file', input: { path: 'a.yml' } }] })
      .toolResult('read', 'setting: value\n'.repeat(200), { durability: 'replayable' })
      .assistant(undefined, { toolCalls: [{ id: 'order', name: 'get_order', input: { id: 7 } }] })
      .toolResult('order', `order line\n`.repeat(200), { durability: 'anchoring', keyFields: { orderId: 7 } })
      .assistant('Read both.')
      .user('Now summarize them.')
      .build().thread;
  }

  it('the emergency fit never clears a replayable result it cannot verify, as the clear rung never does', () => {
    const thread = unverifiedRead();
    for (const provider of PROVIDERS) {
      const full = renderPromptSync(renderInput(provider, thread, null, { budget: ceilingOf(1_000_000) }));
      const result = renderPromptSync(
        renderInput(provider, thread, null, { budget: ceilingOf(full.tokens.total - 30) }),
      );
      const fit = result.report.emergencyFit!;
      expect(fit.clearedResults.map((cleared) => cleared.toolCallId)).toEqual(['order']);
      const text = requestText(result.request);
      expect(text).toContain(escaped('setting: value\nsetting: value'));
      expect(text).toContain(escaped('Key data: {"orderId":7}'));
    }
  });
});

describe('the stand-in texts', () => {
  it('the summarizer is shown exactly the texts the model saw for cleared and externalized results', async () => {
    const { thread } = deploySession(undefined, {
      policy: {
        keepRecentTurns: 1,
        keepRecentTokens: 0,
        clearAtLeastTokens: 0,
        strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
      },
    });
    const cleared = resultMessageOf(thread, 'c1');
    const externalized = resultMessageOf(thread, 'c2');
    const plan = planOf(thread, [
      clear(thread, [cleared.id]),
      externalize(thread, [externalized.id], 'art_config', { facts: [{ text: 'port 8080' }] }, 'the port'),
    ]);
    const summarizer = capturingSummarizer();
    const tokenizer = tokenizerFor('anthropic');
    const input: PlannerInput = {
      thread,
      currentPlan: plan,
      targetTokens: 1,
      measure: () => 1_000,
      countMessage: (message) => tokenizer.countMessages([message], 'anthropic'),
      countText: (text) => tokenizer.count(text),
      summarizer,
      now: '2025-01-02T00:00:00.000Z',
      manual: { force: true },
    };
    await planCompaction(input);
    const shown = summarizer.requests[0]!.messages.flatMap((message) => message.content);
    const standIns = [cleared.id, externalized.id].map((id) => {
      const message = summarizer.requests[0]!.messages.find((candidate) => candidate.id === id)!;
      const part = message.content.find((candidate) => candidate.type === 'tool_result')!;
      return part.type === 'tool_result' ? String(part.content) : '';
    });
    expect(shown.length).toBeGreaterThan(0);
    for (const provider of PROVIDERS) {
      const rendered = requestText(renderPromptSync(renderInput(provider, thread, plan)).request);
      for (const standIn of standIns) expect(rendered).toContain(escaped(standIn));
    }
    expect(standIns[0]).toContain('[Cleared Tool Result');
    expect(standIns[1]).toContain('read_artifact("art_config")');
  });
});
