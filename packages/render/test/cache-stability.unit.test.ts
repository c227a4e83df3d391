import {
  foldMore,
  type Message,
  type ProviderName,
  parsePolicy,
  type StoredEvent,
  type Thread,
  type Tokenizer,
} from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import { createRenderCache, MISSING_RESULT_TEXT, type RenderResult, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { clear, externalize, ids, planOf, summarize } from './support/plans.js';
import { renderInput, wireMessages, withoutCacheControl } from './support/render-helpers.js';
import { PROVIDERS, tokenizerFor } from './support/tokenizers.js';

/** 20 messages committed under a plan, then 50 more events appended one at a time. */
const endPlacement = { ...parsePolicy({}).recall, placement: 'end' as const };

function session() {
  // Recall after the newest message (ADR-0111's placement), so the block leaves every settled prefix;
  // the anchored placement keeps it inside the prefix and is checked in recall-anchor.unit.test.ts.
  const builder = threadBuilder('appends', { tenantId: 'tenant-1', policy: { recall: endPlacement } });
  builder
    .user('Set up the project.')
    .assistant('Listing files.', { toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'ls' } }] })
    .toolResult('b1', 'a.ts\nb.ts\nc.ts', { durability: 'ephemeral' })
    .assistant('Reading a.ts.', { toolCalls: [{ id: 'b2', name: 'read_file', input: { path: 'a.ts' } }] })
    .toolResult('b2', 'export const a = 1;\n'.repeat(30), { durability: 'replayable' })
    .assistant('Done with setup.');
  for (let turn = 0; turn < 3; turn += 1) {
    builder
      .user(`Early request ${turn}.`)
      .assistant(`Working on ${turn}.`, {
        toolCalls: [{ id: `e${turn}`, name: 'bash', input: { command: `echo ${turn}` } }],
      })
      .toolResult(`e${turn}`, `${turn}\n`.repeat(20))
      .assistant(`Early answer ${turn}.`);
  }
  const base = builder.build();
  // 50 appended events: turns of user → assistant call → result → answer, with a system note and a batch.
  let step = 0;
  while (builder.build().events.length < base.events.length + 50) {
    const index = step;
    step += 1;
    switch (index % 6) {
      case 0:
        builder.user(`Request ${index}: check item ${index}.`);
        break;
      case 1:
        builder.assistant(`Checking item ${index - 1}.`, {
          toolCalls: [{ id: `x${index}`, name: 'read_file', input: { path: `item-${index}.json` } }],
        });
        break;
      case 2:
        builder.toolResult(`x${index - 1}`, { item: index, ok: true }, { keyFields: { item: index } });
        break;
      case 3:
        builder.system(`Note ${index}: the clock is UTC.`);
        break;
      case 4:
        builder.assistant(`Item ${index} is fine.`);
        break;
      default:
        builder.assistant(`Pinned conclusion ${index}.`, { pinned: true });
    }
  }
  const all = builder.build().events;
  return { base: base.thread, appended: all.slice(base.events.length, base.events.length + 50) };
}

function countingTokenizer(provider: ProviderName): Tokenizer & { messageCounts: number } {
  const real = tokenizerFor(provider);
  const spy = {
    id: real.id,
    messageCounts: 0,
    count: (text: string) => real.count(text),
    countMessage(message: Message, name: ProviderName) {
      spy.messageCounts += 1;
      return real.countMessage(message, name);
    },
    countTools: real.countTools.bind(real),
    countRequest: real.countRequest.bind(real),
  };
  return spy;
}

/** Wire messages as JSON, cache_control removed, trailing pending-call placeholders set aside. */
function settledPrefix(result: RenderResult): string[] {
  const messages = (withoutCacheControl(wireMessages(result.request)) as unknown[]).map((message) =>
    JSON.stringify(message),
  );
  // The ephemeral recall block is sent for one turn only, after everything else (ADR-0111).
  if (result.report.recall.tokens > 0) messages.pop();
  const placeholder = JSON.stringify(MISSING_RESULT_TEXT).slice(1, -1);
  while (messages.length > 0 && messages.at(-1)!.includes(placeholder)) messages.pop();
  return messages;
}

