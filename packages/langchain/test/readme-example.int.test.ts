import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeModel } from '@langchain/core/testing';
import { AIMessage, tool } from 'langchain';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { runCompactedAgent } from '../examples/compacted-agent.js';

it('the README example runs a createAgent tool loop through the middleware', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'compactor-langchain-readme-'));
  const lookup = tool(async ({ order }) => `${order}: packed, ships today`, {
    name: 'lookup',
    description: 'Look an order up.',
    schema: z.object({ order: z.string() }),
  });
  const model = fakeModel()
    .respondWithTools([{ name: 'lookup', args: { order: 'A-1' }, id: 'c1' }])
    .respond(new AIMessage('Order A-1 ships today.'));
  try {
    expect(await runCompactedAgent(model, [lookup], 'Where is order A-1?', dataDir)).toBe(
      'Order A-1 ships today.',
    );
    expect(model.calls.at(-1)!.messages.map((message) => message.type)).toEqual(['human', 'ai', 'tool']);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
