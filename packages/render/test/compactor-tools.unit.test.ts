import { type CompactionPolicy, parsePolicy, type Thread } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { compactorToolsTokens, renderPromptSync } from '../src/index.js';
import { deploySession } from './support/fixtures.js';
import { externalize, ids, planOf } from './support/plans.js';
import { renderInput } from './support/render-helpers.js';
import { PROVIDERS, tokenizerFor } from './support/tokenizers.js';

const { thread } = deploySession();

function withPolicy(base: Thread, policy: Partial<CompactionPolicy>): Thread {
  return { ...base, policy: parsePolicy({ ...base.policy, ...policy }) };
}

/** The serialized request up to (not including) its messages: tools and system. */
function head(request: unknown): string {
  const { messages: _messages, input: _input, ...rest } = request as Record<string, unknown>;
  const leading = (request as { messages?: unknown[] }).messages?.[0];
  // OpenAI Chat carries the system prompt as its first message.
  return (
    JSON.stringify(rest) +
    (leading && (leading as { role?: string }).role === 'system' ? JSON.stringify(leading) : '')
  );
}

describe("Compactor's tools (ADR-0141)", () => {
  const plan = planOf(thread, [
    externalize(thread, ids(3, 4), 'art_log', { facts: [{ text: 'log fetched' }] }),
  ]);

  it('are in the request from the start, after the caller’s tools, so an externalizing commit keeps the first bytes', () => {
    for (const provider of PROVIDERS) {
      const before = renderPromptSync(renderInput(provider, thread, null));
      const after = renderPromptSync(renderInput(provider, thread, plan));
      expect(before.report.toolsAdded).toEqual(['read_artifact']);
      expect(head(after.request)).toBe(head(before.request));
      expect(before.tokens.tools).toBe(after.tokens.tools);
    }
  });

  it('appear only with the plan under `on-demand` (the cache break the default avoids)', () => {
    const onDemand = withPolicy(thread, { compactorTools: 'on-demand' });
    for (const provider of PROVIDERS) {
      const before = renderPromptSync(renderInput(provider, onDemand, null));
      const after = renderPromptSync(renderInput(provider, onDemand, plan));
      expect(before.report.toolsAdded).toEqual([]);
      expect(after.report.toolsAdded).toEqual(['read_artifact']);
      expect(head(after.request)).not.toBe(head(before.request));
    }
  });

  it('are left out when the policy never externalizes, yet a plan that does still gets read_artifact', () => {
    const never = withPolicy(thread, {
      strategies: { abridge: false, externalize: false, summarize: true, clear: true, drop: true },
    });
    expect(renderPromptSync(renderInput('anthropic', never, null)).report.toolsAdded).toEqual([]);
    const window = withPolicy(thread, { mode: { kind: 'sliding-window', maxEvents: 4 } });
    expect(renderPromptSync(renderInput('anthropic', window, null)).report.toolsAdded).toEqual([]);
    expect(renderPromptSync(renderInput('anthropic', never, plan)).report.toolsAdded).toEqual([
      'read_artifact',
    ]);
  });

  it('are not added twice when the caller already offers one of that name', () => {
    const own = { name: 'read_artifact', description: 'mine', inputSchema: { type: 'object' } };
    const result = renderPromptSync(renderInput('anthropic', thread, plan, { tools: [own] }));
    expect(result.report.toolsAdded).toEqual([]);
    expect((result.request as { tools: unknown[] }).tools).toHaveLength(1);
  });

  it('cost what the planner sets aside for them: the tools tokens a render adds', () => {
    for (const provider of PROVIDERS) {
      const tokenizer = tokenizerFor(provider);
      const bare = renderPromptSync(renderInput(provider, thread, null, { tools: [] }));
      expect(compactorToolsTokens(thread.policy, tokenizer, provider)).toBe(bare.tokens.tools);
      expect(bare.tokens.tools).toBeGreaterThan(0);
      const never = withPolicy(thread, { compactorTools: 'on-demand' });
      expect(compactorToolsTokens(never.policy, tokenizer, provider)).toBe(0);
    }
  });
});
