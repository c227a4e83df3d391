import {
  buildToolPairIndex,
  compactionPlanSchema,
  countUserTurns,
  storedEventSchema,
  structuredSummarySchema,
  toolResultEnvelopeSchema,
} from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  arbitraryCompactionPlan,
  arbitraryStructuredSummary,
  arbitraryThread,
  arbitraryToolResultEnvelope,
} from '../src/arbitraries.js';

describe('arbitraryThread', () => {
  it('gives valid stored events: thread.created first, then appended messages with seq 1, 2, ...', () => {
    fc.assert(
      fc.property(arbitraryThread({ threadId: 'tx', tenantId: 'acme' }), ({ events, thread }) => {
        expect(events[0]?.type).toBe('thread.created');
        events.forEach((event, position) => {
          expect(storedEventSchema.parse(event)).toEqual(event);
          expect(event.seq).toBe(position + 1);
          expect([event.threadId, event.tenantId]).toEqual(['tx', 'acme']);
          if (position > 0) expect(event.type).toBe('message.appended');
        });
        expect(thread.messages).toHaveLength(events.length - 1);
        expect(new Set(thread.messages.map((message) => message.id)).size).toBe(thread.messages.length);
      }),
      { numRuns: 100 },
    );
  });

  it('answers every tool call once, right after the call, in call order, with the same tool name', () => {
    fc.assert(
      fc.property(arbitraryThread(), ({ thread }) => {
        const index = buildToolPairIndex(thread.messages);
        expect(index.pendingCallIds).toEqual([]);
        expect(index.orphanResultCallIds).toEqual([]);
        const messages = thread.messages;
        messages.forEach((message, position) => {
          const calls = message.content.filter((part) => part.type === 'tool_call');
          if (calls.length === 0) return;
          // The results are the tool messages that immediately follow, in the order of the calls.
          const results = [];
          for (let next = position + 1; messages[next]?.role === 'tool'; next += 1) {
            results.push(...messages[next]!.content);
            expect(messages[next]!.subagentId).toBe(message.subagentId);
          }
          expect(
            results.map((part) => part.type === 'tool_result' && [part.toolCallId, part.toolName]),
          ).toEqual(calls.map((part) => part.type === 'tool_call' && [part.id, part.name]));
        });
      }),
      { numRuns: 150 },
    );
  });

  it('starts every turn at a real user message and honours the turn bounds', () => {
    fc.assert(
      fc.property(arbitraryThread({ minTurns: 2, maxTurns: 4 }), ({ thread }) => {
        const turns = countUserTurns(thread.messages);
        expect(turns).toBeGreaterThanOrEqual(2);
        expect(turns).toBeLessThanOrEqual(4);
        // Nothing but the preamble (system prompt, an imported summary) comes before the first turn.
        for (const message of thread.messages.filter((candidate) => candidate.turn === 0)) {
          expect(message.role === 'system' || message.synthetic === true).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('leaves out every optional kind of message when asked to', () => {
    const plain = arbitraryThread({
      systemMessages: false,
      syntheticMessages: false,
      subagentMessages: false,
      pinnedMessages: false,
      reasoningParts: false,
      hugeToolResults: false,
    });
    fc.assert(
      fc.property(plain, ({ thread }) => {
        for (const message of thread.messages) {
          expect(message.role).not.toBe('system');
          expect(message.synthetic ?? message.pinned ?? message.subagentId).toBeUndefined();
          expect(message.content.some((part) => part.type === 'reasoning')).toBe(false);
          for (const part of message.content) {
            if (part.type === 'tool_result' && typeof part.content === 'string') {
              expect(part.content.length).toBeLessThan(8_000);
            }
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('does produce every optional kind of message by default', () => {
    const messages = fc
      .sample(arbitraryThread(), { numRuns: 200, seed: 42 })
      .flatMap(({ thread }) => thread.messages);
    expect(messages.some((message) => message.role === 'system')).toBe(true);
    expect(messages.some((message) => message.synthetic === true)).toBe(true);
    expect(messages.some((message) => message.subagentId !== undefined)).toBe(true);
    expect(messages.some((message) => message.pinned === true && message.role === 'user')).toBe(true);
    expect(messages.some((message) => message.pinned === true && message.role === 'assistant')).toBe(true);
    expect(messages.some((message) => message.content.some((part) => part.type === 'reasoning'))).toBe(true);
    expect(messages.some((message) => message.content.some((part) => part.type === 'image'))).toBe(true);
    const results = messages.flatMap((message) =>
      message.content.filter((part) => part.type === 'tool_result'),
    );
    expect(results.some((part) => typeof part.content === 'string' && part.content.length >= 8_000)).toBe(
      true,
    );
    expect(results.some((part) => typeof part.content === 'object')).toBe(true);
    expect(messages.some((message) => message.role === 'tool' && message.content.length > 1)).toBe(true);
  });
});

describe('other arbitraries', () => {
  it('give valid envelopes, summaries and plans', () => {
    fc.assert(
      fc.property(arbitraryToolResultEnvelope(), arbitraryStructuredSummary(), (envelope, summary) => {
        expect(toolResultEnvelopeSchema.parse(envelope)).toEqual(envelope);
        expect(structuredSummarySchema.parse(summary)).toEqual(summary);
      }),
      { numRuns: 200 },
    );
  });

  it('honour a given tool name and call id', () => {
    fc.assert(
      fc.property(arbitraryToolResultEnvelope({ toolName: 'grep', toolCallId: 'c42' }), (envelope) => {
        expect([envelope.toolName, envelope.toolCallId]).toEqual(['grep', 'c42']);
      }),
      { numRuns: 20 },
    );
  });

  it('give plans whose records cover contiguous runs of the thread, overlapping at times', () => {
    const threadAndPlan = arbitraryThread({ minTurns: 1 }).chain(({ thread }) =>
      fc.tuple(fc.constant(thread), arbitraryCompactionPlan(thread)),
    );
    let overlapping = 0;
    fc.assert(
      fc.property(threadAndPlan, ([thread, plan]) => {
        expect(compactionPlanSchema.parse(plan)).toEqual(plan);
        expect([plan.threadId, plan.basedOnSeq]).toEqual([thread.id, thread.version]);
        const position = new Map(thread.messages.map((message) => [message.id, message]));
        const records = [...plan.drops, ...plan.externalizations, ...plan.summarizations, ...plan.clearings];
        const seen = new Set<string>();
        let overlaps = false;
        for (const record of records) {
          const messages = record.span.messageIds.map((id) => position.get(id)!);
          expect(messages.map((message) => message.index)).toEqual(
            messages.map((_, offset) => messages[0]!.index + offset),
          );
          expect([record.span.firstTurn, record.span.lastTurn]).toEqual([
            messages[0]!.turn,
            messages.at(-1)!.turn,
          ]);
          for (const id of record.span.messageIds) {
            if (seen.has(id)) overlaps = true;
            seen.add(id);
          }
        }
        if (overlaps) overlapping += 1;
      }),
      { numRuns: 100, seed: 7 },
    );
    expect(overlapping).toBeGreaterThan(0);
  });
});
