import { CompactorError, type ProviderName } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import {
  CONTINUATION_TEXT,
  createRenderCache,
  MISSING_RESULT_TEXT,
  type RenderResult,
  renderPromptSync,
} from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { deploySession, edgeCaseThread } from './support/fixtures.js';
import { clear, drop, externalize, ids, planOf, summarize } from './support/plans.js';
import { renderInput, requestText, wireMessages } from './support/render-helpers.js';
import { PROVIDERS } from './support/tokenizers.js';

const { thread } = deploySession();

function render(
  provider: ProviderName,
  plan: ReturnType<typeof planOf> | null,
  input = thread,
): RenderResult {
  const result = renderPromptSync(renderInput(provider, input, plan));
  expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
  return result;
}

function anthropicMessages(result: RenderResult): { role: string; content: Record<string, unknown>[] }[] {
  return wireMessages(result.request) as { role: string; content: Record<string, unknown>[] }[];
}

function textsOf(message: { content: Record<string, unknown>[] }): string[] {
  return message.content.flatMap((block) => (typeof block.text === 'string' ? [block.text] : []));
}

describe('replacement semantics (ADR-0018)', () => {
  it('replaces a summarized span with exactly one synthetic message at its first message', () => {
    const plan = planOf(thread, [
      summarize(thread, ids(2, 7), { facts: [{ text: 'Port mismatch 8080/9090' }] }),
    ]);
    const before = anthropicMessages(render('anthropic', null));
    const after = anthropicMessages(render('anthropic', plan));
    // m1 (the system note) stays first; the summary takes m2's place; m8 follows it.
    expect(textsOf(after[0]!)).toEqual(textsOf(before[0]!));
    expect(after[1]!.role).toBe('assistant');
    expect(textsOf(after[1]!)[0]).toMatch(/^\[Context Summary - Turns 1-1\]\n\[Summary v1\]\n/);
    expect(textsOf(after[1]!)[0]).toContain('Port mismatch 8080/9090');
    expect(textsOf(after[2]!)).toEqual(['Fix it and open a ticket.']);
    // Six messages (and their two tool results folded into them) became one.
    expect(after).toHaveLength(before.length - 5);
    const text = requestText(after);
    for (const gone of [
      'Let me look at the logs.',
      'Reading the config.',
      'deploy step 3 ok',
      'healthcheck:',
    ]) {
      expect(text).not.toContain(gone);
    }
  });

  it('never merges adjacent summaries: each span is its own message', () => {
    const plan = planOf(thread, [
      summarize(thread, ids(2, 7), { facts: [{ text: 'first span' }] }),
      summarize(thread, ids(8, 11), { facts: [{ text: 'second span' }] }),
    ]);
    for (const provider of PROVIDERS) {
      const messages = wireMessages(render(provider, plan).request).map((message) => JSON.stringify(message));
      const first = messages.findIndex((message) => message.includes('first span'));
      const second = messages.findIndex((message) => message.includes('second span'));
      expect(first).toBeGreaterThanOrEqual(0);
      expect(second).toBe(first + 1);
      expect(messages[first]).not.toContain('second span');
    }
  });

  it('renders an externalized span as a pointer with the read_artifact instruction and offers the tool', () => {
    const plan = planOf(thread, [
      externalize(thread, ids(3, 4), 'art_log', { facts: [{ text: 'log fetched' }] }),
    ]);
    for (const provider of PROVIDERS) {
      const result = render(provider, plan);
      const text = requestText(result.request);
      expect(text).toContain('[Externalized Content - artifact:art_log]\\nSummary: [Summary v1]');
      expect(text).toContain('To retrieve full content, call: read_artifact(\\"art_log\\")');
      expect(text).not.toContain('deploy step 3 ok');
      expect(result.report.toolsAdded).toEqual(['read_artifact']);
      expect(text).toContain('"read_artifact"');
    }
    const withoutTool = renderPromptSync(
      renderInput('anthropic', thread, plan, { addReadArtifactTool: false }),
    );
    expect(withoutTool.report.toolsAdded).toEqual([]);
    expect(requestText(withoutTool.request)).not.toContain('"name":"read_artifact"');
  });

  it('externalizes a lone tool result in place: its call, the assistant text and sibling results stay', () => {
    const plan = planOf(thread, [
      externalize(thread, ['m10'], 'art_changes', { facts: [{ text: 'edit and ticket results' }] }),
    ]);
    for (const provider of PROVIDERS) {
      const result = render(provider, plan);
      expect(result.report.counts.externalized).toBe(1);
      expect(result.report.warnings).toEqual([]);
      const text = requestText(result.request);
      expect(text).toContain('edit_file');
      expect(text).toContain('create_ticket');
      expect(text).not.toContain('tickets.example.com');
    }
    const messages = anthropicMessages(render('anthropic', plan));
    const results = messages.flatMap((message) =>
      message.content.filter((block) => block.type === 'tool_result'),
    );
    for (const callId of ['c3', 'c4']) {
      const block = results.find((candidate) => candidate.tool_use_id === callId)!;
      expect(String(block.content)).toMatch(/^\[Externalized Content - artifact:art_changes\]\nSummary: /);
    }
    // The unrelated result of the first turn is untouched.
    expect(requestText(messages)).toContain('deploy step 3 ok');
    const single = anthropicMessages(
      render('anthropic', planOf(thread, [externalize(thread, ['m4'], 'art_log', {})])),
    );
    const logCall = single.find((message) => message.content.some((block) => block.id === 'c1'))!;
    expect(textsOf(logCall)).toEqual(['Let me look at the logs.']);
  });

  it('keeps a cleared result as a tool result whose placeholder has the tool name, outcome and key fields', () => {
    const plan = planOf(thread, [clear(thread, ['m10'])]);
    const messages = anthropicMessages(render('anthropic', plan));
    const results = messages.flatMap((message) =>
      message.content.filter((block) => block.type === 'tool_result'),
    );
    const ticket = results.find((block) => block.tool_use_id === 'c4')!;
    expect(ticket.content).toBe(
      '[Cleared Tool Result v1]\n[create_ticket: success]\nKey data: {"ticket":"OPS-42"}',
    );
    const edit = results.find((block) => block.tool_use_id === 'c3')!;
    expect(edit.content).toBe(
      '[Cleared Tool Result v1]\n[edit_file: success]\nKey data: {"path":"config/deploy.yml"}',
    );
    expect(requestText(messages)).not.toContain('tickets.example.com');
  });

  it('lets dropped messages vanish and changes nothing else', () => {
    const plan = planOf(thread, [drop(thread, ids(12, 13))]);
    for (const provider of PROVIDERS) {
      const full = wireMessages(render(provider, null).request).map((message) => JSON.stringify(message));
      const dropped = wireMessages(render(provider, plan).request).map((message) => JSON.stringify(message));
      const expected = full.filter(
        (message) =>
          !message.includes('What was the ticket number again?') && !message.includes('It was OPS-42.'),
      );
      expect(dropped).toEqual(expected);
      expect(full.length - dropped.length).toBe(2);
    }
  });

  it('resolves overlapping records by precedence (Drop > Externalize > Summarize > Clear)', () => {
    const plan = planOf(thread, [
      clear(thread, ['m4']),
      summarize(thread, ids(2, 7), { facts: [{ text: 'the summary' }] }),
      externalize(thread, ids(5, 6), 'art_config', { facts: [{ text: 'the pointer' }] }),
      drop(thread, ['m5', 'm6']),
    ]);
    const result = render('anthropic', plan);
    const text = requestText(result.request);
    expect(text).toContain('the summary');
    expect(text).not.toContain('the pointer');
    expect(text).not.toContain('Cleared Tool Result');
    expect(result.report.counts).toMatchObject({ summarized: 4, dropped: 2, externalized: 0, cleared: 0 });
    expect(result.report.warnings.length).toBeGreaterThanOrEqual(4);
  });
});