describe('cache-stable prefix', () => {
  const { base, appended } = session();
  const plan = planOf(base, [
    summarize(base, ids(1, 6), { currentTask: 'Set up the project', filesRead: ['a.ts'] }),
    externalize(base, ids(8, 9), 'art_echo0', { facts: [{ text: 'echo 0 printed zeros' }] }),
    clear(base, ['m13']),
  ]);

  for (const provider of PROVIDERS) {
    it(`keeps the prefix byte-identical across 50 single-event appends (${provider})`, () => {
      const cache = createRenderCache();
      const tokenizer = countingTokenizer(provider);
      let thread: Thread = base;
      const results: RenderResult[] = [];
      const render = () => {
        const result = renderPromptSync(renderInput(provider, thread, plan, { cache, tokenizer }));
        expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
        results.push(result);
        return result;
      };
      const first = render();
      expect(first.report.stale).toBe(false);
      for (const event of appended) {
        const countsBefore = tokenizer.messageCounts;
        const missesBefore = cache.stats.misses;
        thread = foldMore(thread, [event as StoredEvent]);
        const result = render();
        // Only the new event is formatted and counted: its own piece, plus the placeholder answering
        // a new call (Responses counts an assistant's text and its call as two items), plus the
        // ephemeral recall block when the new turn recalls something else (ADR-0111).
        const previousRecall = results.at(-2)!.report.recall;
        const newBlock =
          result.report.recall.tokens > 0 &&
          JSON.stringify(result.report.recall.recalled) !== JSON.stringify(previousRecall.recalled)
            ? 1
            : 0;
        expect(cache.stats.misses - missesBefore).toBeLessThanOrEqual(2 + newBlock);
        expect(tokenizer.messageCounts - countsBefore).toBeLessThanOrEqual(3 + newBlock);
        expect(result.report.stale).toBe(true);
      }
      for (let index = 1; index < results.length; index += 1) {
        const previous = settledPrefix(results[index - 1]!);
        const next = (withoutCacheControl(wireMessages(results[index]!.request)) as unknown[]).map(
          (message) => JSON.stringify(message),
        );
        expect(next.slice(0, previous.length)).toEqual(previous);
        expect(next.length).toBeGreaterThan(previous.length);
      }
      // The compacted prefix is stable to the byte, cache_control markers included, and so is its size.
      const stableMessages = first.report.stablePrefixMessages;
      expect(stableMessages).toBeGreaterThan(0);
      const prefixBytes = (result: RenderResult) => {
        const {
          messages: _messages,
          input: _input,
          ...rest
        } = result.request as unknown as Record<string, unknown>;
        return JSON.stringify({ rest, prefix: wireMessages(result.request).slice(0, stableMessages) });
      };
      for (const result of results) {
        expect(result.report.stablePrefixMessages).toBe(stableMessages);
        expect(result.report.stablePrefixTokens).toBe(first.report.stablePrefixTokens);
        expect(prefixBytes(result)).toBe(prefixBytes(first));
      }
    });
  }

  it('places at most four Anthropic breakpoints: last tool, system, end of the compacted prefix, last message', () => {
    let thread: Thread = base;
    for (const event of appended.slice(0, 10)) thread = foldMore(thread, [event as StoredEvent]);
    const result = renderPromptSync(renderInput('anthropic', thread, plan));
    const request = result.request as unknown as {
      system: Record<string, unknown>[];
      tools: Record<string, unknown>[];
      messages: { content: Record<string, unknown>[] }[];
    };
    expect(result.report.cacheBreakpoints).toBe(4);
    expect(request.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(request.tools.slice(0, -1).every((tool) => tool.cache_control === undefined)).toBe(true);
    expect(request.system[0]!.cache_control).toEqual({ type: 'ephemeral' });
    const marked = request.messages.flatMap((message, index) =>
      message.content.some((block) => block.cache_control !== undefined) ? [index] : [],
    );
    expect(marked).toEqual([result.report.stablePrefixMessages - 1, request.messages.length - 1]);
    const noCaching = renderPromptSync(renderInput('anthropic', thread, plan, { promptCaching: false }));
    expect(JSON.stringify(noCaching.request)).not.toContain('cache_control');
    expect(JSON.stringify(noCaching.request)).toBe(JSON.stringify(withoutCacheControl(result.request)));
  });

  it('moves the stable prefix when a new plan is committed', () => {
    let thread: Thread = base;
    for (const event of appended.slice(0, 20)) thread = foldMore(thread, [event as StoredEvent]);
    const before = renderPromptSync(renderInput('anthropic', thread, plan));
    const newPlan = planOf(
      thread,
      [summarize(thread, ids(1, 18), { currentTask: 'Set up and answer early requests' })],
      {
        version: 2,
      },
    );
    const after = renderPromptSync(renderInput('anthropic', thread, newPlan));
    expect(after.report.stale).toBe(false);
    // Everything is stable but the ephemeral recall block, which comes after the prefix (ADR-0111).
    const recallBlocks = after.report.recall.tokens > 0 ? 1 : 0;
    expect(after.report.stablePrefixMessages).toBe(wireMessages(after.request).length - recallBlocks);
    expect(JSON.stringify(wireMessages(after.request)[0])).not.toBe(
      JSON.stringify(wireMessages(before.request)[0]),
    );
    expect(after.tokens.messages).toBeLessThan(before.tokens.messages);
  });
});
