/**
 * What an integrator writes against the published packages: a tool-using agent loop that appends
 * each step, lets the engine compact when the thread grows past its trigger, and renders the next
 * request within the render ceiling. `packed-install.e2e.test.ts` copies this file into a project
 * outside the workspace, type-checks it against the installed tarballs and runs it on Node.
 */
import { type EventInput, foldThread, systemClock } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine, threadBudget } from '@compactor/engine';
import { renderCeiling, renderPromptSync } from '@compactor/render';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { createTokenizer } from '@compactor/tokenizer';

export interface AgentLoopResult {
  steps: number;
  commits: number;
  ceiling: number;
  largestRequestTokens: number;
  lastRequestMessages: number;
}

function stepEvents(step: number): EventInput[] {
  const callId = `call_${step}`;
  const output = `line ${step}: the test suite for module_${step} passed with 14 assertions. `.repeat(30);
  return [
    {
      eventId: `u${step}`,
      type: 'message.appended',
      message: { id: `u${step}`, role: 'user', content: [{ type: 'text', text: `Run step ${step}.` }] },
    },
    {
      eventId: `a${step}`,
      type: 'message.appended',
      message: {
        id: `a${step}`,
        role: 'assistant',
        content: [{ type: 'tool_call', id: callId, name: 'run_tests', input: { module: `module_${step}` } }],
      },
    },
    {
      eventId: `t${step}`,
      type: 'message.appended',
      message: {
        id: `t${step}`,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolName: 'run_tests',
            toolCallId: callId,
            outcome: 'success',
            content: output,
            keyFields: { module: `module_${step}` },
          },
        ],
      },
    },
  ];
}

export async function runAgentLoop(dataDir: string, steps: number): Promise<AgentLoopResult> {
  const stores = await createEmbeddedStores({ dataDir });
  try {
    await stores.events.append('acme', 'agent', [
      { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 8_000 },
    ]);
    const engine = createCompactionEngine({
      events: stores.events,
      plans: stores.plans,
      artifacts: stores.artifacts,
      lifecycle: stores.lifecycle,
      summarizer: createExtractiveSummarizer(),
      clock: systemClock,
    });
    let commits = 0;
    let largestRequestTokens = 0;
    let lastRequestMessages = 0;
    let ceiling = 0;
    for (let step = 1; step <= steps; step += 1) {
      await stores.events.append('acme', 'agent', stepEvents(step));
      const result = await engine.check('acme', 'agent');
      if (result.commit.status === 'committed') commits += 1;
      const thread = foldThread(await stores.events.readAll('acme', 'agent'));
      const { plan } = await stores.plans.getCurrent('acme', 'agent');
      const budget = threadBudget(thread);
      ceiling = renderCeiling(budget);
      const rendered = renderPromptSync({
        thread,
        plan,
        system: 'You are a careful testing agent.',
        tools: [
          { name: 'run_tests', description: 'Run one module’s tests.', inputSchema: { type: 'object' } },
        ],
        budget,
        provider: 'anthropic',
        tokenizer: createTokenizer({
          model: thread.model,
          modelInfo: { contextWindow: thread.contextWindow },
        }),
      });
      largestRequestTokens = Math.max(largestRequestTokens, rendered.tokens.total);
      lastRequestMessages = rendered.report.counts.wireMessages;
    }
    return { steps, commits, ceiling, largestRequestTokens, lastRequestMessages };
  } finally {
    await stores.close();
  }
}