describe('never an orphan', () => {
  it('moves a call or result whose partner a plan hides, and says so', () => {
    const plan = planOf(thread, [
      summarize(thread, ['m3'], { facts: [{ text: 'looked at logs' }] }),
      drop(thread, ['m16']),
    ]);
    for (const provider of PROVIDERS) {
      const result = render(provider, plan);
      const text = requestText(result.request);
      expect(text).not.toContain('deploy step 3 ok');
      expect(text).not.toContain('npm test');
      expect(result.report.warnings).toEqual([
        'message m4 follows m3 (summarize) so no tool call or result is orphaned',
        'message m15 follows m16 (drop) so no tool call or result is orphaned',
      ]);
    }
  });

  it('makes a message with several hidden partners follow the strongest one, whatever the record order', () => {
    const { thread: split } = threadBuilder('split')
      .user('Check both.', { id: 'u1' })
      .assistant('Checking.', {
        id: 'a1',
        toolCalls: [
          { id: 'x1', name: 'bash', input: { command: 'one' } },
          { id: 'x2', name: 'bash', input: { command: 'two' } },
        ],
      })
      .toolResult('x1', 'first output', { id: 'r1' })
      .toolResult('x2', 'second output', { id: 'r2' })
      .assistant('Both fine.', { id: 'a2' })
      .build();
    const summarized = summarize(split, ['r2'], { facts: [{ text: 'second summarized' }] });
    const dropped = drop(split, ['r1']);
    for (const records of [
      [summarized, dropped],
      [dropped, summarized],
    ]) {
      const result = render('anthropic', planOf(split, records), split);
      const text = requestText(result.request);
      expect(text).not.toContain('Checking.');
      expect(text).not.toContain('second output');
      // r2 is in the same exchange group as the dropped r1, through a1: the whole group goes.
      expect(result.report.warnings).toEqual([
        'message a1 follows r1 (drop) so no tool call or result is orphaned',
      ]);
      expect(result.report.counts).toMatchObject({ summarized: 1, dropped: 2 });
    }
  });

  it('answers a pending call with a placeholder error result and leaves out a result with no call', () => {
    for (const provider of PROVIDERS) {
      const result = render(provider, null, edgeCaseThread());
      const text = requestText(result.request);
      expect(text).toContain(JSON.stringify(MISSING_RESULT_TEXT).slice(1, -1));
      expect(text).not.toContain('a result whose call is not in the log');
      expect(result.report.counts.orphanResults).toBe(1);
      expect(result.report.counts.missingResults).toBe(1);
    }
  });

  it('gives reused and unacceptable call ids distinct provider-safe ids, consistently on both sides', () => {
    const messages = anthropicMessages(render('anthropic', null, edgeCaseThread()));
    const uses = messages.flatMap((message) => message.content.filter((block) => block.type === 'tool_use'));
    const useIds = uses.map((block) => block.id as string);
    expect(new Set(useIds).size).toBe(useIds.length);
    expect(useIds).toContain('call_0');
    expect(useIds).toContain('call_0__2');
    for (const id of useIds) expect(id).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    const results = messages.flatMap((message) =>
      message.content.filter((block) => block.type === 'tool_result'),
    );
    expect(results.map((block) => block.tool_use_id)).toEqual(useIds);
  });
});

