/** The README's example, compiled by the workspace typecheck and run by `test/readme-example.int.test.ts`. */
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactor } from '@compactor/engine';
import { compactionMiddleware } from '@compactor/langchain';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { createAgent, HumanMessage, type StructuredTool } from 'langchain';

export async function runCompactedAgent(
  model: BaseChatModel,
  tools: StructuredTool[],
  question: string,
  dataDir: string,
) {
  const stores = await createEmbeddedStores({ dataDir });
  const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
  const middleware = [compactionMiddleware({ compactor, threadId: 'support-chat-42' })];
  const agent = createAgent({ model, tools, middleware });
  const result = await agent.invoke({ messages: [new HumanMessage(question)] });
  await stores.close();
  return result.messages.at(-1)?.text;
}
