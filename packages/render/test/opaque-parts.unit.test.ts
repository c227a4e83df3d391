import type { ContentPart, Message, OpaquePart, ProviderName, Thread } from '@compactor/core';
import { foldThread } from '@compactor/core';
import { arbitraryThreadEvents } from '@compactor/testkit/arbitraries';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicBetaRequest, type RenderResult, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { renderInput, wireMessages } from './support/render-helpers.js';
import { PROVIDERS } from './support/tokenizers.js';

const COMPACTION = {
  type: 'compaction',
  content: 'The user is deploying service A; port 8080 was wrong, 9090 is right.',
  encrypted_content: 'ZW5jcnlwdGVkLXN0YXRl',
  signature: 'c2lnbmF0dXJl',
  tool_changes: [],
};
const REASONING = {
  type: 'reasoning',
  id: 'rs_1',
  summary: [{ type: 'summary_text', text: 'Checked the config.' }],
  encrypted_content: 'gAAAAB-encrypted-reasoning',
};
const RESPONSES_COMPACTION = { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAB-compacted' };

function opaque(provider: OpaquePart['provider'], payload: Record<string, unknown>): OpaquePart {
  return { type: 'opaque', provider, payload };
}

/** A conversation, a server compaction (Anthropic's block, OpenAI's reasoning and compaction items), and more. */
function mixedThread(): Thread {
  return threadBuilder('t-opaque')
    .user('Deploy service A.')
    .assistant('Reading the config.', {
      toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a.json' } }],
    })
    .toolResult('c1', '{"port": 8080}')
    .message({ id: 'server-compaction', role: 'assistant', content: [opaque('anthropic', COMPACTION)] })
    .user('Now use 9090.')
    .message({
      id: 'server-items',
      role: 'assistant',
      content: [
        opaque('openai-responses', REASONING),
        { type: 'text', text: 'Switching to 9090.' },
        { type: 'tool_call', id: 'c2', name: 'write_file', input: { path: 'a.json' } },
        opaque('openai-responses', RESPONSES_COMPACTION),
      ],
    })
    .toolResult('c2', 'ok', { toolName: 'write_file' })
    .assistant('Done.')
    .build().thread;
}

function render(provider: ProviderName, thread: Thread): RenderResult {
  const result = renderPromptSync(renderInput(provider, thread, null));
  expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
  return result;
}

describe('opaque provider parts (ADR-0250)', () => {
  it('Anthropic: the compaction block opens the request, verbatim, standing for what came before it', () => {
    const result = render('anthropic', mixedThread());
    const messages = wireMessages(result.request) as { role: string; content: Record<string, unknown>[] }[];
    expect(messages[0]!.role).toBe('assistant');
    expect(messages[0]!.content).toHaveLength(1);
    expect(JSON.stringify(messages[0]!.content[0])).toBe(JSON.stringify(COMPACTION));
    expect(JSON.stringify(result.request)).not.toContain('Deploy service A.');
    expect(JSON.stringify(result.request)).not.toContain('gAAAAB');
    expect(result.report.opaque).toEqual({ sent: 1, omitted: 2, beforeServerCompaction: 3 });
    expect(result.report.warnings.some((warning) => warning.includes('openai-responses'))).toBe(true);
    expect(anthropicBetaRequest(result.request as never)).toBe(result.request);
  });

  it('Anthropic: a compaction block with null content is a no-op sent in place, not an opening', () => {
    const failed = { ...COMPACTION, content: null };
    const { thread } = threadBuilder('t-null')
      .user('Hello.')
      .message({
        id: 'failed-compaction',
        role: 'assistant',
        content: [{ type: 'text', text: 'Hi.' }, opaque('anthropic', failed)],
      })
      .user('Again.')
      .build();
    const result = render('anthropic', thread);
    const messages = wireMessages(result.request) as { role: string; content: Record<string, unknown>[] }[];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages[1]!.content[1])).toBe(JSON.stringify(failed));
    expect(result.report.opaque.beforeServerCompaction).toBe(0);
  });

  it('Responses: reasoning and compaction items go back verbatim, where they were', () => {
    const result = render('openai-responses', mixedThread());
    const items = wireMessages(result.request) as Record<string, unknown>[];
    const types = items.map((item) => String(item.type ?? 'message'));
    const reasoning = types.indexOf('reasoning');
    expect(types.slice(reasoning, reasoning + 4)).toEqual([
      'reasoning',
      'message',
      'function_call',
      'compaction',
    ]);
    expect(JSON.stringify(items[reasoning])).toBe(JSON.stringify(REASONING));
    expect(JSON.stringify(items[reasoning + 3])).toBe(JSON.stringify(RESPONSES_COMPACTION));
    expect(types[reasoning + 4]).toBe('function_call_output');
    // Anthropic's block is not OpenAI's: left out, and said so.
    expect(JSON.stringify(result.request)).not.toContain('c2lnbmF0dXJl');
    expect(JSON.stringify(result.request)).toContain('Deploy service A.');
    expect(result.report.opaque).toEqual({ sent: 2, omitted: 1, beforeServerCompaction: 0 });
  });

  it.each(['openai-chat', 'ai-sdk'] as const)('%s leaves every opaque part out and says so', (provider) => {
    const result = render(provider, mixedThread());
    const text = JSON.stringify(result.request);
    for (const secret of ['c2lnbmF0dXJl', 'gAAAAB']) expect(text).not.toContain(secret);
    expect(text).toContain('Deploy service A.');
    expect(result.report.opaque).toEqual({ sent: 0, omitted: 3, beforeServerCompaction: 0 });
    expect(result.report.warnings.some((warning) => warning.includes('opaque part'))).toBe(true);
  });

  it('validators take an opaque payload only from its own provider', () => {
    const anthropic = render('anthropic', mixedThread()).request;
    expect(validateProviderRequest('anthropic', anthropic).valid).toBe(true);
    const compactionNotFirst = {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [COMPACTION] },
      ],
    };
    expect(validateProviderRequest('anthropic', compactionNotFirst).valid).toBe(false);
    expect(
      validateProviderRequest('anthropic', {
        messages: [
          { role: 'assistant', content: [REASONING] },
          { role: 'user', content: 'hi' },
        ],
      }).valid,
    ).toBe(false);
    expect(
      validateProviderRequest('openai-responses', { input: [COMPACTION, { role: 'user', content: 'hi' }] })
        .valid,
    ).toBe(false);
    expect(
      validateProviderRequest('openai-chat', {
        messages: [
          { role: 'user', content: 'hi' },
          { ...REASONING, role: 'assistant' },
        ],
      }).valid,
    ).toBe(false);
  });

  it('property: any thread with opaque parts renders valid requests carrying each payload verbatim to its own provider only', () => {
    fc.assert(
      fc.property(
        arbitraryThreadEvents({ maxTurns: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('anthropic', 'openai-responses', 'reasoning')), {
          maxLength: 3,
        }),
        (events, insertions) => {
          const thread = foldThread(withOpaqueParts(events, insertions));
          for (const provider of PROVIDERS) {
            const result = renderPromptSync(renderInput(provider, thread, null));
            expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
            const text = JSON.stringify(result.request);
            const parts = thread.messages.flatMap((message) =>
              message.content.filter((part): part is OpaquePart => part.type === 'opaque'),
            );
            for (const part of parts) {
              const json = JSON.stringify(part.payload);
              if (part.provider !== provider) expect(text).not.toContain(json);
            }
            const own = parts.filter((part) => part.provider === provider);
            // The newest of this provider's parts is never before a compaction that opens the request.
            if (own.length > 0) expect(text).toContain(JSON.stringify(own.at(-1)!.payload));
            expect(result.report.opaque.sent + result.report.opaque.omitted).toBeLessThanOrEqual(
              parts.length,
            );
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

type Insertion = [number, 'anthropic' | 'openai-responses' | 'reasoning'];

/** Inserts an assistant message holding one opaque part after the chosen user or tool messages. */
function withOpaqueParts<E extends { type: string; seq: number }>(
  events: readonly E[],
  insertions: readonly Insertion[],
): E[] {
  const out: E[] = [];
  const at = new Map<number, Insertion[1]>();
  const messageIndexes = events.flatMap((event, index) => (event.type === 'message.appended' ? [index] : []));
  if (messageIndexes.length === 0) return [...events];
  for (const [position, kind] of insertions) at.set(messageIndexes[position % messageIndexes.length]!, kind);
  let count = 0;
  events.forEach((event, index) => {
    out.push(event);
    const kind = at.get(index);
    const message = (event as unknown as { message?: Message }).message;
    // After a person's message only: never between a call and its result.
    if (kind === undefined || message === undefined || !isRootUser(message)) return;
    count += 1;
    const payload =
      kind === 'anthropic'
        ? { ...COMPACTION, content: `summary ${count}` }
        : kind === 'reasoning'
          ? { ...REASONING, id: `rs_${count}` }
          : { ...RESPONSES_COMPACTION, id: `cmp_${count}` };
    const provider = kind === 'anthropic' ? 'anthropic' : 'openai-responses';
    const content: ContentPart[] = [opaque(provider, payload)];
    out.push({
      ...event,
      eventId: `${String((event as unknown as { eventId: string }).eventId)}-opaque`,
      message: { id: `opaque-${count}`, role: 'assistant', content },
    } as E);
  });
  return out.map((event, index) => ({ ...event, seq: index + 1 }));
}

function isRootUser(message: Message): boolean {
  return message.role === 'user' && message.subagentId === undefined;
}
