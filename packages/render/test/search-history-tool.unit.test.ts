import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import { handleSearchHistory, renderPromptSync, SEARCH_HISTORY_TOOL_NAME } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { drop, ids, planOf, summarize } from './support/plans.js';
import { renderInput } from './support/render-helpers.js';

function thread(policy: Record<string, unknown> = {}) {
  const builder = threadBuilder('search', { tenantId: 'tenant-1', policy });
  builder.user('My locker code is 5433, gym on the second floor.').assistant('Noted.');
  builder.user('We adopted a puppy named Biscuit last week.').assistant('Lovely.');
  builder.user('The build failed on the lint step.').assistant('I will look.');
  builder.user('What should we do next?');
  return builder.build().thread;
}

describe('search_history (ADR-0163)', () => {
  const base = thread();
  const plan = planOf(base, [
    summarize(base, ids(1, 4), { facts: [{ text: 'small talk' }] }),
    drop(base, ids(5, 6)),
  ]);

  it('answers a call from the compacted messages, verbatim, with their turn', () => {
    const { result, hits } = handleSearchHistory(
      { query: 'puppy name' },
      { toolCallId: 'call-1', thread: base, plan },
    );
    expect(result).toMatchObject({
      type: 'tool_result',
      toolName: SEARCH_HISTORY_TOOL_NAME,
      toolCallId: 'call-1',
      outcome: 'success',
      durability: 'ephemeral',
    });
    expect(result.content).toContain('We adopted a puppy named Biscuit last week.');
    expect(result.content).not.toContain('5433');
    expect(hits.map((hit) => hit.messageId)).toEqual(['m3']);
    expect(hits[0]!.compactedBy).toBe('summarize');
  });

  it('searches only what the plan compacted, and answers bad input with a failure result', () => {
    const verbatim = handleSearchHistory({ query: 'next' }, { toolCallId: 'c', thread: base, plan });
    expect(verbatim.hits).toEqual([]);
    expect(
      handleSearchHistory({ query: 'locker' }, { toolCallId: 'c', thread: base, plan: null }).hits,
    ).toEqual([]);
    const bad = handleSearchHistory({ q: 1 }, { toolCallId: 'c', thread: base, plan });
    expect(bad.result.outcome).toBe('failure');
    expect(handleSearchHistory('locker', { toolCallId: 'c', thread: base, plan }).result.outcome).toBe(
      'failure',
    );
  });

  it('keeps within its token limit and top_k', () => {
    const one = handleSearchHistory(
      { query: 'locker puppy build', top_k: 1 },
      { toolCallId: 'c', thread: base, plan },
    );
    expect(one.hits).toHaveLength(1);
    const none = handleSearchHistory(
      { query: 'locker' },
      { toolCallId: 'c', thread: base, plan, maxTokens: 2 },
    );
    expect(none.hits).toEqual([]);
  });

  it('never returns tool output whose sensitivity is not auto-rehydratable', () => {
    const builder = threadBuilder('secret', {
      tenantId: 'tenant-1',
      policy: {
        toolDurability: {
          defaultDurability: 'anchoring',
          overrides: {
            vault: { durability: 'anchoring', mustPreserveFields: [], artifactSensitivity: 'confidential' },
          },
        },
      },
    });
    builder.user('Fetch the vault entry.');
    builder.assistant('', { toolCalls: [{ id: 'v1', name: 'vault', input: {} }] });
    builder.toolResult('v1', 'password hunter2 for the vault');
    builder.assistant('Got it.');
    builder.user('Thanks, now something else.');
    const secret = builder.build().thread;
    const secretPlan = planOf(secret, [drop(secret, ids(1, 4))]);
    const found = handleSearchHistory(
      { query: 'vault password' },
      { toolCallId: 'c', thread: secret, plan: secretPlan },
    );
    expect(JSON.stringify(found.result.content)).not.toContain('hunter2');
    // The user's own words in that span are not tool output: they stay searchable.
    const words = handleSearchHistory(
      { query: 'vault entry' },
      { toolCallId: 'c', thread: secret, plan: secretPlan },
    );
    expect(words.result.content).toContain('Fetch the vault entry.');
  });

  it('is offered only when asked: from the first request under the stable tool list, once something is compacted on demand', () => {
    const offered = renderPromptSync(renderInput('anthropic', base, plan, { addSearchHistoryTool: true }));
    expect(offered.report.toolsAdded).toContain(SEARCH_HISTORY_TOOL_NAME);
    expect(JSON.stringify(offered.request)).toContain('"search_history"');
    expect(validateProviderRequest('anthropic', offered.request).errors).toEqual([]);
    expect(renderPromptSync(renderInput('anthropic', base, plan)).report.toolsAdded).not.toContain(
      SEARCH_HISTORY_TOOL_NAME,
    );
    // Stable (the default, ADR-0141): present before any plan, so a first compaction changes no tool bytes.
    expect(
      renderPromptSync(renderInput('anthropic', base, null, { addSearchHistoryTool: true })).report
        .toolsAdded,
    ).toContain(SEARCH_HISTORY_TOOL_NAME);
    const onDemand = { ...base, policy: { ...base.policy, compactorTools: 'on-demand' as const } };
    expect(
      renderPromptSync(renderInput('anthropic', onDemand, null, { addSearchHistoryTool: true })).report
        .toolsAdded,
    ).not.toContain(SEARCH_HISTORY_TOOL_NAME);
    expect(
      renderPromptSync(renderInput('anthropic', onDemand, plan, { addSearchHistoryTool: true })).report
        .toolsAdded,
    ).toContain(SEARCH_HISTORY_TOOL_NAME);
  });
});
