/** The README's example, compiled by the workspace typecheck and run by `test/readme-example.int.test.ts`. */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { compactionMiddleware } from '@compactor/ai-sdk';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactor } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { generateText, stepCountIs, type ToolSet, wrapLanguageModel } from 'ai';

export async function runCompactedAgent(
  model: LanguageModelV3,
  tools: ToolSet,
  prompt: string,
  dataDir: string,
) {
  const stores = await createEmbeddedStores({ dataDir });
  const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
  const middleware = compactionMiddleware({ compactor, threadId: 'support-chat-42' });
  const compacted = wrapLanguageModel({ model, middleware });
  const result = await generateText({ model: compacted, prompt, tools, stopWhen: stepCountIs(100) });
  await stores.close();
  return result.text;
}