describe('provider adaptations', () => {
  it('opens an Anthropic or AI SDK conversation with a user message; OpenAI keeps the assistant role', () => {
    const plan = planOf(thread, [summarize(thread, ids(1, 7), { facts: [{ text: 'opening' }] })]);
    const anthropic = anthropicMessages(render('anthropic', plan));
    expect(anthropic[0]!.role).toBe('user');
    expect(textsOf(anthropic[0]!)[0]).toMatch(/^\[Context Summary - Turns 0-1\]/);
    const aiSdk = wireMessages(render('ai-sdk', plan).request) as { role: string }[];
    expect(aiSdk[0]!.role).toBe('user');
    const chat = wireMessages(render('openai-chat', plan).request) as { role: string; content: string }[];
    expect(chat[0]!.role).toBe('system');
    expect(chat[1]!.role).toBe('assistant');
    expect(chat[1]!.content).toMatch(/^\[Context Summary - Turns 0-1\]/);
  });

  it('puts a continuation note before an assistant message that would open the conversation', () => {
    const plan = planOf(thread, [drop(thread, ids(1, 2))]);
    const anthropic = anthropicMessages(render('anthropic', plan));
    expect(anthropic[0]).toEqual({ role: 'user', content: [{ type: 'text', text: CONTINUATION_TEXT }] });
    expect(anthropic[1]!.role).toBe('assistant');
    const chat = wireMessages(render('openai-chat', plan).request) as { role: string }[];
    expect(chat[1]!.role).toBe('assistant');
  });

  it('sends the continuation note when nothing else is left', () => {
    const plan = planOf(thread, [drop(thread, ids(1, 17))]);
    for (const provider of PROVIDERS) {
      const result = render(provider, plan);
      expect(requestText(result.request)).toContain('Earlier messages of this conversation are not shown.');
    }
  });

  it('keeps log system messages in place: system role for OpenAI, a user note elsewhere', () => {
    const chat = wireMessages(render('openai-chat', null).request) as { role: string; content: unknown }[];
    expect(chat[1]).toEqual({ role: 'system', content: 'The repository is checked out at /srv/app.' });
    const anthropic = anthropicMessages(render('anthropic', null));
    expect(anthropic[0]!.content).toEqual([
      { type: 'text', text: '[System Message]\nThe repository is checked out at /srv/app.' },
    ]);
    const aiSdk = render('ai-sdk', null).request as { system: string; messages: { role: string }[] };
    expect(aiSdk.system).toBe('You are a careful DevOps agent. Explain what you do.');
    expect(aiSdk.messages.every((message) => message.role !== 'system')).toBe(true);
  });

  it('sends signed thinking back to Anthropic only, first in its message, and never unsigned reasoning', () => {
    const edges = edgeCaseThread();
    const anthropic = anthropicMessages(render('anthropic', null, edges));
    const withThinking = anthropic.find((message) =>
      message.content.some((block) => block.type === 'thinking'),
    )!;
    expect(withThinking.content[0]).toEqual({
      type: 'thinking',
      thinking: 'The user wants a listing.',
      signature: 'sig-abc',
    });
    for (const provider of PROVIDERS) {
      const text = requestText(render(provider, null, edges).request);
      expect(text).not.toContain('unsigned thoughts');
      expect(text).not.toContain('only thinking, unsigned');
      if (provider !== 'anthropic') expect(text).not.toContain('The user wants a listing.');
    }
  });

  it('sends images as image blocks and artifact-held media as a text reference, never base64 as text', () => {
    const base64 = Buffer.from('not really a png').toString('base64');
    const { thread: withImage } = threadBuilder('img')
      .message({
        id: 'u1',
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: base64 } },
          { type: 'image', mediaType: 'image/png', source: { kind: 'artifact', artifactId: 'art_img' } },
        ],
      })
      .build();
    const anthropic = anthropicMessages(
      renderPromptSync(renderInput('anthropic', withImage, null, { promptCaching: false })),
    );
    expect(anthropic[0]!.content[1]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: base64 },
    });
    expect(anthropic[0]!.content[2]).toEqual({ type: 'text', text: '[Image: artifact:art_img (image/png)]' });
    const chat = wireMessages(render('openai-chat', null, withImage).request) as { content: unknown }[];
    expect(chat[1]!.content).toContainEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${base64}` },
    });
    for (const provider of PROVIDERS) {
      const texts = JSON.stringify(render(provider, null, withImage).request, (key, value: unknown) =>
        key === 'data' || key === 'url' || key === 'image_url' || key === 'image' ? undefined : value,
      );
      expect(texts).not.toContain(base64);
    }
  });

  it('renders only the rendered agent: subagent messages stay out of the root prompt, and vice versa', () => {
    const edges = edgeCaseThread();
    const root = render('anthropic', null, edges);
    expect(requestText(root.request)).not.toContain('Search for TODOs.');
    expect(root.report.counts.excluded).toBe(2);
    const helper = render('anthropic', null, edges);
    const helperOnly = renderPromptSync(renderInput('anthropic', edges, null, { agent: 'helper' }));
    expect(validateProviderRequest('anthropic', helperOnly.request).errors).toEqual([]);
    expect(anthropicMessages(helperOnly).map((message) => textsOf(message)[0])).toEqual([
      'Search for TODOs.',
      'Found 3 TODOs.',
    ]);
    expect(helper.report.counts.excluded).toBe(2);
  });

  it('sends non-object tool inputs as an object', () => {
    const messages = anthropicMessages(render('anthropic', null, edgeCaseThread()));
    const call = messages.flatMap((message) => message.content).find((block) => block.id === 'c9')!;
    expect(call.input).toEqual({ value: 'src' });
  });
});

describe('stable prefix', () => {
  it('ends at the last message that predates the plan, counted in request messages for every provider', () => {
    const planSeq = thread.messages.find((message) => message.id === 'm11')!.seq;
    const plan = planOf(thread, [summarize(thread, ids(2, 7), { facts: [{ text: 'x' }] })], {
      basedOnSeq: planSeq,
    });
    for (const provider of PROVIDERS) {
      const result = render(provider, plan);
      const messages = wireMessages(result.request);
      expect(JSON.stringify(messages[result.report.stablePrefixMessages - 1])).toContain(
        'Fixed the port and opened OPS-42.',
      );
      expect(result.report.stablePrefixTokens).toBeLessThan(result.tokens.total);
      expect(result.report.stablePrefixTokens).toBeGreaterThan(result.tokens.system + result.tokens.tools);
    }
  });
});

describe('inputs and determinism', () => {
  it('rejects a plan made for another thread', () => {
    const plan = { ...planOf(thread, []), threadId: 'other' };
    expect(() => renderPromptSync(renderInput('anthropic', thread, plan))).toThrowError(
      /plan is for thread other/,
    );
    try {
      renderPromptSync(renderInput('anthropic', thread, plan));
    } catch (error) {
      expect(CompactorError.hasCode(error, 'validation')).toBe(true);
    }
  });

  it('gives byte-identical output for the same inputs, cold or warm, in any order of providers', () => {
    const plan = planOf(thread, [
      summarize(thread, ids(2, 7), { facts: [{ text: 'x' }] }),
      clear(thread, ['m16']),
    ]);
    const cache = createRenderCache();
    for (const provider of PROVIDERS) {
      const cold = renderPromptSync(renderInput(provider, thread, plan));
      const warmFirst = renderPromptSync(renderInput(provider, thread, plan, { cache }));
      const warmSecond = renderPromptSync(renderInput(provider, thread, plan, { cache }));
      expect(JSON.stringify(warmFirst)).toBe(JSON.stringify(cold));
      expect(JSON.stringify(warmSecond)).toBe(JSON.stringify(cold));
    }
    expect(cache.stats.hits).toBeGreaterThan(0);
  });
});
