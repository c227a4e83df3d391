import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonSchema, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { expect, it } from 'vitest';
import { runCompactedAgent } from '../examples/compacted-agent.js';

it('the README example runs a tool loop through the middleware', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-ai-sdk-readme-'));
  let calls = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () => {
      calls += 1;
      const usage = {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      };
      return calls < 4
        ? {
            content: [
              { type: 'tool-call', toolCallId: `c${calls}`, toolName: 'lookup', input: '{"order":"A-1"}' },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_use' },
            usage,
            warnings: [],
          }
        : {
            content: [{ type: 'text', text: 'Order A-1 ships today.' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          };
    },
  });
  const tools = {
    lookup: tool({
      inputSchema: jsonSchema<{ order: string }>({
        type: 'object',
        properties: { order: { type: 'string' } },
      }),
      execute: async ({ order }) => `${order}: packed, ships today`,
    }),
  };
  try {
    expect(await runCompactedAgent(model, tools, 'Where is order A-1?', dataDir)).toBe(
      'Order A-1 ships today.',
    );
    expect(model.doGenerateCalls.at(-1)!.prompt.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
