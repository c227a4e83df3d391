/**
 * The two implicit rehydration triggers of ADR-0008's safety net (ADR-0191): a pending call to a
 * tool whose schema needs another tool's output, and the agent's message matching a rehydrate hint.
 */
import { type ToolDefinition, tokenBudget } from '@compactor/core';
import { describe, expect, it, vi } from 'vitest';
import {
  hintTerms,
  matchesHint,
  renderLifecycleEvents,
  renderPrompt,
  TOOL_SCHEMA_REHYDRATE_KEYWORD,
} from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { deploySession, SECURITY_CONTEXT, TENANT, TOOLS } from './support/fixtures.js';
import { MemoryArtifactStore } from './support/memory-artifact-store.js';
import { externalize, ids, planOf } from './support/plans.js';
import { renderInput, requestText } from './support/render-helpers.js';

// Real tokenizers on two shared cores: allow for load, never assert on time.
vi.setConfig({ testTimeout: 60_000 });

const CONFIG = 'service:\n  port: 8080\nhealthcheck:\n  path: /health';

function store(): MemoryArtifactStore {
  const artifacts = new MemoryArtifactStore();
  artifacts.add('art_cfg', CONFIG, { threadId: 'deploy', tenantId: TENANT, sensitivity: 'internal' });
  artifacts.add('art_log', 'deploy log\n'.repeat(40), {
    threadId: 'deploy',
    tenantId: TENANT,
    sensitivity: 'internal',
  });
  return artifacts;
}

const PATCH_TOOL: ToolDefinition = {
  name: 'apply_patch',
  description: 'Apply a patch to a file',
  inputSchema: {
    type: 'object',
    properties: { patch: { type: 'string' } },
    [TOOL_SCHEMA_REHYDRATE_KEYWORD]: ['read_file'],
  },
};

/** The deploy session with the config read (m5, m6) and the log (m3, m4) externalized. */
async function render(options: { latest?: string; pendingPatch?: boolean; tools?: ToolDefinition[] }) {
  const { thread } = deploySession((builder) => {
    builder.user('Keep going.', { id: 'm18' });
    if (options.pendingPatch) {
      builder.assistant('Patching the config.', {
        id: 'm19',
        toolCalls: [{ id: 'p1', name: 'apply_patch', input: { patch: '-8080 +9090' } }],
      });
    } else {
      builder.assistant(options.latest ?? 'Done.', { id: 'm19' });
    }
  });
  const plan = planOf(thread, [
    externalize(
      thread,
      ids(3, 4),
      'art_log',
      { toolOutcomes: [{ toolName: 'bash', outcome: 'success' }] },
      'call read_artifact("art_log") for the full bash output (400 characters)',
    ),
    externalize(
      thread,
      ids(5, 6),
      'art_cfg',
      { toolOutcomes: [{ toolName: 'read_file', outcome: 'success' }] },
      'read if you need the healthcheck path or service port of deploy.yml',
    ),
  ]);
  const result = await renderPrompt(
    renderInput('anthropic', thread, plan, {
      artifactStore: store(),
      securityContext: SECURITY_CONTEXT,
      tools: options.tools ?? TOOLS,
      budget: tokenBudget({
        maxInputTokens: 200_000,
        outputReserveTokens: 0,
        safetyBufferTokens: 0,
        rehydrationReserveTokens: 10_000,
      }),
    }),
  );
  expect(validateProviderRequest('anthropic', result.request).errors).toEqual([]);
  return result;
}

const performed = (result: Awaited<ReturnType<typeof render>>) =>
  result.report.rehydration.performed.map((event) => [event.artifactId, event.trigger]);

describe('the rehydrate_hint trigger', () => {
  it("rehydrates an artifact whose hint the agent's latest message matches, and nothing for an unrelated message", async () => {
    const matched = await render({ latest: 'Which service port does deploy.yml declare again?' });
    expect(performed(matched)).toEqual([['art_cfg', 'hint']]);
    expect(requestText(matched.request)).toContain('[Rehydrated Content - artifact:art_cfg]');
    const unrelated = await render({ latest: 'The ticket is open; anything else?' });
    expect(performed(unrelated)).toEqual([]);
    // A statement naming the same terms is not a question: nothing.
    const statement = await render({ latest: 'The service port of deploy.yml is next on my list.' });
    expect(performed(statement)).toEqual([]);
  });

  it('a generated hint matches by its tool name, as a whole word only', async () => {
    const terms = hintTerms(
      'call read_artifact("art_log") for the full bash output (400 characters)',
      'art_log',
    );
    expect(terms).toEqual(['bash']);
    expect(matchesHint('Let me look at the bash output from before.', terms)).toBe(true);
    expect(matchesHint('Let me look at the bashrc.', terms)).toBe(false);
    // Two distinctive terms are needed when the hint has two or more.
    const two = hintTerms('read if you need the healthcheck path or service port of deploy.yml', 'art_cfg');
    expect(two).toEqual(['healthcheck', 'path', 'service', 'port', 'deploy.yml']);
    expect(matchesHint('what port?', two)).toBe(false);
    expect(matchesHint('what port does the service use?', two)).toBe(true);
  });
});

describe('the tool schema trigger', () => {
  it('a pending call to a tool whose schema needs read_file output rehydrates the artifact holding it', async () => {
    const needed = await render({ pendingPatch: true, tools: [...TOOLS, PATCH_TOOL] });
    expect(performed(needed)).toEqual([['art_cfg', 'tool_schema']]);
    expect(requestText(needed.request)).toContain('[Rehydrated Content - artifact:art_cfg]');
    // The same call without the schema keyword needs nothing.
    const plainTool = { ...PATCH_TOOL, inputSchema: { type: 'object' } };
    const notNeeded = await render({ pendingPatch: true, tools: [...TOOLS, plainTool] });
    expect(performed(notNeeded)).toEqual([]);
  });
});

describe('render lifecycle events', () => {
  it('records rehydrations (not same-turn re-shows), blocks and one compaction_retrieved per recall', () => {
    const owner = { tenantId: TENANT, threadId: 'deploy' };
    const events = renderLifecycleEvents(
      {
        turn: 4,
        rehydration: {
          performed: [
            { name: 'compaction_rehydrated', artifactId: 'a', turn: 4, trigger: 'hint', tokens: 10 },
            { name: 'compaction_rehydrated', artifactId: 'b', turn: 4, trigger: 'same_turn', tokens: 10 },
          ],
          blocked: [
            {
              name: 'compaction_rehydration_blocked',
              artifactId: 'c',
              turn: 4,
              trigger: 'message',
              reason: 'cooldown',
            },
          ],
        },
        recall: {
          attempted: true,
          query: 'q',
          allowance: 100,
          reserveAllowance: 100,
          freeRoomTokens: 0,
          tokens: 42,
          indexed: 9,
          recalled: [{ messageId: 'm3', turn: 1, score: 2, compactedBy: 'summarize' }],
        },
      },
      owner,
      '2025-06-01T00:00:00.000Z',
    );
    expect(events.map((event) => [event.name, event.details?.artifactId ?? null])).toEqual([
      ['compaction_rehydrated', 'a'],
      ['compaction_rehydration_blocked', 'c'],
      ['compaction_retrieved', null],
    ]);
    expect(events[2]).toMatchObject({ spanMessageIds: ['m3'], tokensAfter: 42, details: { turn: 4 } });
  });
});
